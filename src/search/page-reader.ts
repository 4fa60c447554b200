// Reading list_parts into an index on the search's behalf: several pages at once, at most a
// bounded number per call, none started when the call's deadline is too near (the time a page
// takes is measured as it goes). A failure after some progress that waiting could cure ends the
// reading quietly, so a search answers with what was read and a cursor to continue.
import { type CallOptions, type PartsApiClient, PartsApiError } from "../client";
import { PAGE_SIZE, type PartIndex } from "./part-index";
import type { ViewKey } from "./part-indexes";

/** Reports progress: parts scanned, and the listing's size once known. */
export type Progress = (done: number, total?: number, message?: string) => void;

/** What a page is assumed to take until one has been timed. */
const PAGE_LATENCY_GUESS_MS = 200;

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
  /** Told each time the run read so far grows, before progress and `enough`. */
  onGrowth: () => void;
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
  const { index, view, from, pagesPerCall, concurrency, onGrowth, progress, enough } = reading;
  const inFlight = new Set<Promise<void>>();
  let nextPage = Math.floor(from / PAGE_SIZE) + 1;
  let requested = 0;
  let covered = index.coveredFrom(from);
  let stop = false;
  let failure: unknown;
  let latencyMs = PAGE_LATENCY_GUESS_MS;
  const timeLeft = () => (call.deadline === undefined ? Number.POSITIVE_INFINITY : call.deadline.remaining());

  const launch = () => {
    while (!stop && failure === undefined && inFlight.size < concurrency && requested < pagesPerCall) {
      while (index.hasPage(nextPage)) nextPage += 1;
      if (index.isPastEnd(nextPage) || timeLeft() < 2 * latencyMs + 100) return;
      const page = nextPage++;
      requested += 1;
      const startedAt = performance.now();
      const query = { page, pageSize: PAGE_SIZE, ...(view !== "ALL" && { view }) };
      const request: Promise<void> = api
        .call("listParts", { query }, call)
        .then(({ items, hasMore }) => {
          latencyMs = 0.8 * latencyMs + 0.2 * (performance.now() - startedAt);
          index.addPage(page, items, hasMore);
        })
        .catch((error: unknown) => {
          failure ??= error;
        })
        .finally(() => inFlight.delete(request));
      inFlight.add(request);
    }
  };

  launch();
  while (inFlight.size > 0) {
    await Promise.race(inFlight);
    const grown = index.coveredFrom(covered);
    if (grown > covered) {
      covered = grown;
      onGrowth();
      progress?.(covered, index.total, `${covered} parts scanned`);
      if (enough(covered)) stop = true;
    }
    launch();
  }
  if (failure !== undefined && (covered === from || !isTransient(failure))) throw failure;
}

/** A failure that waiting may cure, after which a partial answer is better than none. */
function isTransient(error: unknown): boolean {
  if (!(error instanceof PartsApiError)) return false;
  if (error.kind === "timeout" || error.kind === "network") return true;
  return error.kind === "http" && error.status !== undefined && (error.status === 429 || error.status >= 500);
}
