// The V8 flags this process sets itself, so that no client configuration has to carry one; each
// only from the moment it is needed. Node compiles its own modules (streams, net, http, ...) from
// V8's code cache built into Node, which V8 takes only while every flag is at its default; under
// any other flag each built-in module is compiled from source, two to three times slower (side by
// side: the first answer about 3 ms later, the first get_part 6 ms; docs/performance.md). So a flag
// is set as late as it can be and put back where it can be, and when the launcher writes the
// bundle's code cache (src/launch.ts) the flags are those the next start compiles under, or V8
// refuses that cache.
import * as v8 from "node:v8";
import { runInNewContext } from "node:vm";

// V8's flags are the process's, and so is what this module notes of them: the launcher and the
// server bundle each have a copy of this module (src/launch.ts).
const YOUNG_GENERATION_KEPT_SMALL = Symbol.for("parts-mcp.young-generation-kept-small");
const flagMarks = globalThis as { [YOUNG_GENERATION_KEPT_SMALL]?: boolean };

/**
 * A young generation that stays at its size (1 MiB a semi-space at start), what
 * `--max-semi-space-size=1` on Node's command line gives, set by the program so that no client
 * configuration has to carry a flag: V8 grows the young generation up to 16 MiB a semi-space while
 * start-up and calls allocate, and never gives it back, 13 MiB more idle RSS (docs/performance.md).
 * V8 reads the growth factor each time it would grow, so it must stay set; set at the launcher's
 * start, before anything grew.
 */
export function keepYoungGenerationSmall(): void {
  v8.setFlagsFromString("--semi-space-growth-factor=1");
  flagMarks[YOUNG_GENERATION_KEPT_SMALL] = true;
}

/** Puts back what keepYoungGenerationSmall set (V8's default factor is 2). */
export function undoKeepYoungGenerationSmall(): void {
  v8.setFlagsFromString("--semi-space-growth-factor=2");
  flagMarks[YOUNG_GENERATION_KEPT_SMALL] = false;
}

/**
 * Whether this program sizes the young generation: kept small since start-up (the launcher), not
 * left to V8 since (preferThroughput, or a process that never started through the launcher).
 */
export function youngGenerationSizedHere(): boolean {
  return flagMarks[YOUNG_GENERATION_KEPT_SMALL] === true;
}

/**
 * Lets the young generation grow once, eightfold (1 to 8 MiB a semi-space), the next time V8 finds
 * it too small: src/idle-gc.ts, while calls come.
 */
export function letYoungGenerationGrowOnce(): void {
  v8.setFlagsFromString("--semi-space-growth-factor=8");
}

/**
 * The young generation's capacity in bytes (a semi-space's): what it can hold before a collection,
 * whether or not V8 has committed the other semi-space's memory at the moment (`space_size`, the
 * memory committed, reads 1 MiB or 2 MiB for the same 1 MiB young generation).
 */
export function youngGenerationCapacity(): number {
  const space = v8.getHeapSpaceStatistics().find((entry) => entry.space_name === "new_space");
  return space ? space.space_used_size + space.space_available_size : 0;
}

let throughputFirst = false;

/**
 * For the HTTP server, which many people share: V8's defaults, where the stdio server, one
 * person's, trades a little CPU for memory. Under concurrent calls a young generation kept at 1 MiB
 * promotes what each call still holds into the old generation, and Liftoff-only llhttp parses more
 * slowly: together a fifth fewer calls a second at 64 concurrent (docs/performance.md). Called
 * before the first upstream connection.
 */
export function preferThroughput(): void {
  throughputFirst = true;
  undoKeepYoungGenerationSmall();
}

/**
 * `--max-semi-space-size=1` given on Node's command line (as older configurations do) has sized
 * the young generation when the heap was made; back at its default (0) it changes nothing more
 * and the flags match those the code cache was made under.
 */
export function resetHeapSizeFlags(): void {
  v8.setFlagsFromString("--max-semi-space-size=0");
}

/**
 * While the bundle's code cache is read or written: V8 then checks the cache's checksum (Node
 * 20's V8 checks only its header otherwise, and a cache damaged after it, by a bad disk or a
 * partial copy, would crash the process; with the checksum it is refused).
 */
export function checkCodeCache(on: boolean): void {
  v8.setFlagsFromString(on ? "--verify-snapshot-checksum" : "--no-verify-snapshot-checksum");
}

/**
 * undici parses HTTP with llhttp compiled to WebAssembly, which V8 compiles again with TurboFan in
 * a background thread whose memory (3.5 MiB of idle RSS) is never given back; Liftoff's code parses
 * API responses as fast as needed. Set before the first connection compiles llhttp, for good:
 * tier-up would otherwise start again on the hot functions.
 */
export function wasmLiftoffOnly(): void {
  if (throughputFirst) return;
  v8.setFlagsFromString("--liftoff-only");
}

/** Puts back what wasmLiftoffOnly set, with the flags it implied (their defaults on Node 20). */
export function undoWasmLiftoffOnly(): void {
  v8.setFlagsFromString("--no-liftoff-only --wasm-tier-up --wasm-dynamic-tiering");
}

/** V8's `gc()`; `{ type: "minor" }` collects the young generation alone. */
export type Gc = (options?: { type: "minor" | "major" }) => void;

/** `gc()` without --expose-gc on the command line: the flag, set for a moment, shows in a new context. */
export function exposedGc(): Gc {
  v8.setFlagsFromString("--expose-gc");
  try {
    return runInNewContext("gc") as Gc;
  } finally {
    v8.setFlagsFromString("--no-expose-gc");
  }
}

/**
 * V8's most thorough collection, the one a low-memory notification runs: full collections until
 * nothing more is freed, compacting, and the young generation shrunk back to its first size. Node
 * reaches it only through `v8.queryObjects`, which runs it before it counts (about 30 ms). Node
 * warns once that queryObjects is experimental: on stderr that warning would read as a fault, so
 * this process does not show it. Where queryObjects is missing, a compacting collection.
 */
export function collectAllAvailableGarbage(gc: Gc): void {
  // Node 20.13 and later; the engines field allows no earlier Node, but a missing one costs nothing.
  if (typeof v8.queryObjects !== "function") {
    compactingCollection(gc);
    return;
  }
  const { emitWarning } = process;
  process.emitWarning = () => {};
  try {
    v8.queryObjects(NothingToCount, { format: "count" });
  } finally {
    process.emitWarning = emitWarning;
  }
}

class NothingToCount {}

/** One full collection that also compacts the old generation. */
export function compactingCollection(gc: Gc): void {
  v8.setFlagsFromString("--compact-on-every-full-gc");
  try {
    gc();
  } finally {
    v8.setFlagsFromString("--no-compact-on-every-full-gc");
  }
}
