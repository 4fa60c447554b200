// A full garbage collection once the server has been idle for a moment. V8 collects the old
// generation only under allocation pressure, so after a burst of calls the garbage of that burst
// stays resident until the next one: tens of MiB for a server that is then idle for hours. One
// collection (a few ms) when nothing has happened for IDLE_MS returns it, and costs nothing
// while calls keep coming.
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

const IDLE_MS = 2_000;

let collect: (() => void) | undefined;
let timer: NodeJS.Timeout | undefined;

/** Marks activity: the collection runs IDLE_MS after the last call to this. */
export function collectWhenIdle(): void {
  collect ??= exposeGc();
  if (timer) {
    timer.refresh();
    return;
  }
  timer = setTimeout(() => {
    timer = undefined;
    collect?.();
  }, IDLE_MS).unref();
}

/** `gc()` without --expose-gc on the command line: the flag, set now, shows in a new context. */
function exposeGc(): () => void {
  setFlagsFromString("--expose-gc");
  return runInNewContext("gc") as () => void;
}
