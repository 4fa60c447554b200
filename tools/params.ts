// Parameters shared by several tools. Each description says what the value is and where a model
// finds one, because a model that guesses ids wastes a call.
import { z } from "zod";

const MAX_ID_LENGTH = 200;
const MAX_BATCH_KEYS = 200;

/** An unpaired UTF-16 surrogate: valid in a JSON string, impossible in a URL (encodeURIComponent throws). */
const UNPAIRED_SURROGATE = /\p{Cs}/u;

/** A string that can travel in a URL path or query: no unpaired surrogate. */
export const urlSafe = (schema: z.ZodString) =>
  schema.refine((value) => !UNPAIRED_SURROGATE.test(value), {
    message: "contains an unpaired UTF-16 surrogate (broken Unicode); send valid text",
  });

const identifier = (description: string) =>
  urlSafe(z.string().min(1).max(MAX_ID_LENGTH)).describe(description);

export const partId = identifier("Part id (see list_parts)");
export const rfqId = identifier("RFQ id");
export const factoryId = identifier("Factory id");
export const processCode = identifier("Process code, e.g. a part's processId");
export const materialCode = identifier("Material code, e.g. a part's materialId");
export const standardCode = identifier('Standard code, e.g. "ASTM F3001" (see list_standards)');
export const criticalityId = identifier("Criticality id, e.g. from a part's criticalityIds");
export const categoryId = identifier("Category id, e.g. from a part's categoryIds");

export const batchOf = (item: z.ZodType<string>, description: string) =>
  z.array(item).min(1).max(MAX_BATCH_KEYS).describe(description);
