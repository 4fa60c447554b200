import { z } from "zod";
import type { ReferenceKind } from "../src/api/kinds";
import { Category, Criticality, Material, MaterialType, Process, Standard } from "../src/api/schemas";
import type { CallOptions } from "../src/client";
import { compact, type PartSearch, SearchRefusal } from "../src/search";
import { defineTool, READ } from "./define";
import {
  batchOf,
  categoryId,
  criticalityId,
  materialCode,
  processCode,
  standardCode,
  urlSafe,
} from "./params";

const STANDARDS_HINT = "Find standard codes with search_reference (kind standard).";

/** Said beside a record read by another code than the one given. */
const readAs = z.string().optional().describe("The code read, when the one given was not exact");

/**
 * Reads a record by code. When the API does not know the code but exactly one known record has it
 * once case, spacing, punctuation, a governing body and an edition year are folded ("PA12" is
 * pa12), that record is returned, with `readAs`; otherwise the 404 stands (did-you-mean follows).
 */
async function byCode<T extends object>(
  kind: ReferenceKind,
  code: string,
  { search, call }: { search: PartSearch; call: CallOptions },
  read: (code: string) => Promise<T>,
): Promise<T & { readAs?: string }> {
  try {
    return await read(code);
  } catch (error) {
    if ((error as { status?: number }).status !== 404) throw error;
    const same = await search.readAs(kind, code, call);
    if (same === undefined || same === code) throw error;
    return { ...(await read(same)), readAs: same };
  }
}
/** The governing bodies of the sample data; a real API may have more, and says so by its answers. */
const GOVERNING_BODIES = "ASTM, ISO, SAE, DIN, MIL";

export const getProcess = defineTool({
  name: "get_process",
  title: "Get process",
  group: "reference",
  description: "Get a manufacturing process by its code (e.g. sls, lpbf, cnc-milling).",
  input: z.object({ code: processCode }),
  output: Process.extend({ readAs }),
  annotations: READ,
  notFound: "Find process codes with search_reference (kind process).",
  lookups: [{ kind: "process", argument: "code" }],
  handler: ({ code }, context) =>
    byCode("process", code, context, (c) => context.reference.process(c, context.call)),
  mentions: ({ code }) => [{ kind: "process", id: code }],
});

export const getMaterial = defineTool({
  name: "get_material",
  title: "Get material",
  group: "reference",
  description: "Get a material by its code (e.g. ti64 for Ti-6Al-4V, pa12).",
  input: z.object({ code: materialCode }),
  output: Material.extend({ readAs }),
  annotations: READ,
  notFound: "Find material codes with search_reference (kind material).",
  lookups: [{ kind: "material", argument: "code" }],
  handler: ({ code }, context) =>
    byCode("material", code, context, (c) => context.reference.material(c, context.call)),
  mentions: ({ code }) => [{ kind: "material", id: code }],
});

export const listStandards = defineTool({
  name: "list_standards",
  title: "List standards",
  group: "reference",
  description:
    "List standards, optionally by governing body or material type. To find one by code or name, use search_reference.",
  input: z.object({
    governingBody: urlSafe(z.string().min(1).max(100))
      .optional()
      .describe(`One of ${GOVERNING_BODIES} (AMS standards are SAE's)`),
    materialType: MaterialType.optional().describe("Material type the standard applies to"),
  }),
  output: z.object({ items: z.array(Standard) }),
  annotations: READ,
  notFound: STANDARDS_HINT,
  handler: async (filter, { reference, call }) => {
    const items = await reference.standards(filter, call);
    const body = filter.governingBody;
    if (items.length > 0 || body === undefined) return { items };
    // Nothing for this body: a spelling of a known one ("astm") is read as it; an unknown one is
    // refused with the valid values, which the API gives no other way of learning.
    const bodies = [
      ...new Set((await reference.standards({}, call)).flatMap((s) => s.governingBody ?? [])),
    ].sort();
    if (bodies.includes(body)) return { items };
    const same = bodies.find((known) => compact(known) === compact(body));
    if (same !== undefined)
      return { items: await reference.standards({ ...filter, governingBody: same }, call) };
    throw new SearchRefusal(
      `No standard has governingBody ${JSON.stringify(body)}. The governing bodies are ${bodies.join(", ")}. To find a standard by code (e.g. "SAE AMS 4928"), use search_reference.`,
    );
  },
});

export const getStandard = defineTool({
  name: "get_standard",
  title: "Get standard",
  group: "reference",
  description: 'Get one standard by its exact code (e.g. "ASTM F3001", "AMS 4928").',
  input: z.object({ code: standardCode }),
  output: Standard.extend({ readAs }),
  annotations: READ,
  notFound: STANDARDS_HINT,
  lookups: [{ kind: "standard", argument: "code" }],
  handler: ({ code }, context) =>
    byCode("standard", code, context, (c) => context.reference.standard(c, context.call)),
  mentions: ({ code }) => [{ kind: "standard", id: code }],
});

export const batchGetStandards = defineTool({
  name: "batch_get_standards",
  title: "Get several standards",
  group: "reference",
  description: "Get several standards by code in one call. Unknown codes are listed in missing.",
  input: z.object({ codes: batchOf(standardCode, "Standard codes") }),
  output: z.object({ items: z.array(Standard), missing: z.array(z.string()) }),
  annotations: READ,
  notFound: STANDARDS_HINT,
  handler: ({ codes }, { reference, call }) => reference.batch("standard", codes, call),
  mentions: ({ items }) => items.map(({ code }) => ({ kind: "standard", id: code })),
});

export const getCriticality = defineTool({
  name: "get_criticality",
  title: "Get criticality",
  group: "reference",
  description: "Get a criticality (a part's criticality class and its governing body) by id.",
  input: z.object({ id: criticalityId }),
  output: Criticality.extend({ readAs }),
  annotations: READ,
  notFound: "Find criticality ids with search_reference (kind criticality).",
  lookups: [{ kind: "criticality", argument: "id" }],
  handler: ({ id }, context) =>
    byCode("criticality", id, context, (c) => context.reference.criticality(c, context.call)),
  mentions: ({ id }) => [{ kind: "criticality", id }],
});

export const batchGetCriticalities = defineTool({
  name: "batch_get_criticalities",
  title: "Get several criticalities",
  group: "reference",
  description: "Get several criticalities by id in one call. Unknown ids are listed in missing.",
  input: z.object({ ids: batchOf(criticalityId, "Criticality ids") }),
  output: z.object({ items: z.array(Criticality), missing: z.array(z.string()) }),
  annotations: READ,
  notFound: "Find criticality ids with search_reference (kind criticality).",
  handler: ({ ids }, { reference, call }) => reference.batch("criticality", ids, call),
  mentions: ({ items }) => items.map(({ id }) => ({ kind: "criticality", id })),
});

export const batchGetCategories = defineTool({
  name: "batch_get_categories",
  title: "Get several categories",
  group: "reference",
  description: "Get categories by id in one call, each with its parentId. Unknown ids are listed in missing.",
  input: z.object({ ids: batchOf(categoryId, "Category ids") }),
  output: z.object({ items: z.array(Category), missing: z.array(z.string()) }),
  annotations: READ,
  notFound: "Find category ids with search_reference (kind category).",
  handler: ({ ids }, { reference, call }) => reference.batch("category", ids, call),
  mentions: ({ items }) => items.map(({ id }) => ({ kind: "category", id })),
});
