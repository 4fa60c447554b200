// Reading list_parts into an index on the search's behalf: several pages at once, at most a
// bounded number per call, none started when the call's deadline is too near (the time a page
// takes is measured as it goes). A failure after some progress that waiting could cure ends the
// reading quietly, so a search answers with what was read and a cursor to continue.
//
// Concurrent readers of one index wait for the same request of a page instead of making their
// own. A page too large for the client's response limit (parts with very long descriptions) is
// read again as smaller pages covering the same positions. The reading stops where the index
// does (its memory budget, an empty page that says more follow, a listing that does not end).

import type { Part } from "../api/schemas";
import { type CallOptions, type PartsApiClient, PartsApiError } from "../client";
import { PAGE_SIZE, PAGE_SPAN, type PartIndex, type StopReason } from "./part-index";
import type { ViewKey } from "./part-indexes";

/** Reports progress: parts scanned, and the listing's size once known. */
export type Progress = (done: number, total?: number, message?: string) => void;

/** What a page is assumed to take until one has been timed. */
const PAGE_LATENCY_GUESS_MS = 200;
/** Page sizes a page too large to receive is read again with, in turn; each divides PAGE_SIZE. */
const SMALLER_PAGE_SIZES = [10, 1] as const;

export interface PageReading {
  /** The index the pages go into, and the view of list_parts it holds. */
  index: PartIndex;
  view: ViewKey;
  /** Where the run of read pages to extend starts (a position in the listing). */
  from: number;
  /** Most pages this reading requests. */
  pagesPerCall: number;
  /** Pages requested at once. */
  concurrency: number;
  progress: Progress | undefined;
  /** Sees the end of the run read so far each time it grows; true stops the reading. */
  enough: (coveredTo: number) => boolean;
}

/**
 * Reads the pages missing from the run that starts at `from`: several at once, at most
 * pagesPerCall, none started when the call's deadline is too near, until `enough` says so.
 * A failure after some progress that waiting could cure (time, rate limit, server error) ends
 * the reading quietly: the index says how far it got.
 */
export async function readPages(api: PartsApiClient, call: CallOptions, reading: PageReading): Promise<void> {
  const { index, view, from, pagesPerCall, concurrency, progress, enough } = reading;
  const inFlight = new Set<Promise<void>>();
  let nextPage = Math.floor(from / PAGE_SPAN) + 1;
  let requested = 0;
  let covered = index.coveredFrom(from);
  let stop = false;
  let failure: unknown;
  let latencyMs = PAGE_LATENCY_GUESS_MS;
  const timeLeft = () => (call.deadline === undefined ? Number.POSITIVE_INFINITY : call.deadline.remaining());
  const track = (request: Promise<void>) => {
    const tracked: Promise<void> = request.finally(() => inFlight.delete(tracked));
    inFlight.add(tracked);
  };

  const launch = () => {
    while (!stop && failure === undefined && inFlight.size < concurrency && requested < pagesPerCall) {
      while (index.hasPage(nextPage)) nextPage += 1;
      if (index.isPastEnd(nextPage)) return;
      const shared = index.pageBeingRead(nextPage);
      if (shared !== undefined) {
        // Another search is reading this page into the same index: wait for it, as for our own.
        nextPage += 1;
        requested += 1;
        track(shared);
        continue;
      }
      if (timeLeft() < 2 * latencyMs + 100) return;
      const page = nextPage++;
      requested += 1;
      const startedAt = performance.now();
      const request = readPage(api, call, view, page)
        .then(({ items, hasMore, tooLarge }) => {
          latencyMs = 0.8 * latencyMs + 0.2 * (performance.now() - startedAt);
          index.addPage(page, items, hasMore, tooLarge);
        })
        .catch((error: unknown) => {
          failure ??= error;
        });
      index.readingPage(page, request);
      track(request);
    }
  };

  launch();
  while (inFlight.size > 0) {
    await Promise.race(inFlight);
    const grown = index.coveredFrom(covered);
    if (grown > covered) {
      covered = grown;
      const scanned = index.partsBefore(covered);
      progress?.(scanned, index.total, `${scanned} parts scanned`);
      if (enough(covered)) stop = true;
    }
    if (index.endsBy(covered)) stop = true;
    launch();
  }
  if (failure !== undefined && (covered === from || !isTransient(failure))) throw failure;
}

interface ReadPage {
  items: Part[];
  hasMore: boolean;
  /** Parts left out because each alone was too large to receive. */
  tooLarge: number;
}

/** One page of PAGE_SIZE parts; read as smaller pages when it is too large to receive whole. */
async function readPage(
  api: PartsApiClient,
  call: CallOptions,
  view: ViewKey,
  page: number,
): Promise<ReadPage> {
  const list = (page: number, pageSize: number) =>
    api.call("listParts", { query: { page, pageSize, ...(view !== "ALL" && { view }) } }, call);
  try {
    return { ...(await list(page, PAGE_SIZE)), tooLarge: 0 };
  } catch (error) {
    if (!isTooLarge(error)) throw error;
  }
  return readInSmallerPages(list, page, PAGE_SIZE, 0);
}

type List = (page: number, pageSize: number) => Promise<{ items: Part[]; hasMore: boolean }>;

/**
 * The positions of one page of `pageSize` read as pages of SMALLER_PAGE_SIZES[level], and so on
 * down; a part too large to receive even alone is left out, and counted.
 */
async function readInSmallerPages(
  list: List,
  page: number,
  pageSize: number,
  level: number,
): Promise<ReadPage> {
  const size = SMALLER_PAGE_SIZES[level] as number;
  const per = pageSize / size;
  const items: Part[] = [];
  let hasMore = true;
  let tooLarge = 0;
  for (let k = 1; k <= per && hasMore; k++) {
    const small = (page - 1) * per + k;
    try {
      const listed = await list(small, size);
      items.push(...listed.items.slice(0, size));
      hasMore = listed.hasMore;
    } catch (error) {
      if (!isTooLarge(error)) throw error;
      if (level + 1 < SMALLER_PAGE_SIZES.length) {
        const inner = await readInSmallerPages(list, small, size, level + 1);
        items.push(...inner.items);
        hasMore = inner.hasMore;
        tooLarge += inner.tooLarge;
      } else {
        tooLarge += 1;
      }
    }
  }
  return { items, hasMore, tooLarge };
}

const isTooLarge = (error: unknown) => error instanceof PartsApiError && error.kind === "too_large";

/** A failure that waiting may cure, after which a partial answer is better than none. */
function isTransient(error: unknown): boolean {
  if (!(error instanceof PartsApiError)) return false;
  if (error.kind === "timeout" || error.kind === "network") return true;
  return error.kind === "http" && error.status !== undefined && (error.status === 429 || error.status >= 500);
}

/** Why a search covered only the first `scanned` parts, for the model and the person it answers. */
export function stopNotice(reason: StopReason, scanned: number): string {
  const first = `Parts past the first ${scanned.toLocaleString("en-US")} of the listing were not searched:`;
  switch (reason) {
    case "budget":
      return `${first} the search index reached its memory budget (the operator can raise PARTS_MCP_SEARCH_INDEX_MB). Say that the answer covers only these parts.`;
    case "hollow":
      return `${first} the Parts API sent an empty page that said more parts follow, so the listing cannot be read past it (the server remembers this until its cache expires). Say that the answer covers only these parts.`;
    case "endless":
      return `${first} the Parts API's listing did not end there, so the search stops.`;
    case "crowded":
      return `${first} the Parts API sent a page of more than ${PAGE_SPAN} parts where ${PAGE_SIZE} were asked for, so where its next page starts cannot be told. Say that the answer covers only these parts.`;
  }
}

/** Parts the search could not read at all, each alone larger than the API client accepts. */
export function tooLargeNotice(parts: number): string {
  return `${parts === 1 ? "1 part was" : `${parts} parts were`} not searched: each alone is larger than the server accepts from the Parts API (PARTS_API_MAX_RESPONSE_BYTES); get_part cannot read it either.`;
}
