// compare_parts: two to five parts side by side, field by field; the work is in src/compare/.
import { z } from "zod";
import { compareParts as compare } from "../src/compare/compare";
import { defineTool, READ } from "./define";
import { partId } from "./params";

const Shared = z.object({ common: z.array(z.string()), byPart: z.record(z.string(), z.array(z.string())) });
const Value = z.union([z.string(), z.number(), z.boolean(), z.array(z.string()), z.null()]);

export const compareParts = defineTool({
  name: "compare_parts",
  title: "Compare parts",
  group: "parts",
  description:
    "Compare 2-5 parts (e.g. two versions) field by field: same, different or unknown (a part lacks it); codes named; standards, criticalities, categories as common and by part.",
  input: z.object({
    ids: z
      .array(partId)
      .min(2)
      .max(5)
      .refine((ids) => new Set(ids).size === ids.length, { message: "each part once" })
      .describe("2-5 part ids"),
  }),
  output: z.object({
    parts: z.array(z.object({ id: z.string(), title: z.string(), versionName: z.string().optional() })),
    fields: z.array(
      z.object({
        field: z.string(),
        status: z.enum(["same", "different", "unknown"]),
        values: z.array(Value),
      }),
    ),
    standards: Shared,
    criticalities: Shared,
    categories: Shared,
  }),
  annotations: READ,
  notFound: "Find part ids with search_parts or resolve_parts.",
  handler: ({ ids }, { api, reference, search, call }) => compare(ids, { api, reference, search, call }),
  mentions: ({ parts }) => parts.map(({ id, title }) => ({ kind: "part", id, title })),
});
