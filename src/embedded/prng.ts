// Deterministic pseudo-random numbers: the sample data, the large catalogue and the fault
// probabilities all come from fixed seeds, so every start of the embedded API is identical.

/** 32-bit integer hash (the murmur3 finaliser): spreads `n` and `salt` over all 32 bits. */
export function hash32(n: number, salt = 0): number {
  let h = Math.imul(n ^ Math.imul(salt, 0x9e3779b1), 0x85ebca6b) ^ salt;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** A small seeded generator (mulberry32) with the helpers the data generators need. */
export class Rng {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** A float in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [min, max], both inclusive. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  /** A float in [min, max), rounded to `decimals` places. */
  float(min: number, max: number, decimals = 2): number {
    const f = 10 ** decimals;
    return Math.round((min + this.next() * (max - min)) * f) / f;
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    const item = items[Math.floor(this.next() * items.length)];
    if (item === undefined) throw new Error("pick from an empty list");
    return item;
  }

  /** Between `min` and `max` distinct items, in their original order. */
  subset<T>(items: readonly T[], min: number, max = items.length): T[] {
    const n = Math.min(items.length, this.int(Math.min(min, items.length), Math.min(max, items.length)));
    const chosen = new Set<number>();
    while (chosen.size < n) chosen.add(Math.floor(this.next() * items.length));
    return items.filter((_, i) => chosen.has(i));
  }

  /** `length` characters of lower-case base 36. */
  base36(length: number): string {
    let s = "";
    for (let i = 0; i < length; i++) s += Math.floor(this.next() * 36).toString(36);
    return s;
  }
}
