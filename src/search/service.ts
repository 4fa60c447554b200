// Search on the model's behalf: the API has no search and no lists of processes, materials,
// criticalities or categories. One PartSearch per process, beside the reference cache, holds the
// per-token indexes and hands each question to its part: parts (./part-search.ts), reference
// records (./reference-search.ts), did-you-mean and reads by code (./did-you-mean.ts), and the
// records a token knows (./known-records.ts).

import type { KnownKind, ReferenceKind } from "../api/kinds";
import type { CallOptions, PartsApiClient } from "../client";
import type { ReferenceData } from "../data/reference";
import { SeenRecords } from "../data/seen";
import { SearchContext, type SearchSettings } from "./context";
import { Suggestions } from "./did-you-mean";
import { KnownRecords } from "./known-records";
import type { Progress } from "./page-reader";
import { PartIndexes, type ViewKey } from "./part-indexes";
import { type CatalogueReading, PartFinder, type PartSearchResult } from "./part-search";
import type { PartSearchArgs } from "./query";
import { type ReferenceSearchResult, searchReference } from "./reference-search";

export interface PartSearchOptions extends SearchSettings {
  /** What the token has been shown (the server loop records it); part and code candidates come from it too. */
  seen: SeenRecords;
}

const MiB = 1024 * 1024;

/**
 * Defaults, measured on the embedded API (test/search/measure.ts). An index holds about 43 MiB
 * per 100,000 parts, so 128 MiB keeps one token's 100,000-part catalogue in all three views
 * (about 160,000 parts, 69 MiB) with room for other tokens. 500 pages (25,000 parts) a call read the
 * 81,000 parts the demo token sees in 4 calls of 2 to 3 s (1,627 requests), well inside the 30 s
 * deadline, and the sample data (4 pages) in one. 8 pages at once: locally 4 were as fast (about
 * 450 pages/s, the CPU is the limit), but against a remote API each page waits on the network.
 */
export const SEARCH_DEFAULTS = { maxBytes: 128 * MiB, pagesPerCall: 500, concurrency: 8 } as const;

export class PartSearch {
  readonly #context: SearchContext;
  readonly #known: KnownRecords;
  readonly #suggestions: Suggestions;
  readonly #finder: PartFinder;

  constructor(
    api: PartsApiClient,
    reference: ReferenceData,
    defaultToken: string,
    options: Pick<PartSearchOptions, "ttlMs"> & Partial<PartSearchOptions>,
  ) {
    const { seen, ...given } = { ...SEARCH_DEFAULTS, ...options };
    const settings: SearchSettings = {
      ttlMs: Math.max(0, given.ttlMs),
      maxBytes: Math.max(1, Math.floor(given.maxBytes)),
      pagesPerCall: Math.max(1, Math.floor(given.pagesPerCall)),
      concurrency: Math.max(1, Math.floor(given.concurrency)),
    };
    const indexes = new PartIndexes(settings.ttlMs, settings.maxBytes);
    this.#context = new SearchContext(
      api,
      reference,
      seen ?? new SeenRecords(defaultToken),
      indexes,
      settings,
      defaultToken,
    );
    this.#known = new KnownRecords(this.#context);
    this.#suggestions = new Suggestions(this.#context, this.#known);
    this.#finder = new PartFinder(this.#context, this.#known, (kind, code, call) =>
      this.suggest(kind, code, call),
    );
  }

  /** Bytes held by the indexes of all tokens. */
  get bytes(): number {
    return this.#context.indexes.bytes;
  }

  /** Parts held by the indexes of all tokens. */
  get parts(): number {
    return this.#context.indexes.parts;
  }

  /** Drops what this token's indexes hold (after it created a part, say). */
  forget(call: CallOptions): void {
    this.#context.indexes.forget(this.#context.tokenHash(call));
  }

  searchParts(args: PartSearchArgs, call: CallOptions, progress?: Progress): Promise<PartSearchResult> {
    return this.#finder.search(args, call, progress);
  }

  /** Reads the token's catalogue, a call's worth of pages at a time (search_parts' index and limits). */
  readCatalogue(
    view: ViewKey,
    cursor: string | undefined,
    call: CallOptions,
    progress?: Progress,
  ): Promise<CatalogueReading> {
    return this.#finder.readCatalogue(view, cursor, call, progress);
  }

  searchReference(
    kind: ReferenceKind | undefined,
    text: string | undefined,
    call: CallOptions,
    progress?: Progress,
  ): Promise<ReferenceSearchResult> {
    return searchReference(this.#known, kind, text, call, progress);
  }

  /**
   * A hint for a code or id the API does not know, naming the closest known records:
   * `did you mean pa12 (Polyamide 12 (PA12))?`; undefined when nothing is close. Never fails.
   */
  suggest(kind: KnownKind, unknown: string, call: CallOptions): Promise<string | undefined> {
    return this.#suggestions.suggest(kind, unknown, call);
  }

  /** Did-you-mean hints for the unknown codes of one call (a draft's), bounded in number. */
  suggestMany(
    entries: readonly { kind: KnownKind; id: string }[],
    call: CallOptions,
  ): Promise<(string | undefined)[]> {
    return this.#suggestions.suggestMany(entries, call);
  }

  /** The code an unknown one stands for when exactly one known record has it once folded. */
  readAs(kind: ReferenceKind, unknown: string, call: CallOptions): Promise<string | undefined> {
    return this.#suggestions.readAs(kind, unknown, call);
  }

  /** The codes of a kind this token knows without a request (for completion). */
  knownCodes(kind: Exclude<ReferenceKind, "standard">, call: CallOptions): Promise<string[]> {
    return this.#known.knownCodes(kind, call);
  }
}
