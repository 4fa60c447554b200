import { z } from "zod";
import { PAGE_SIZE_DEFAULT, PAGE_SIZE_MAX } from "../src/api/endpoints";
import { KINDS, REFERENCE_KINDS } from "../src/api/kinds";
import {
  BoundingBox,
  Category,
  CreatePartBody,
  CreatePartResult,
  Criticality,
  CustomFieldChoice,
  ImportFileResult,
  Material,
  Part,
  PartView,
  Process,
  SasUrl,
  Standard,
} from "../src/api/schemas";
import { describeImport, describeNewPart } from "../src/confirm/summary";
import { mayHaveTakenEffect, shortErrorMessage } from "../src/mcp/messages";
import { urlSecrets } from "../src/text/redact";
import { CREATE, defineTool, READ, type ResourceRef } from "./define";
import { categoryId, criticalityId, materialCode, partId, processCode, standardCode } from "./params";

/** A confirmed write's answer when the person said no (src/confirm/step.ts). */
const notWritten = <T extends z.ZodObject>(output: T) =>
  output.partial().extend({
    notWritten: z.string().optional().describe("Set when the person declined: nothing was written"),
  });

const LIST_PARTS_HINT =
  "Find part ids with search_parts (by words of the title, a serial number or external ref, or by codes).";

/**
 * Codes of one kind a draft names, at most: each is checked (and, unknown, compared with every
 * known record) by preview_part and by create_part's refusals. docs/configuration.md › Limits.
 */
const MAX_CODES_PER_LIST = 100;

/** Checked, not advertised as maxItems: the tool list's tokens are every call's cost, and no draft comes near. */
const codeList = (code: z.ZodType<string>) =>
  z
    .array(code)
    .refine((codes) => codes.length <= MAX_CODES_PER_LIST, {
      message: `at most ${MAX_CODES_PER_LIST} codes: a part names a few`,
    })
    .optional();

export const createPart = defineTool({
  name: "create_part",
  title: "Create part",
  group: "parts",
  description:
    "Create a part; only title is required. Find codes with search_reference and check the draft with preview_part first. Not idempotent: each call creates a part.",
  input: CreatePartBody.extend({
    // Spaces around a title are not part of it, and a title of spaces only is no title.
    title: z.string().trim().min(1).describe("Part title"),
    processId: processCode.optional(),
    materialId: materialCode.optional(),
    standardIds: codeList(standardCode),
    criticalityIds: codeList(criticalityId),
    categoryIds: codeList(categoryId),
    internal: z.boolean().optional().describe("Visible only inside your organisation"),
    requireSubscription: z.boolean().optional().describe("Buyers need a subscription to order it"),
    metadata: CreatePartBody.shape.metadata.describe("Free key-value pairs (string values)"),
    // Inside objects too, a key nobody takes is refused with the keys that are, not dropped: a
    // misnamed `depth` would otherwise vanish from the new part without a word.
    boundingBox: BoundingBox.strict().optional(),
    customFields: z
      .array(CustomFieldChoice.strict())
      .optional()
      .describe("Dropdown selections; ids as in your parts' customFields"),
  }),
  output: notWritten(CreatePartResult),
  annotations: CREATE,
  notFound: "A referenced record does not exist; check the ids named in the message.",
  lookups: REFERENCE_KINDS.map((kind) => ({ kind, argument: KINDS[kind].partField })),
  handler: async (body, { api, search, call }) => {
    // The new part must show in this token's next search, and so must one that a failed call may
    // have made (its error says to look with search_parts): the index is read again then.
    try {
      const created = await api.call("createPart", { body }, call);
      search.forget(call);
      return created;
    } catch (error) {
      if (mayHaveTakenEffect(error)) search.forget(call);
      throw error;
    }
  },
  confirm: describeNewPart,
  links: ({ id }) => (id === undefined ? [] : [{ kind: "part", id }]),
});

export const getPart = defineTool({
  name: "get_part",
  title: "Get part",
  group: "parts",
  description: "Get one part by id. describe_part also resolves its references to full records.",
  input: z.object({ id: partId }),
  output: Part,
  annotations: READ,
  notFound: LIST_PARTS_HINT,
  lookups: [{ kind: "part", argument: "id" }],
  handler: ({ id }, { api, call }) => api.call("getPart", { params: { id } }, call),
  links: (part) => referencesOf(part, false),
  // The records it links are remembered with the part (src/mcp/run-tool.ts records both).
  mentions: (part) => [partRef(part)],
});

export const listParts = defineTool({
  name: "list_parts",
  title: "List parts",
  group: "parts",
  description: `List full part records a page at a time (${PAGE_SIZE_DEFAULT} by default); to find parts, use search_parts. When hasMore is true, call again with page set to nextPage.`,
  input: z.object({
    page: z.number().int().min(1).optional().describe("Page number (default 1)"),
    pageSize: z
      .number()
      .int()
      .min(1)
      .max(PAGE_SIZE_MAX)
      .optional()
      .describe(`Parts per page (default ${PAGE_SIZE_DEFAULT})`),
    view: PartView.optional().describe(
      "IP_OWNER: your organisation's parts; CONSUMER: others' published parts; default: both",
    ),
  }),
  output: z.object({
    items: z.array(Part),
    hasMore: z.boolean(),
    page: z.number().int(),
    pageSize: z.number().int(),
    nextPage: z.number().int().optional().describe("Pass as page to get the next page"),
  }),
  annotations: READ,
  notFound: LIST_PARTS_HINT,
  handler: async (query, { api, call }) => {
    const { items, hasMore } = await api.call("listParts", { query }, call);
    const page = query.page ?? 1;
    const result = { items, hasMore, page, pageSize: query.pageSize ?? PAGE_SIZE_DEFAULT };
    return hasMore ? { ...result, nextPage: page + 1 } : result;
  },
  mentions: ({ items }) => items.flatMap((item) => referencesOf(item)),
});

export const importPartFile = defineTool({
  name: "import_part_file",
  title: "Import file into part",
  group: "parts",
  description:
    "Attach an externally hosted file (e.g. a CAD model) to a part, given its SAS URL. Not idempotent: each call imports the file again.",
  input: z.object({
    partId,
    name: z.string().min(1).max(255).describe('File name, e.g. "bracket.step"'),
    sasUrl: SasUrl.describe("https URL of the file with its SAS query string (kept secret)"),
  }),
  output: notWritten(ImportFileResult),
  annotations: CREATE,
  notFound: LIST_PARTS_HINT,
  // The SAS query is kept out of whatever the API sends back, in any form it might echo it.
  handler: ({ partId, name, sasUrl }, { api, call }) =>
    api.call(
      "importPartFile",
      { params: { partId }, body: { name, sasUrl } },
      { ...call, secrets: urlSecrets(sasUrl) },
    ),
  confirm: describeImport,
});

export const describePart = defineTool({
  name: "describe_part",
  title: "Describe part",
  group: "parts",
  description:
    "Get a part with its process, material, standards, criticalities and categories as full records, in one call; references that cannot be resolved are listed in unresolved.",
  input: z.object({ id: partId }),
  output: z.object({
    part: Part,
    process: Process.optional(),
    material: Material.optional(),
    standards: z.array(Standard),
    criticalities: z.array(Criticality),
    categories: z.array(Category),
    unresolved: z
      .array(z.object({ kind: z.enum(REFERENCE_KINDS), id: z.string(), reason: z.string() }))
      .optional(),
  }),
  annotations: READ,
  notFound: LIST_PARTS_HINT,
  lookups: [{ kind: "part", argument: "id" }],
  handler: async ({ id }, { api, reference, call }) => {
    const part = await api.call("getPart", { params: { id } }, call);
    const { missing, failed, ...records } = await reference.resolve(part, call);
    const unresolved = [
      ...missing.map(({ kind, id }) => ({ kind, id, reason: "not found" })),
      ...failed.map(({ kind, id, error }) => ({ kind, id, reason: shortErrorMessage(error) })),
    ];
    return { part, ...records, ...(unresolved.length > 0 && { unresolved }) };
  },
  // The result carries every referenced record in full: no links.
  mentions: ({ part }) => referencesOf(part),
});

const partRef = (part: Part): ResourceRef => ({ kind: "part", id: part.id, title: part.title });

/** The part itself (unless `withPart` is false), then every reference record it names. */
function referencesOf(part: Part, withPart = true): ResourceRef[] {
  const refs: ResourceRef[] = withPart ? [partRef(part)] : [];
  const add = (kind: ResourceRef["kind"], id: string | undefined) => {
    if (id !== undefined) refs.push({ kind, id });
  };
  for (const kind of REFERENCE_KINDS)
    for (const id of [part[KINDS[kind].partField] ?? []].flat()) add(kind, id);
  return refs;
}
