// resolve_parts: a pasted list, every line resolved in one call (../shared/spec/decisions.md, "A
// list, a comparison, a confirmation"). The catalogue is read first (./catalogue.ts), then each
// line is read apart (./line.ts) and resolved (./match.ts); the same line twice is resolved once.
// The text form (one line per input line) is written here too.
import type { PART_VIEWS } from "../api/schemas";
import type { CallOptions, PartsApiClient } from "../client";
import { shortErrorMessage } from "../mcp/messages";
import type { PartSearch, Progress } from "../search";
import { readCatalogue } from "./catalogue";
import { readLine } from "./line";
import { type FoundPart, type Resolution, resolveLine } from "./match";

type ResolvedLine = { line: string; quantity?: number } & Resolution;

export interface ResolvedList {
  items: ResolvedLine[];
  complete: boolean;
  cursor?: string;
  hint?: string;
}

export interface ResolveArgs {
  lines: string[];
  view?: (typeof PART_VIEWS)[number];
  cursor?: string;
}

interface Services {
  search: PartSearch;
  api: PartsApiClient;
  call: CallOptions;
  progress?: Progress;
}

/** Lines resolved at once: their reads by id overlap; the searches themselves take the CPU in turn. */
const CONCURRENCY = 4;

export async function resolveList(args: ResolveArgs, services: Services): Promise<ResolvedList> {
  const { search, api, call, progress } = services;
  const { view } = args;
  const reading = await readCatalogue(search, args.lines, view, args.cursor, call, progress);
  const lookup = { search, api, call, readMore: reading.complete, ...(view && { view }) };
  const byLine = new Map<string, Promise<ResolvedLine>>();
  const resolve = (line: string) => {
    let resolved = byLine.get(line);
    if (resolved === undefined) {
      const read = readLine(line);
      resolved = resolveLine(read, lookup)
        .catch((error: unknown) => unresolved(error, call))
        .then((resolution) => ({
          line,
          ...(read.quantity !== undefined && { quantity: read.quantity }),
          ...resolution,
        }));
      byLine.set(line, resolved);
    }
    return resolved;
  };
  const items: ResolvedLine[] = new Array(args.lines.length);
  let next = 0;
  const worker = async () => {
    while (next < args.lines.length) {
      const at = next++;
      items[at] = await resolve(args.lines[at] as string);
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, args.lines.length) }, worker));
  return {
    items,
    complete: reading.complete,
    ...(reading.cursor && { cursor: reading.cursor }),
    ...(reading.hint && { hint: reading.hint }),
  };
}

/** A line whose lookups failed (a part read by id timed out, say): said on the line, the others answered. */
function unresolved(error: unknown, call: CallOptions): Resolution {
  if (call.signal?.aborted) throw error;
  return { status: "none", confidence: 0, why: `Could not be looked up: ${shortErrorMessage(error)}` };
}

/** Characters of a title in the text form: a line stays within about 60 tokens. */
const TEXT_TITLE = 48;

/** The text form: a count, then one line per input line, then how to continue when incomplete. */
export function resolvedText({ items, complete, cursor, hint }: ResolvedList): string {
  const count = (status: string) => items.filter((item) => item.status === status).length;
  const head = `${items.length} lines: ${count("match")} match, ${count("ambiguous")} ambiguous, ${count("none")} none.`;
  const lines = items.map((item, i) => `${i + 1}. ${lineText(item)}`);
  const tail = complete
    ? []
    : [
        cursor
          ? `Not every part has been read yet: call again with the same lines and cursor "${cursor}".`
          : `Not every part could be read${hint ? `: ${hint}` : "."}`,
      ];
  return [head, ...lines, ...tail].join("\n");
}

function lineText(item: ResolvedLine): string {
  const quantity = item.quantity === undefined ? "" : `${item.quantity}× `;
  if (item.status === "match" && item.part) {
    const why = item.why ? ` (${item.why})` : "";
    return `${quantity}match by ${item.matchedBy} (${item.confidence}): ${partText(item.part)}${why}`;
  }
  if (item.status === "ambiguous") {
    const first = item.alternatives?.[0]?.title;
    const alternatives = (item.alternatives ?? [])
      .map((part, i) => partText(part, i > 0 && part.title === first))
      .join(" | ");
    return `${quantity}ambiguous: ${alternatives}. ${item.why ?? ""}`.trimEnd();
  }
  return `${quantity}none: ${item.why ?? "no part matches."}`;
}

/** `prt_… ACME-BRK-10023 Rev B "Engine mount bracket, machined"`; the title left out when `short` (said before). */
function partText(part: FoundPart, short = false): string {
  const version = part.versionName ? ` ${part.versionName}` : "";
  const title = part.title.length > TEXT_TITLE ? `${part.title.slice(0, TEXT_TITLE - 1)}…` : part.title;
  return `${part.id} ${part.serialId}${version}${short ? "" : ` "${title}"`}`;
}
