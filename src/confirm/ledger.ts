// Which confirmations were already answered, so that each sealed request state is used once. The
// interface is narrow (claim an id until it expires) so that the oauth mode can keep it in its
// database, once across replicas (src/auth/store.ts); every other mode serves from one process,
// where the bounded set below is enough.

/** Remembers ids until they expire; `claim` says whether this is the first claim of `id`. */
export interface OnceLedger {
  /** True the first time `id` is claimed; false if it was claimed before (a replay) or cannot be kept. */
  claim(id: string, expiresAt: number): Promise<boolean>;
}

/** Ids remembered at most, in one process: past it, claims are refused until some expire. */
const MAX_IDS = 50_000;

/**
 * The ledger of one process. Every id lives the same time (a state's lifetime), so ids expire in
 * the order they were claimed: the oldest go first. When full of unexpired ids it refuses rather
 * than forget one, which could let a state be used twice.
 */
export class MemoryLedger implements OnceLedger {
  readonly #expiry = new Map<string, number>();
  readonly #max: number;

  constructor(max = MAX_IDS) {
    this.#max = max;
  }

  async claim(id: string, expiresAt: number): Promise<boolean> {
    const now = Date.now();
    for (const [old, expires] of this.#expiry) {
      if (expires > now) break;
      this.#expiry.delete(old);
    }
    if (this.#expiry.has(id) || this.#expiry.size >= this.#max) return false;
    this.#expiry.set(id, expiresAt);
    return true;
  }
}
