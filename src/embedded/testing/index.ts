// The embedded Parts API for tests and benchmarks: the product's startEmbeddedApi() with fault
// injection, request statistics and read access to its state. Only tests, benchmarks and
// scripts import this entry, so none of it is in the product bundle (scripts/build.mjs checks).
import { type EmbeddedApi, type EmbeddedApiOptions, largeCatalogueSize, startEmbeddedApi } from "../index";
import type { RequestHook } from "../server";
import {
  answerWithFault,
  DEFAULT_FAULT_SEED,
  type FaultController,
  FaultInjector,
  type FaultRule,
} from "./faults";
import { answerWithListingLie } from "./listing-lies";
import { type ApiStats, StatsRecorder } from "./stats";
import { TestStore } from "./store";

export type { DemoAccount } from "../index";
export { DEMO_ACCOUNTS } from "../index";
export type { EndpointName, FaultAction, FaultRule } from "./faults";
export { FaultInjector } from "./faults";
export { MALFORMED_VARIANTS, type MalformedVariant, OVERSIZED_BYTES } from "./malformed";
export { TestStore } from "./store";

export interface TestApiOptions extends Omit<EmbeddedApiOptions, "store" | "hook"> {
  /** Fault rules active from the start (more can be added through `faults`). */
  faults?: FaultRule[];
  /** Seed of the fault-probability PRNG (default fixed), for reproducible flaky runs. */
  faultSeed?: number;
}

export interface TestApi extends EmbeddedApi {
  faults: FaultController;
  stats: ApiStats;
  /** Read access to the state. */
  store: TestStore;
}

/** Counts every request, then answers it with the first fault that applies, if any. */
function faultsAndStats(
  faults: FaultInjector,
  stats: StatsRecorder,
  store: TestStore,
  closing: () => boolean,
): RequestHook {
  return async (ex, next) => {
    stats.recordRequest(ex.endpoint, ex.req.headers);
    let abortedByServer = false;
    ex.res.once("close", () => {
      if (!ex.res.writableFinished && !abortedByServer && !closing()) stats.recordClosedEarly(ex.endpoint);
    });
    const fault = ex.endpoint === undefined ? undefined : faults.pick(ex.endpoint);
    if (fault === undefined) return next();
    if (fault.kind === "listing") return answerWithListingLie(fault, ex, store, next);
    const abort = () => {
      abortedByServer = true;
    };
    return answerWithFault(fault, { ...ex, abortedByServer: abort }, next);
  };
}

export async function startTestApi(options: TestApiOptions = {}): Promise<TestApi> {
  const { faults: initial = [], faultSeed = DEFAULT_FAULT_SEED, ...apiOptions } = options;
  const faults = new FaultInjector(faultSeed, initial);
  const stats = new StatsRecorder();
  const store = new TestStore({ largeCatalogueSize: largeCatalogueSize(options) });
  let closing = false;
  const api = await startEmbeddedApi({
    ...apiOptions,
    store,
    hook: faultsAndStats(faults, stats, store, () => closing),
  });
  return {
    ...api,
    faults,
    stats,
    store,
    close() {
      closing = true;
      return api.close();
    },
  };
}
