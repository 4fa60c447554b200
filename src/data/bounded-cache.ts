// LRU caches bounded by their number of entries: lru-cache's `maxSize` with every entry counted
// as 1, not its `max`. With `max`, lru-cache allocates every slot up front (the token caches'
// 10,000 slots and the reference cache's 5,000 held about half a MiB of an idle server's RSS
// before its first call); with `maxSize` its arrays grow as entries come. Same bound, same order
// of eviction.
export const entriesAtMost = (entries: number) => ({ maxSize: entries, sizeCalculation: () => 1 });
