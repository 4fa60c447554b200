// What the parts of the search share within one process: the API client, the reference cache,
// what each token was shown, the per-token indexes and how pages are read into them. PartSearch
// (./service.ts) makes one; parts search, reference search, known records and did-you-mean use it.
import type { CallOptions, PartsApiClient } from "../client";
import type { ReferenceData } from "../data/reference";
import type { SeenRecords } from "../data/seen";
import { type Progress, readPages } from "./page-reader";
import type { Held, PartIndexes, ViewKey } from "./part-indexes";

export interface SearchSettings {
  /** How long an index is kept after it was started (the reference cache's TTL); 0 keeps none. */
  ttlMs: number;
  /** Memory for the indexes of all tokens together, in bytes. */
  maxBytes: number;
  /** Most list_parts pages (of 50 parts) that one call reads. */
  pagesPerCall: number;
  /** Pages requested at once. */
  concurrency: number;
}

export class SearchContext {
  readonly api: PartsApiClient;
  readonly reference: ReferenceData;
  readonly seen: SeenRecords;
  readonly indexes: PartIndexes;
  readonly settings: SearchSettings;
  readonly #defaultToken: string;

  constructor(
    api: PartsApiClient,
    reference: ReferenceData,
    seen: SeenRecords,
    indexes: PartIndexes,
    settings: SearchSettings,
    defaultToken: string,
  ) {
    this.api = api;
    this.reference = reference;
    this.seen = seen;
    this.indexes = indexes;
    this.settings = settings;
    this.#defaultToken = defaultToken;
  }

  tokenHash(call: CallOptions): string {
    return this.indexes.tokenHash(call.token ?? this.#defaultToken);
  }

  /** Reads pages into a held index (./page-reader.ts), putting it back in the cache as it grows. */
  async read(
    held: Held,
    tokenHash: string,
    view: ViewKey,
    from: number,
    call: CallOptions,
    progress: Progress | undefined,
    enough: (coveredTo: number) => boolean,
    pagesPerCall = this.settings.pagesPerCall,
  ): Promise<void> {
    await this.indexes.reading(tokenHash, view, held, () =>
      readPages(this.api, call, {
        index: held.index,
        view,
        from,
        pagesPerCall,
        concurrency: this.settings.concurrency,
        progress,
        enough,
      }),
    );
  }
}
