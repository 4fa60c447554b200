// resolve_parts: a pasted list of parts (a bill of materials, an email, a spreadsheet column)
// resolved in one call; the work is in src/resolve/.
import { z } from "zod";
import { PartView } from "../src/api/schemas";
import { MAX_RESOLVE_CURSOR } from "../src/resolve/catalogue";
import { resolvedText, resolveList } from "../src/resolve/list";
import { defineTool, READ } from "./define";
import { urlSafe } from "./params";

const MAX_LINES = 200;
const MAX_LINE_CHARS = 300;

const FoundPart = z.object({
  id: z.string(),
  title: z.string(),
  versionName: z.string().optional(),
  serialId: z.string(),
});

export const resolveParts = defineTool({
  name: "resolve_parts",
  title: "Resolve a list of parts",
  group: "parts",
  description:
    'Match pasted lines (BOM, email: "2x engine mount bracket Rev B", serial ids, external refs) to parts in one call: each gets match, ambiguous or none, with quantity.',
  input: z.object({
    lines: z
      .array(
        urlSafe(z.string()).refine((line) => line.length <= MAX_LINE_CHARS, {
          message: `a line is at most ${MAX_LINE_CHARS} characters`,
        }),
      )
      .min(1)
      .max(MAX_LINES)
      .describe(`One part a line, 1-${MAX_LINES}`),
    view: PartView.optional().describe("Default both"),
    cursor: z.string().max(MAX_RESOLVE_CURSOR).optional().describe("From cursor, with the same lines"),
  }),
  output: z.object({
    items: z.array(
      z.object({
        line: z.string(),
        quantity: z.number().optional(),
        status: z.enum(["match", "ambiguous", "none"]),
        part: FoundPart.optional(),
        matchedBy: z.enum(["id", "serialId", "externalRef", "title", "words"]).optional(),
        confidence: z.number(),
        alternatives: z.array(FoundPart).optional(),
        why: z.string().optional(),
      }),
    ),
    complete: z.boolean(),
    cursor: z.string().optional(),
    hint: z.string().optional(),
  }),
  annotations: READ,
  notFound: "Find parts with search_parts.",
  handler: (args, { search, api, call, progress }) =>
    resolveList(args, { search, api, call, ...(progress && { progress }) }),
  text: resolvedText,
  mentions: ({ items }) =>
    items.flatMap(({ part }) => (part ? [{ kind: "part" as const, id: part.id, title: part.title }] : [])),
});
