// Every tool, in the order tools/list shows them.
import type { ToolDefinition } from "./define";
import { getFactory } from "./factories";
import { createPart, describePart, getPart, importPartFile, listParts } from "./parts";
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
import { getRfq } from "./rfqs";

export const tools = [
  describePart,
  getPart,
  listParts,
  createPart,
  importPartFile,
  getRfq,
  getFactory,
  getProcess,
  getMaterial,
  listStandards,
  getStandard,
  batchGetStandards,
  getCriticality,
  batchGetCriticalities,
  batchGetCategories,
] as unknown as readonly ToolDefinition[];

export { TOOL_GROUPS, type ToolGroup } from "./define";
