// preview_part: the part create_part would create, checked and nothing created. It takes
// create_part's own input and resolves every code (process, material, standards, criticalities,
// categories) to its record through the reference cache; an unknown code is flagged with the
// closest known records (the search module's did-you-mean), and one that could not be checked
// (the API failed) says why. An assistant calls it before create_part; an MCP Apps host shows
// the draft with a Create button.
import { z } from "zod";
import { REFERENCE_KINDS, type ReferenceKind } from "../src/api/kinds";
import { Category, Criticality, Material, Process, Standard } from "../src/api/schemas";
import { shortErrorMessage } from "../src/mcp/messages";
import { defineTool, READ } from "./define";
import { createPart } from "./parts";

export const previewPart = defineTool({
  name: "preview_part",
  title: "Preview part",
  group: "parts",
  description:
    "Check a create_part draft without creating anything: same arguments; returns each code resolved to its record and unknown codes with suggestions.",
  input: createPart.input,
  output: z.object({
    draft: z.record(z.string(), z.unknown()).describe("The arguments, as create_part would get them"),
    process: Process.optional(),
    material: Material.optional(),
    standards: z.array(Standard),
    criticalities: z.array(Criticality),
    categories: z.array(Category),
    unknown: z.array(
      z.object({ kind: z.enum(REFERENCE_KINDS), id: z.string(), didYouMean: z.string().optional() }),
    ),
    unchecked: z
      .array(z.object({ kind: z.enum(REFERENCE_KINDS), id: z.string(), reason: z.string() }))
      .optional()
      .describe("Codes the API could not check just now"),
  }),
  annotations: READ,
  requires: ["create_part"],
  notFound: "A referenced record does not exist; check the codes named in unknown.",
  handler: async (draft, { reference, search, call }) => {
    const { missing, failed, ...records } = await reference.resolve(draft, call);
    const unchecked = failed.map(({ kind, id, error }) => ({ kind, id, reason: shortErrorMessage(error) }));
    const order = (entry: { kind: ReferenceKind }) =>
      REFERENCE_KINDS.indexOf(entry.kind as (typeof REFERENCE_KINDS)[number]);
    const sorted = missing.sort((a, b) => order(a) - order(b));
    const hints = await search.suggestMany(sorted, call);
    const unknown = sorted.map((entry, i) => {
      const hint = hints[i];
      return hint === undefined ? entry : { ...entry, didYouMean: hint };
    });
    return {
      draft,
      ...records,
      unknown,
      ...(unchecked.length > 0 && { unchecked: unchecked.sort((a, b) => order(a) - order(b)) }),
    };
  },
});
