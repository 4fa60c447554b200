// Preloaded into a server by the memory benchmark (`node --expose-gc --import
// ./test/bench/heap-probe.mjs`): on SIGUSR2 it runs a full garbage collection (when --expose-gc
// made one callable), so that what is left is what the server keeps, then writes the process's
// memory figures (process.memoryUsage and V8's heap spaces) as one JSON line to the file named by
// PARTS_BENCH_HEAP_FILE. The server itself is unchanged.
import { appendFileSync } from "node:fs";
import { getHeapSpaceStatistics, getHeapStatistics } from "node:v8";

const file = process.env.PARTS_BENCH_HEAP_FILE;
if (file) {
  process.on("SIGUSR2", () => {
    if (typeof globalThis.gc === "function") {
      globalThis.gc();
      globalThis.gc();
    }
    const spaces = Object.fromEntries(
      getHeapSpaceStatistics().map((s) => [s.space_name, { size: s.space_size, used: s.space_used_size }]),
    );
    const { total_heap_size, used_heap_size, malloced_memory, external_memory } = getHeapStatistics();
    appendFileSync(
      file,
      `${JSON.stringify({ memory: process.memoryUsage(), heap: { total_heap_size, used_heap_size, malloced_memory, external_memory }, spaces })}\n`,
    );
  });
}
