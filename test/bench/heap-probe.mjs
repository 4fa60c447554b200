// Preloaded into a server by the memory diagnostics (`node --import ./test/bench/heap-probe.mjs`):
// on SIGUSR2 it writes the process's memory figures (process.memoryUsage and V8's heap spaces) as
// one JSON line to the file named by PARTS_BENCH_HEAP_FILE. The server itself is unchanged.
import { appendFileSync } from "node:fs";
import { getHeapSpaceStatistics, getHeapStatistics } from "node:v8";

const file = process.env.PARTS_BENCH_HEAP_FILE;
if (file) {
  process.on("SIGUSR2", () => {
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
