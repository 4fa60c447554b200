// The indexes of every token (./part-index.ts), one per view of list_parts, all within one byte
// budget that holds while pages are read, not only after: an index being read counts, grows only
// while the budget has room (the least recently used idle index goes first), and otherwise stops
// where it is. Each idle index lives for the reference cache's TTL from when it was started and is
// released then. They are keyed by a digest of the token, never the token, and never shared
// between tokens. An index that learnt nothing (a search with a token the API refused) is never
// kept. Losing one costs requests, never a wrong answer: a search holds on to the index it works
// with, and a cursor carries its position.

import { createHash } from "node:crypto";
import { LRUCache } from "lru-cache";
import type { PART_VIEWS } from "../api/schemas";
import { PartIndex } from "./part-index";

type PartView = (typeof PART_VIEWS)[number];
export type ViewKey = PartView | "ALL";
export const VIEW_KEYS: readonly ViewKey[] = ["ALL", "IP_OWNER", "CONSUMER"];

export interface Held {
  index: PartIndex;
  startedAt: number;
  /** Which index this is, in the order they were made. */
  serial: number;
  /** Searches reading pages into it now. */
  readers: number;
  /** Bytes of it counted in the budget while it is being read. */
  counted: number;
}

/** Tokens whose forget time is remembered before the map starts again. */
const MAX_TOKENS = 10_000;

export class PartIndexes {
  readonly #ttlMs: number;
  readonly #maxBytes: number;
  /** Idle indexes, each counted at its size. */
  readonly #cache: LRUCache<string, Held> | undefined;
  /** Indexes being read, by key: a search that starts meanwhile reads into the same one. */
  readonly #reading = new Map<string, Held>();
  /**
   * Indexes made and not read into yet, so that searches starting together (while one still checks
   * its filters) get the same one. Held weakly: one that no search reads into leaves nothing.
   */
  readonly #fresh = new Map<string, WeakRef<Held>>();
  readonly #freshGone = new FinalizationRegistry<string>((key) => {
    if (this.#fresh.get(key)?.deref() === undefined) this.#fresh.delete(key);
  });
  /** Bytes of the indexes being read (registered or not). */
  #readingBytes = 0;
  #lastToken: string | undefined;
  #lastHash = "";
  #made = 0;
  /** The last index made when each token's were dropped: one made before then is never kept. */
  readonly #forgotten = new Map<string, number>();

  /** `ttlMs` 0 keeps no index once its searches are done. */
  constructor(ttlMs: number, maxBytes: number) {
    this.#ttlMs = ttlMs;
    this.#maxBytes = maxBytes;
    this.#cache =
      ttlMs > 0
        ? new LRUCache<string, Held>({
            maxSize: maxBytes,
            sizeCalculation: (held) => Math.max(1, held.index.bytes),
            ttl: ttlMs,
            // Released when its time is up, not when next touched: per-user tokens come and go.
            ttlAutopurge: true,
          })
        : undefined;
  }

  /** Bytes held by the indexes of all tokens, those being read included. */
  get bytes(): number {
    return (this.#cache?.calculatedSize ?? 0) + this.#readingBytes;
  }

  /** Parts held by the idle indexes of all tokens. */
  get parts(): number {
    let parts = 0;
    for (const held of this.#cache?.values() ?? []) parts += held.index.partCount;
    return parts;
  }

  /** The index of a token's view: the one being read, the one kept, or a new one (kept only once it has learnt something). */
  held(tokenHash: string, view: ViewKey): Held {
    const key = `${tokenHash}/${view}`;
    const known = this.#reading.get(key) ?? this.#cache?.get(key) ?? this.#fresh.get(key)?.deref();
    if (known !== undefined) return known;
    const made = this.#make();
    this.#fresh.set(key, new WeakRef(made));
    this.#freshGone.register(made, key);
    return made;
  }

  /** The index of a token's view if there is one, without making it more recently used. */
  peek(tokenHash: string, view: ViewKey): Held | undefined {
    const key = `${tokenHash}/${view}`;
    return this.#reading.get(key) ?? this.#cache?.peek(key);
  }

  /**
   * Runs `read`, which adds pages to `held`'s index: meanwhile the index is counted in the budget
   * and shared with searches that start, and afterwards kept if it learnt anything.
   */
  async reading<T>(tokenHash: string, view: ViewKey, held: Held, read: () => Promise<T>): Promise<T> {
    const key = `${tokenHash}/${view}`;
    if (held.readers === 0) {
      if (this.#cache?.peek(key) === held) this.#cache.delete(key);
      held.counted = held.index.bytes;
      this.#readingBytes += held.counted;
      if (this.#fresh.get(key)?.deref() === held) this.#fresh.delete(key);
      if (!this.#reading.has(key) && !this.#isForgotten(tokenHash, held)) this.#reading.set(key, held);
    }
    held.readers += 1;
    try {
      return await read();
    } finally {
      held.readers -= 1;
      if (held.readers === 0) {
        this.#readingBytes -= held.counted;
        held.counted = 0;
        if (this.#reading.get(key) === held) this.#reading.delete(key);
        this.#keep(key, tokenHash, held);
      }
    }
  }

  /** Drops every view's index of a token, and any that a search still reading would put back. */
  forget(tokenHash: string): void {
    for (const view of VIEW_KEYS) {
      this.#cache?.delete(`${tokenHash}/${view}`);
      this.#reading.delete(`${tokenHash}/${view}`);
      this.#fresh.delete(`${tokenHash}/${view}`);
    }
    if (this.#forgotten.size > MAX_TOKENS) this.#forgotten.clear();
    this.#forgotten.set(tokenHash, this.#made);
  }

  /**
   * The digest a token's indexes and cursors are keyed by. Only the last token's is remembered
   * (a call asks several times; stdio has one token): a request with a token the API refuses
   * leaves no entry behind.
   */
  tokenHash(token: string): string {
    if (token !== this.#lastToken) {
      this.#lastHash = createHash("sha256").update(token).digest("base64url");
      this.#lastToken = token;
    }
    return this.#lastHash;
  }

  #make(): Held {
    const held = { startedAt: Date.now(), serial: ++this.#made, readers: 0, counted: 0 } as Held;
    held.index = new PartIndex({
      claim: (bytes) => this.#claim(held, bytes),
      settle: (bytes) => this.#count(held, bytes),
    });
    return held;
  }

  /** Room for an index being read to grow by `bytes`, evicting idle indexes, least recently used first. */
  #claim(held: Held, bytes: number): boolean {
    while (this.bytes + bytes > this.#maxBytes) {
      if (this.#cache === undefined || this.#cache.pop() === undefined) return false;
    }
    this.#count(held, bytes);
    return true;
  }

  #count(held: Held, bytes: number): void {
    if (held.readers === 0) return; // an index grows only while read; nothing to count otherwise
    held.counted += bytes;
    this.#readingBytes += bytes;
  }

  #isForgotten(tokenHash: string, held: Held): boolean {
    return held.serial <= (this.#forgotten.get(tokenHash) ?? 0);
  }

  /** Puts an index that was read back among the idle ones, unless it learnt nothing, was dropped or has expired. */
  #keep(key: string, tokenHash: string, held: Held): void {
    const cache = this.#cache;
    if (!cache || !held.index.learned || this.#isForgotten(tokenHash, held)) return;
    const current = cache.peek(key);
    if (current !== undefined && current.serial > held.serial) return;
    const ttl = this.#ttlMs - (Date.now() - held.startedAt);
    if (ttl > 0) cache.set(key, held, { ttl });
  }
}
