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

/** Spaces around an id are never part of it (a model copying one often brings them along). */
const identifier = (description: string) =>
  urlSafe(z.string().trim().min(1).max(MAX_ID_LENGTH)).describe(description);

export const partId = identifier("Part id (see search_parts)");
export const rfqId = identifier("RFQ id");
export const factoryId = identifier("Factory id");
export const processCode = identifier("Process code, e.g. sls, cnc-milling (see search_reference)");
export const materialCode = identifier("Material code, e.g. ti64, pa12 (see search_reference)");
export const standardCode = identifier('Standard code, e.g. "ASTM F3001" (see search_reference)');
export const criticalityId = identifier("Criticality id, e.g. crit-fsc (see search_reference)");
export const categoryId = identifier("Category id, e.g. cat-brackets (see search_reference)");

export const batchOf = (item: z.ZodType<string>, description: string) =>
  z.array(item).min(1).max(MAX_BATCH_KEYS).describe(description);
