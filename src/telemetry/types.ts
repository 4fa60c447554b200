// The shapes of telemetry: the hooks the server, the API client, the HTTP layer, the reference
// cache and the logger call (./index.ts), and what OpenTelemetry's side (./otel.ts) gets and gives.
import type { McpServer } from "@modelcontextprotocol/server";
import type { AttemptRequest } from "../client/transport";
import type { ServedNames } from "./labels";

/** How the MCP requests of an instrumented server arrive (semantic conventions' `network.transport`). */
export type NetworkTransport = "pipe" | "tcp";

/** Why a call was turned away or held back: the HTTP layer's 503s and stdio's backpressure. */
type ShedReason = "busy" | "connections" | "draining" | "stdio_backpressure";

export type AttemptOutcome = { status: number } | { failure: string };

/** One upstream attempt being traced: the request to send (trace context added), and its end. */
interface TracedAttempt {
  request: AttemptRequest;
  end(outcome: AttemptOutcome): void;
}

/** What the search gauges read when metrics are collected. */
interface SearchSizes {
  readonly bytes: number;
  readonly parts: number;
}

export interface Telemetry {
  /**
   * Wraps every request handler of `server` in a SERVER span and the operation-duration metric;
   * tool and prompt names outside `served` are recorded as one fixed value (labels.ts).
   */
  instrument(server: McpServer, transport: NetworkTransport, served: ServedNames): void;
  /**
   * A CLIENT span for one upstream attempt (`attempt` 1 for the first, 2 for the first retry…) to
   * `endpoint`, the path template (/v1/parts/{id}: never an id); undefined when telemetry is off.
   */
  attempt(
    request: AttemptRequest,
    endpoint: string,
    origin: string,
    attempt: number,
  ): TracedAttempt | undefined;
  /** A reference-cache lookup under `key` (`kind:id`). */
  cacheLookup(key: string, hit: boolean): void;
  shed(reason: ShedReason): void;
  /** A sign-in through the server's own authorization, by its outcome (`ok`, `denied`…). */
  signIn(outcome: string): void;
  /** The trace and span of the code running now, for a log line; undefined outside a span or when off. */
  logFields(): { trace_id: string; span_id: string } | undefined;
}

export interface TelemetrySources {
  search: SearchSizes;
  version: string;
  /** Where to say what telemetry does (a line at start) and what fails (an export, the metrics port). */
  log(level: "info" | "warn", msg: string, fields?: Record<string, unknown>): void;
}

export interface RunningTelemetry {
  /** The /metrics address, when served. */
  metricsUrl?: string;
  /** Sends what is buffered and stops the exporters. */
  shutdown(): Promise<void>;
}
