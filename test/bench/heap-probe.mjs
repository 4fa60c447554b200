// Preloaded into a server by the memory benchmark (`node --import ./test/bench/heap-probe.mjs`):
// on SIGUSR2 it runs a full garbage collection, so that what is left is what the server keeps,
// then writes the process's memory figures (process.memoryUsage and V8's heap spaces) as one JSON
// line to the file named by PARTS_BENCH_HEAP_FILE. The server itself is unchanged: gc is exposed
// for a moment, as src/v8-flags.ts does, not by --expose-gc on the command line, which would make
// the server start otherwise than mcp.json starts it (without its code caches).
import { appendFileSync } from "node:fs";
import { getHeapSpaceStatistics, getHeapStatistics, setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

const file = process.env.PARTS_BENCH_HEAP_FILE;
if (file) {
  let gc;
  process.on("SIGUSR2", () => {
    if (!gc) {
      setFlagsFromString("--expose-gc");
      gc = runInNewContext("gc");
      setFlagsFromString("--no-expose-gc");
    }
    gc();
    gc();
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
