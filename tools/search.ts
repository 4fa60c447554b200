// Finding parts and reference records in one call, as decided in ../shared/spec/decisions.md
// ("Finding things"): the API itself reads only by id and pages through parts.
import { z } from "zod";
import { Part, PartView } from "../src/api/schemas";
import { DEFAULT_LIMIT, MAX_CURSOR_LENGTH, MAX_LIMIT } from "../src/search";
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

/** A filter: an exact code; where codes come from, the tool's description says once. */
const code = (example: string) => urlSafe(z.string().min(1).max(200)).optional().describe(`e.g. ${example}`);

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
    "Find parts by words of title, description, keywords, serial, external ref or version (all must match) and/or exact codes from search_reference. If complete is false, call again with nextCursor.",
  input: z.object({
    text: text("Case, accents and punctuation ignored"),
    materialId: code("ti64, pa12"),
    processId: code("sls, lpbf"),
    standardId: code('"ASTM F3001"'),
    criticalityId: code("crit-fsc"),
    categoryId: code("cat-brackets"),
    view: PartView.optional().describe("IP_OWNER: yours; CONSUMER: others' published; default both"),
    limit: z.number().int().min(1).max(MAX_LIMIT).optional().describe(`Default ${DEFAULT_LIMIT}`),
    cursor: z.string().max(MAX_CURSOR_LENGTH).optional().describe("From nextCursor"),
  }),
  output: z.object({
    items: z.array(PartSummary),
    scanned: z.number().int().describe("Parts examined"),
    complete: z.boolean(),
    nextCursor: z.string().optional(),
    hint: z.string().optional().describe("Codes the text names, to filter by"),
  }),
  annotations: READ,
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
    'Find the codes other tools take: processes, materials, standards, criticalities or categories by code, name or fragment ("PA12", "ASTM F3001-14", "AMS4928"), best match first; without text, all known.',
  input: z.object({
    kind: z.enum(["process", "material", "standard", "criticality", "category"]).describe("Kind of record"),
    text: text("Code, name or fragment"),
  }),
  output: z.object({
    items: z.array(ReferenceRecord).describe("Full records"),
    complete: z
      .boolean()
      .describe("False while parts remain unread: kinds other than standard are learnt from parts"),
  }),
  annotations: READ,
  notFound: CODES_HINT,
  handler: ({ kind, text }, { search, call, progress }) => search.searchReference(kind, text, call, progress),
});
