import { z } from "zod";
import { Category, Criticality, Material, MaterialType, Process, Standard } from "../src/api/schemas";
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

const STANDARDS_HINT = "Use list_standards to see valid standard codes.";

export const getProcess = defineTool({
  name: "get_process",
  title: "Get process",
  group: "reference",
  description: "Get a manufacturing process (e.g. CNC milling, laser powder bed fusion) by its code.",
  input: z.object({ code: processCode }),
  output: Process,
  annotations: READ,
  notFound: "Process codes appear as processId on parts (get_part, list_parts).",
  handler: ({ code }, { reference, call }) => reference.process(code, call),
});

export const getMaterial = defineTool({
  name: "get_material",
  title: "Get material",
  group: "reference",
  description: "Get a material (e.g. Ti-6Al-4V, PA12) by its code.",
  input: z.object({ code: materialCode }),
  output: Material,
  annotations: READ,
  notFound: "Material codes appear as materialId on parts (get_part, list_parts).",
  handler: ({ code }, { reference, call }) => reference.material(code, call),
});

export const listStandards = defineTool({
  name: "list_standards",
  title: "List standards",
  group: "reference",
  description:
    "List standards (ASTM, ISO, SAE AMS, DIN, MIL, ...), optionally filtered by governing body or material type.",
  input: z.object({
    governingBody: urlSafe(z.string().min(1).max(100))
      .optional()
      .describe('Governing body, e.g. "ASTM", "ISO"'),
    materialType: MaterialType.optional().describe("Material type the standard applies to"),
  }),
  output: z.object({ items: z.array(Standard) }),
  annotations: READ,
  notFound: STANDARDS_HINT,
  handler: async (filter, { reference, call }) => ({ items: await reference.standards(filter, call) }),
});

export const getStandard = defineTool({
  name: "get_standard",
  title: "Get standard",
  group: "reference",
  description: "Get one standard by its code.",
  input: z.object({ code: standardCode }),
  output: Standard,
  annotations: READ,
  notFound: STANDARDS_HINT,
  handler: ({ code }, { reference, call }) => reference.standard(code, call),
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
});

export const getCriticality = defineTool({
  name: "get_criticality",
  title: "Get criticality",
  group: "reference",
  description: "Get a criticality (a part's criticality class and its governing body) by id.",
  input: z.object({ id: criticalityId }),
  output: Criticality,
  annotations: READ,
  notFound: "Criticality ids appear as criticalityIds on parts (get_part).",
  handler: ({ id }, { reference, call }) => reference.criticality(id, call),
});

export const batchGetCriticalities = defineTool({
  name: "batch_get_criticalities",
  title: "Get several criticalities",
  group: "reference",
  description: "Get several criticalities by id in one call. Unknown ids are listed in missing.",
  input: z.object({ ids: batchOf(criticalityId, "Criticality ids") }),
  output: z.object({ items: z.array(Criticality), missing: z.array(z.string()) }),
  annotations: READ,
  notFound: "Criticality ids appear as criticalityIds on parts (get_part).",
  handler: ({ ids }, { reference, call }) => reference.batch("criticality", ids, call),
});

export const batchGetCategories = defineTool({
  name: "batch_get_categories",
  title: "Get several categories",
  group: "reference",
  description: "Get categories by id in one call, each with its parentId. Unknown ids are listed in missing.",
  input: z.object({ ids: batchOf(categoryId, "Category ids") }),
  output: z.object({ items: z.array(Category), missing: z.array(z.string()) }),
  annotations: READ,
  notFound: "Category ids appear as categoryIds on parts (get_part).",
  handler: ({ ids }, { reference, call }) => reference.batch("category", ids, call),
});
