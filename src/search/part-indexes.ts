// The indexes of every token (./part-index.ts), one per view of list_parts, all within one byte
// budget: the least recently used goes first, and each lives for the reference cache's TTL from
// when it was started. They are keyed by a digest of the token, never the token, and never shared
// between tokens. Losing one costs requests, never a wrong answer: a search holds on to the index
// it works with, and a cursor carries its position.

import { LRUCache } from "lru-cache";
import type { PART_VIEWS } from "../api/schemas";
import { createHash } from "../lazy-crypto";
import { PartIndex } from "./part-index";

type PartView = (typeof PART_VIEWS)[number];
export type ViewKey = PartView | "ALL";
export const VIEW_KEYS: readonly ViewKey[] = ["ALL", "IP_OWNER", "CONSUMER"];

/** The cache holds a new wrapper each time an index grows, so that the cache measures it again. */
export interface Held {
  index: PartIndex;
  startedAt: number;
  /** Which index this is, in the order they were made. */
  serial: number;
}

/** Tokens remembered per map (digests, forget times) before it starts again. */
const MAX_TOKENS = 10_000;

export class PartIndexes {
  readonly #ttlMs: number;
  readonly #cache: LRUCache<string, Held> | undefined;
  readonly #tokenHashes = new Map<string, string>();
  #made = 0;
  /** The last index made when each token's were dropped: one made before then is never kept. */
  readonly #forgotten = new Map<string, number>();

  /** `ttlMs` 0 keeps no index: each search starts a new one. */
  constructor(ttlMs: number, maxBytes: number) {
    this.#ttlMs = ttlMs;
    this.#cache =
      ttlMs > 0
        ? new LRUCache<string, Held>({
            maxSize: maxBytes,
            sizeCalculation: (held) => Math.max(1, held.index.bytes),
            ttl: ttlMs,
          })
        : undefined;
  }

  /** Bytes held by the indexes of all tokens. */
  get bytes(): number {
    return this.#cache?.calculatedSize ?? 0;
  }

  /** Parts held by the indexes of all tokens. */
  get parts(): number {
    let parts = 0;
    for (const held of this.#cache?.values() ?? []) parts += held.index.partCount;
    return parts;
  }

  /** The index of a token's view, from the cache or new. */
  held(tokenHash: string, view: ViewKey): Held {
    const key = `${tokenHash}/${view}`;
    const cached = this.#cache?.get(key);
    if (cached) return cached;
    const held = { index: new PartIndex(), startedAt: Date.now(), serial: ++this.#made };
    this.#cache?.set(key, held);
    return held;
  }

  /** The index of a token's view if there is one, without making it more recently used. */
  peek(tokenHash: string, view: ViewKey): Held | undefined {
    return this.#cache?.peek(`${tokenHash}/${view}`);
  }

  /** Puts a grown index back, so the cache measures it again (and evicts others if need be). */
  keep(tokenHash: string, view: ViewKey, held: Held): void {
    const cache = this.#cache;
    if (!cache) return;
    const key = `${tokenHash}/${view}`;
    const current = cache.peek(key);
    if (current !== undefined && current.index !== held.index) return;
    if (held.serial <= (this.#forgotten.get(tokenHash) ?? 0)) return;
    const ttl = this.#ttlMs - (Date.now() - held.startedAt);
    if (ttl > 0) cache.set(key, { ...held }, { ttl });
  }

  /** Drops every view's index of a token, and any that a search still reading would put back. */
  forget(tokenHash: string): void {
    for (const view of VIEW_KEYS) this.#cache?.delete(`${tokenHash}/${view}`);
    if (this.#forgotten.size > MAX_TOKENS) this.#forgotten.clear();
    this.#forgotten.set(tokenHash, this.#made);
  }

  /** The digest a token's indexes and cursors are keyed by. */
  tokenHash(token: string): string {
    let hash = this.#tokenHashes.get(token);
    if (hash === undefined) {
      hash = createHash("sha256").update(token).digest("base64url");
      if (this.#tokenHashes.size > MAX_TOKENS) this.#tokenHashes.clear();
      this.#tokenHashes.set(token, hash);
    }
    return hash;
  }
}
