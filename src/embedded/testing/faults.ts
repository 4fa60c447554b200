// Fault injection: rules that make chosen endpoints fail in the ways real upstreams fail. Off by
// default. A rule matches an endpoint of the table by name (or "*" for all 14; /openapi.json
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
import { type EndpointName, endpoints } from "../api/endpoints";
import { Rng } from "./prng";

export type { EndpointName };

export const MALFORMED_VARIANTS = [
  "html",
  "truncated-json",
  "wrong-content-type",
  "empty",
  "error-shape-200",
  "oversized",
  "slow-drip",
  "reset-mid-body",
  "redirect-other-host",
  "wrong-field-types",
  "missing-required",
  "extra-fields",
] as const;

export type MalformedVariant =
  | "html" // 502 with an HTML error page, content-type text/html
  | "truncated-json" // application/json, Content-Length of the cut body, cut in the middle
  | "wrong-content-type" // valid JSON body but content-type text/plain
  | "empty" // an empty body
  | "error-shape-200" // 200 carrying {status:500,message:"...",code:"internal"}
  | "oversized" // a valid JSON body over 16 MiB, streamed (chunked, no Content-Length)
  | "slow-drip" // JSON sent a few bytes at a time over `durationMs` (default 5 s)
  | "reset-mid-body" // headers and half the body, then the connection is reset
  | "redirect-other-host" // 302 (GET) / 307 (POST) to http://127.0.0.2:<port><same path and query>
  | "wrong-field-types" // the right record with wrong types: strings become 42, booleans "yes"
  | "missing-required" // the right record without a required field (id, code or fileId)
  | "extra-fields"; // the right record plus unknown fields (valid for a client)

export type FaultAction =
  /** Error-shape body; `retryAfter` is the raw Retry-After value (seconds or HTTP date). */
  | { kind: "status"; status: number; retryAfter?: string; message?: string; code?: string }
  | { kind: "latency"; ms: number }
  /** `durationMs` is the length of a slow-drip (default 5000). */
  | { kind: "malformed"; variant: MalformedVariant; durationMs?: number }
  /** The connection is destroyed without any response. */
  | { kind: "drop" };

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
export const PRE_HANDLER_VARIANTS: ReadonlySet<MalformedVariant> = new Set([
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

  /** Number of rules not yet spent. */
  get active(): number {
    return this.rules.filter((r) => r.remaining > 0).length;
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

// ---- body transforms of the data variants ------------------------------------------------------

type Json = Record<string, unknown>;

const isRecord = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

/** Applies `f` to the record, or to the first item of an `{items}` wrapper. */
function onRecord(value: unknown, f: (record: Json) => Json, whenEmpty: (wrapper: Json) => Json): unknown {
  if (!isRecord(value)) return value;
  const items = value.items;
  if (!Array.isArray(items)) return f(value);
  if (items.length === 0 || !isRecord(items[0])) return whenEmpty(value);
  return { ...value, items: [f(items[0]), ...items.slice(1)] };
}

/** Every scalar of the record gets a wrong type: strings become 42, booleans "yes", numbers "12". */
export function withWrongFieldTypes(value: unknown): unknown {
  return onRecord(
    value,
    (record) => {
      const out: Json = {};
      for (const [k, v] of Object.entries(record)) {
        out[k] =
          typeof v === "string" ? 42 : typeof v === "boolean" ? "yes" : typeof v === "number" ? String(v) : v;
      }
      return out;
    },
    (wrapper) => ({ ...wrapper, items: "none", ...("hasMore" in wrapper ? { hasMore: "no" } : {}) }),
  );
}

const REQUIRED_FIRST = ["id", "code", "fileId", "title"];

/** The record without a required field: its id (or code, fileId, title). */
export function withoutRequiredField(value: unknown): unknown {
  return onRecord(
    value,
    (record) => {
      const key = REQUIRED_FIRST.find((k) => k in record) ?? Object.keys(record)[0];
      const out = { ...record };
      if (key !== undefined) delete out[key];
      return out;
    },
    (wrapper) => {
      const { items: _items, ...rest } = wrapper;
      return rest;
    },
  );
}

/** The record plus fields no schema declares. */
export function withExtraFields(value: unknown): unknown {
  const extra = (record: Json): Json => ({
    ...record,
    etag: 'W/"5f3a9c"',
    schemaRevision: 7,
    _links: { self: { href: "/v1/self" } },
  });
  if (!isRecord(value)) return value;
  const base = extra(value);
  return Array.isArray(value.items) && isRecord(value.items[0])
    ? { ...base, items: [extra(value.items[0]), ...value.items.slice(1)] }
    : base;
}
