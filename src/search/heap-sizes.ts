// Estimated sizes (bytes) of V8 objects on 64-bit without pointer compression: 16-byte string
// headers, 8-byte slots, typed arrays about 200 bytes each besides their contents. The indexes
// add these up as they grow, so the cache of indexes can keep them all within one byte budget;
// test/search/measure.ts compares the estimate with the heap.

export const SLOT = 8;
const STRING_HEADER = 16;
export const MAP_ENTRY = 40;
export const ARRAY_HEADER = 48;
export const TYPED_ARRAY = 200;
export const OBJECT = 64;

/** Bytes of a JS string: one byte a character when all are Latin-1, else two. */
export function stringBytes(value: string): number {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the Latin-1 range starts at U+0000
  const width = /[^\u0000-\u00ff]/.test(value) ? 2 : 1;
  return STRING_HEADER + Math.ceil((value.length * width) / 8) * 8;
}

/** Memory an index may take as it grows (./part-indexes.ts keeps all indexes within one budget). */
export interface Budget {
  /** Whether the index may grow by `bytes`; when granted, they are counted. */
  claim(bytes: number): boolean;
  /** Counts `bytes` more (or fewer, when negative) than claimed, once the growth is measured. */
  settle(bytes: number): void;
}
