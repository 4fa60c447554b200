// Every tool, in the order tools/list shows them.
import { compareParts } from "./compare";
import type { ToolDefinition } from "./define";
import { getFactory } from "./factories";
import { createPart, describePart, getPart, importPartFile, listParts } from "./parts";
import { previewPart } from "./preview";
import {
  batchGetCategories,
  batchGetCriticalities,
  batchGetStandards,
  getCriticality,
  getMaterial,
  getProcess,
  getStandard,
  listStandards,
} from "./reference";
import { resolveParts } from "./resolve";
import { getRfq } from "./rfqs";
import { searchParts, searchReference } from "./search";

export const tools = [
  searchParts,
  resolveParts,
  describePart,
  compareParts,
  getPart,
  listParts,
  previewPart,
  createPart,
  importPartFile,
  getRfq,
  getFactory,
  searchReference,
  getProcess,
  getMaterial,
  listStandards,
  getStandard,
  batchGetStandards,
  getCriticality,
  batchGetCriticalities,
  batchGetCategories,
] as unknown as readonly ToolDefinition[];
