// resolve_parts: a pasted list of parts (a bill of materials, an email, a spreadsheet column)
// resolved in one call; the work is in src/resolve/.
import { z } from "zod";
import { PartView } from "../src/api/schemas";
import { MAX_RESOLVE_CURSOR } from "../src/resolve/catalogue";
import { type ResolvedList, resolvedText, resolveList } from "../src/resolve/list";
import { defineTool, READ } from "./define";
import { urlSafe } from "./params";

const MAX_LINES = 200;
const MAX_LINE_CHARS = 300;

export const resolveParts = defineTool({
  name: "resolve_parts",
  title: "Resolve part list",
  group: "parts",
  description:
    'Match pasted lines (BOM, email: "2x bracket Rev B", serial ids, refs) to parts in one call: each gets match, ambiguous or none, and its quantity.',
  input: z.object({
    lines: z
      .array(
        urlSafe(z.string()).refine((line) => line.length <= MAX_LINE_CHARS, {
          message: `a line is at most ${MAX_LINE_CHARS} characters`,
        }),
      )
      .min(1)
      .max(MAX_LINES)
      .describe("One part a line"),
    view: PartView.optional().describe("Default both"),
    cursor: z
      .string()
      .refine((cursor) => cursor.length <= MAX_RESOLVE_CURSOR, { message: "not a cursor this tool made" })
      .optional()
      .describe("From cursor, same lines"),
  }),
  // Declared loosely (cursor and hint too: objects are open): every byte here is in every prompt,
  // and the text form carries it all (src/resolve/list.ts).
  output: z.object({ items: z.array(z.unknown()), complete: z.boolean() }),
  annotations: READ,
  notFound: "Find parts with search_parts.",
  handler: (args, { search, api, call, progress }) =>
    resolveList(args, { search, api, call, ...(progress && { progress }) }),
  text: (result) => resolvedText(result as ResolvedList),
  mentions: (result) =>
    (result as ResolvedList).items.flatMap(({ part }) =>
      part ? [{ kind: "part" as const, id: part.id, title: part.title }] : [],
    ),
});
