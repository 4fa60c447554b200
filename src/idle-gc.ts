// Memory for calls while they come, given back once the server is idle.
//
// The young generation: kept at 1 MiB a semi-space while the server is idle (src/v8-flags.ts), it
// grows once to 8 MiB when calls come, which halves the time a call spends in garbage collection
// (an object a call holds at a collection is copied there, and a small young generation collects
// several times a call's lifetime; docs/performance.md); it goes back to 1 MiB when the server is
// idle again, so idle memory stays what it was.
//
// A full garbage collection once the server has been idle for a moment. V8 collects the old
// generation only under allocation pressure, so after a burst of calls the garbage of that burst
// stays resident until the next one: tens of MiB for a server that is then idle for hours. One
// collection when nothing has happened for IDLE_MS returns it, and costs nothing while calls keep
// coming. It compacts the old generation too, which V8's own full collections seldom do, so that
// the pages the garbage left half empty go back to the system: about 1.5 MiB less idle RSS after a
// single call, for 25 ms of work instead of 12 (npm run bench, section memory).
import {
  collectAllAvailableGarbage,
  compactingCollection,
  exposedGc,
  type Gc,
  keepYoungGenerationSmall,
  letYoungGenerationGrowOnce,
  youngGenerationCapacity,
  youngGenerationSizedHere,
} from "./v8-flags";

const IDLE_MS = 2_000;
/** Calls between two looks at whether the young generation has grown (a look costs about 3 µs). */
const CALLS_PER_LOOK = 16;
/**
 * V8 shrinks the young generation at a collection when little was allocated over its last ten
 * collections; so many, each of an empty young generation a moment apart, show it that (it takes
 * ten here). Should V8 still keep it, its most thorough collection gives it back (about 30 ms, and
 * about 5 MiB more idle RSS than the compacting collection leaves, so only then).
 */
const SHRINKING_COLLECTIONS = 12;
const SHRINKING_PAUSE_MS = 20;

let gc: Gc | undefined;
let timer: NodeJS.Timeout | undefined;

/** The young generation: at its idle size, allowed to grow once, or grown for calls. */
let young: "idle" | "growing" | "grown" = "idle";
/** Its capacity before any call let it grow: what it goes back to. */
let idleCapacity: number | undefined;
let callsSinceLook = 0;

/** Marks activity: the collection runs IDLE_MS after the last call to this. */
export function collectWhenIdle(): void {
  gc ??= exposedGc();
  youngGenerationForCalls();
  if (timer) {
    timer.refresh();
    return;
  }
  timer = setTimeout(() => {
    timer = undefined;
    if (!gc) return;
    compactingCollection(gc);
    youngGenerationForIdle(gc).catch(() => {
      // Only V8's collections run in there; nothing to undo if one throws.
    });
  }, IDLE_MS).unref();
}

function youngGenerationForCalls(): void {
  if (young === "grown" || !youngGenerationSizedHere()) return;
  if (young === "idle") {
    idleCapacity ??= youngGenerationCapacity();
    letYoungGenerationGrowOnce();
    young = "growing";
    callsSinceLook = 0;
  } else if (++callsSinceLook === CALLS_PER_LOOK) {
    callsSinceLook = 0;
    if (youngGenerationCapacity() > (idleCapacity as number)) {
      keepYoungGenerationSmall();
      young = "grown";
    }
  }
}

async function youngGenerationForIdle(collect: Gc): Promise<void> {
  if (young === "idle" || !youngGenerationSizedHere()) return;
  keepYoungGenerationSmall();
  young = "idle";
  const grown = () => youngGenerationCapacity() > (idleCapacity as number);
  for (let i = 0; i < SHRINKING_COLLECTIONS && young === "idle" && grown(); i++) {
    await new Promise((resolve) => setTimeout(resolve, SHRINKING_PAUSE_MS).unref());
    if (young === "idle") collect({ type: "minor" });
  }
  if (young === "idle" && grown()) collectAllAvailableGarbage(collect);
}
