// Fault injection, for tests and benchmarks only: rules that make chosen endpoints fail in the
// ways real upstreams fail. Off by default. A rule matches an endpoint of the table by name (or "*" for all 14; /openapi.json
// and unknown routes are never faulted); the first rule that matches and wins its probability
// roll decides the request. Probabilities use a seeded PRNG, so a run is reproducible.
//
// Where in the pipeline each fault acts:
// - status, drop, and the malformed variants html, error-shape-200, redirect-other-host answer
//   before authentication and the handler: nothing happens on the server (no part is created).
// - latency waits, then the request runs normally (the wait ends early if the client leaves).
// - the other malformed variants run the request (a create does create its part) and mangle the
//   response on its way out, keeping its status: truncated-json, wrong-content-type, empty,
//   oversized, slow-drip, reset-mid-body, wrong-field-types, missing-required, extra-fields.
import { type EndpointName, endpoints } from "../../api/endpoints";
import { ApiError } from "../errors";
import { Rng } from "../prng";
import { sendOutcome } from "../respond";
import { errorOutcome, WWW_AUTHENTICATE_MISSING } from "../server";
import type { ListingLie } from "./listing-lies";
import {
  answerBeforeHandler,
  answerMangled,
  type FaultedExchange,
  MALFORMED_VARIANTS,
  type MalformedVariant,
  pause,
} from "./malformed";

export type { EndpointName };

export type FaultAction =
  /** Error-shape body; `retryAfter` is the raw Retry-After value (seconds or HTTP date). */
  | { kind: "status"; status: number; retryAfter?: string; message?: string; code?: string }
  | { kind: "latency"; ms: number }
  /** `durationMs` is the length of a slow-drip (default 5000). */
  | { kind: "malformed"; variant: MalformedVariant; durationMs?: number }
  /** The connection is destroyed without any response. */
  | { kind: "drop" }
  /** list_parts only: a listing that lies (./listing-lies.ts). */
  | ({ kind: "listing" } & ListingLie);

export interface FaultRule {
  endpoint?: EndpointName | "*";
  action: FaultAction;
  /** 0..1, default 1. */
  probability?: number;
  /** The rule applies to the first N requests it matches (each one counts, whether the
   *  probability roll fires or not), then it is spent. Default: never spent. */
  times?: number;
}

export interface FaultController {
  add(rule: FaultRule): void;
  clear(): void;
}

export const DEFAULT_FAULT_SEED = 0xfa017;

/** Variants answered before authentication and the handler run. */
const PRE_HANDLER_VARIANTS: ReadonlySet<MalformedVariant> = new Set([
  "html",
  "error-shape-200",
  "redirect-other-host",
]);

interface ActiveRule {
  endpoint: EndpointName | "*";
  action: FaultAction;
  probability: number;
  remaining: number;
}

function checkRule(rule: FaultRule): void {
  const { endpoint = "*", action, probability = 1, times } = rule;
  if (endpoint !== "*" && !Object.hasOwn(endpoints, endpoint))
    throw new TypeError(`unknown endpoint ${endpoint}`);
  if (!(probability >= 0 && probability <= 1)) throw new TypeError("probability must be between 0 and 1");
  if (times !== undefined && !(Number.isInteger(times) && times >= 0)) {
    throw new TypeError("times must be a non-negative integer");
  }
  switch (action?.kind) {
    case "status":
      if (!(Number.isInteger(action.status) && action.status >= 200 && action.status <= 599)) {
        throw new TypeError("status must be an HTTP status code from 200 to 599");
      }
      return;
    case "latency":
      if (!(action.ms >= 0)) throw new TypeError("latency ms must be >= 0");
      return;
    case "malformed":
      if (!MALFORMED_VARIANTS.includes(action.variant))
        throw new TypeError(`unknown variant ${action.variant}`);
      return;
    case "drop":
      return;
    case "listing":
      if (endpoint !== "listParts") throw new TypeError("a listing lie applies to listParts only");
      return;
    default:
      throw new TypeError("unknown fault action");
  }
}

export class FaultInjector implements FaultController {
  private rules: ActiveRule[] = [];
  private rng: Rng;

  constructor(
    private readonly seed = DEFAULT_FAULT_SEED,
    initial: readonly FaultRule[] = [],
  ) {
    this.rng = new Rng(seed);
    for (const rule of initial) this.add(rule);
  }

  add(rule: FaultRule): void {
    checkRule(rule);
    this.rules.push({
      endpoint: rule.endpoint ?? "*",
      action: rule.action,
      probability: rule.probability ?? 1,
      remaining: rule.times ?? Number.POSITIVE_INFINITY,
    });
  }

  /** Removes every rule and restarts the PRNG from its seed. */
  clear(): void {
    this.rules = [];
    this.rng = new Rng(this.seed);
  }

  /** The fault for one request to `endpoint`, or undefined to answer normally. */
  pick(endpoint: EndpointName): FaultAction | undefined {
    if (this.rules.length === 0) return undefined;
    for (const rule of this.rules) {
      if (rule.remaining <= 0 || (rule.endpoint !== "*" && rule.endpoint !== endpoint)) continue;
      rule.remaining--;
      if (rule.probability >= 1 || this.rng.next() < rule.probability) return rule.action;
    }
    return undefined;
  }
}

function defaultFaultMessage(status: number): string {
  if (status === 429) return "rate limit exceeded, retry later";
  if (status === 503) return "service unavailable, try again later";
  if (status >= 500) return "internal error";
  return `request failed with status ${status}`;
}

/** Answers a request the way `fault` says; `next` answers it normally (after a latency). */
export async function answerWithFault(
  fault: FaultAction,
  ex: FaultedExchange,
  next: () => Promise<void>,
): Promise<void> {
  switch (fault.kind) {
    case "drop":
      ex.abortedByServer();
      ex.req.socket.destroy();
      return;
    case "status": {
      const headers: Record<string, string> = {};
      if (fault.retryAfter !== undefined) headers["retry-after"] = fault.retryAfter;
      if (fault.status === 401) Object.assign(headers, WWW_AUTHENTICATE_MISSING);
      const message = fault.message ?? defaultFaultMessage(fault.status);
      return sendOutcome(ex, errorOutcome(new ApiError(fault.status, message, fault.code, headers)));
    }
    case "latency":
      await pause(fault.ms, ex.res);
      if (ex.res.destroyed) return;
      return next();
    case "listing":
      throw new Error("a listing lie is answered with the store (./listing-lies.ts)");
    case "malformed":
      if (PRE_HANDLER_VARIANTS.has(fault.variant)) return answerBeforeHandler(fault.variant, ex);
      return answerMangled(fault.variant, ex, await ex.run(), fault.durationMs);
  }
}
