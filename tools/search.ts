// Finding parts and reference records in one call, as decided in ../shared/spec/decisions.md
// ("Finding things"): the API itself reads only by id and pages through parts.
import { z } from "zod";
import { REFERENCE_KINDS } from "../src/api/kinds";
import { Part, PartView } from "../src/api/schemas";
import { DEFAULT_LIMIT, MAX_CURSOR_LENGTH, MAX_FILTER_CODES, MAX_LIMIT } from "../src/search";
import { defineTool, READ } from "./define";
import { urlSafe } from "./params";

const MAX_TEXT = 200;
const CODES_HINT = "Find codes with search_reference.";

const text = (what: string) =>
  urlSafe(
    z.string().max(MAX_TEXT, {
      message: `at most ${MAX_TEXT} characters: send a few words or a code, not a document`,
    }),
  )
    .optional()
    .describe(what);

/** One code of a filter; its bounds are checked, not advertised (every byte of a schema costs tokens). */
const oneCode = urlSafe(z.string()).refine((value) => value.length >= 1 && value.length <= 200, {
  message: "a code is 1 to 200 characters",
});

/** A filter: an exact code, or several (any of them); where codes come from, the description says once. */
const code = (example: string) =>
  z
    .union([
      oneCode,
      z.array(oneCode).refine((list) => list.length >= 1 && list.length <= MAX_FILTER_CODES, {
        message: `1 to ${MAX_FILTER_CODES} codes`,
      }),
    ])
    .optional()
    .describe(`e.g. ${example}`);

const PartSummary = Part.pick({
  id: true,
  title: true,
  versionName: true,
  serialId: true,
  processId: true,
  materialId: true,
  standardIds: true,
  published: true,
});

export const searchParts = defineTool({
  name: "search_parts",
  title: "Search parts",
  group: "parts",
  description:
    'Find parts by words (all must match the part\'s own text or its material, process, category, standard or criticality: "titanium brackets", "flight critical") and/or codes from search_reference (a list: any). If complete is false, call again with nextCursor.',
  input: z.object({
    text: text("Plurals, UK/US spelling, typos forgiven"),
    materialId: code("ti64, [ti64, ti64-eli]"),
    processId: code("sls, lpbf"),
    standardId: code('"ASTM F3001"'),
    criticalityId: code("crit-fsc"),
    categoryId: code("cat-brackets (and subcategories)"),
    view: PartView.optional().describe("IP_OWNER: yours; CONSUMER: others' published; default both"),
    limit: z.number().int().min(1).max(MAX_LIMIT).optional().describe(`Default ${DEFAULT_LIMIT}`),
    cursor: z.string().max(MAX_CURSOR_LENGTH).optional().describe("From nextCursor"),
  }),
  output: z.object({
    summary: z.string(),
    matchedSoFar: z.number().int(),
    total: z.number().int().optional().describe("Once every part was read"),
    items: z.array(
      PartSummary.extend({
        matched: z
          .string()
          .optional()
          .describe(
            'Record that matched words its text lacks; "category …", "description only": loose, ranked last',
          ),
      }),
    ),
    scanned: z.number().int().describe("Parts examined"),
    complete: z.boolean().describe("Every part was examined (not a claim that nothing related exists)"),
    nextCursor: z.string().optional(),
    ignoredWords: z.array(z.string()).optional(),
    hint: z.string().optional().describe("How the text was read, or why nothing matched"),
  }),
  annotations: READ,
  alwaysLoad: true,
  notFound: CODES_HINT,
  handler: (args, { search, call, progress }) => search.searchParts(args, call, progress),
  mentions: ({ items }) => items.map(({ id, title }) => ({ kind: "part", id, title })),
});

/** The records of every kind share these fields; each kind's other fields come too. */
const ReferenceRecord = z.looseObject({
  code: z.string().optional(),
  id: z.string().optional(),
  name: z.string(),
});

export const searchReference = defineTool({
  name: "search_reference",
  title: "Search reference data",
  group: "reference",
  description:
    'Find the codes other tools take: processes, materials, standards, criticalities or categories by code, name, family or fragment ("PA12", "titanium", "3D printing", "AMS4928"), best match first; without text, all known.',
  input: z.object({
    kind: z.enum(REFERENCE_KINDS).optional().describe("Kind of record; default every kind"),
    text: text("Code, name or fragment"),
  }),
  output: z.object({
    items: z
      .array(ReferenceRecord.extend({ kind: z.string().optional().describe("Without kind in the call") }))
      .describe("Full records"),
    complete: z.boolean().describe("True only for standards, which the API lists"),
    coverage: z.literal("seen on parts").optional(),
    hint: z.string().optional(),
  }),
  annotations: READ,
  alwaysLoad: true,
  notFound: CODES_HINT,
  handler: async ({ kind, text }, { search, call, progress }) => {
    const { items, ...rest } = await search.searchReference(kind, text, call, progress);
    return { items: items as z.output<typeof ReferenceRecord>[], ...rest };
  },
});
