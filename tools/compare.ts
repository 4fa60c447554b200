// compare_parts: two to five parts side by side, field by field; the work is in src/compare/.
import { z } from "zod";
import { type Comparison, compareParts as compare } from "../src/compare/compare";
import { defineTool, READ } from "./define";
import { urlSafe } from "./params";

export const compareParts = defineTool({
  name: "compare_parts",
  title: "Compare parts",
  group: "parts",
  description:
    "Compare 2-5 parts (e.g. versions) field by field: same, different or unknown (one lacks it); standards, criticalities, categories: common and by part.",
  input: z.object({
    ids: z
      .array(
        urlSafe(z.string().trim()).refine((id) => id.length >= 1 && id.length <= 200, {
          message: "an id is 1 to 200 characters",
        }),
      )
      .min(2)
      .max(5)
      .refine((ids) => new Set(ids).size === ids.length, { message: "each part once" })
      .describe("Part ids"),
  }),
  // Declared loosely (standards, criticalities and categories too: objects are open): every byte
  // here is in every prompt, and the text carries it all (src/compare/compare.ts).
  output: z.object({
    parts: z.array(z.unknown()),
    fields: z.array(z.unknown()),
  }),
  annotations: READ,
  notFound: "Find part ids with search_parts or resolve_parts.",
  handler: ({ ids }, { api, reference, search, call }) => compare(ids, { api, reference, search, call }),
  mentions: (result) =>
    (result as Comparison).parts.map(({ id, title }) => ({ kind: "part" as const, id, title })),
});
