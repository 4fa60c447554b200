// Telemetry hooks: what the server, the API client, the HTTP layer, the reference cache and the logger call, no-ops until startTelemetry loads OpenTelemetry (./otel.ts, through its one dynamic import) because an OTLP endpoint or a metrics port is set.
import type { McpServer } from "@modelcontextprotocol/server";
import type { AttemptRequest } from "../client/transport";
import { ConfigError } from "../config/errors";

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
  /** Wraps every request handler of `server` in a SERVER span and the operation-duration metric. */
  instrument(server: McpServer, transport: NetworkTransport): void;
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

const noop = (): void => {};

/** The hooks in use: no-ops until startTelemetry replaces them. */
export const telemetry: Telemetry = {
  instrument: noop,
  attempt: () => undefined,
  cacheLookup: noop,
  shed: noop,
  signIn: noop,
  logFields: () => undefined,
};

export interface TelemetrySettings {
  /** OTLP/HTTP export of spans (OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT). */
  otlpTraces: boolean;
  /** OTLP/HTTP export of metrics (OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_METRICS_ENDPOINT). */
  otlpMetrics: boolean;
  /** Prometheus text at /metrics on this port (PARTS_MCP_METRICS_PORT), on `metricsHost`. */
  metricsPort?: number;
  metricsHost: string;
  /** OTEL_METRIC_EXPORT_INTERVAL, in ms. */
  exportIntervalMs: number;
}

const METRICS_PORT_ENV = "PARTS_MCP_METRICS_PORT";
const METRICS_HOST_ENV = "PARTS_MCP_METRICS_HOST";

/** What the environment asks for; undefined when it asks for nothing (nothing is loaded then). */
export function telemetrySettings(env: NodeJS.ProcessEnv): TelemetrySettings | undefined {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === "true") return undefined;
  const set = (name: string) => (env[name] ?? "").trim() !== "";
  const exporterOff = (name: string) => (env[name] ?? "").trim().toLowerCase() === "none";
  const otlpTraces =
    (set("OTEL_EXPORTER_OTLP_ENDPOINT") || set("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")) &&
    !exporterOff("OTEL_TRACES_EXPORTER");
  const otlpMetrics =
    (set("OTEL_EXPORTER_OTLP_ENDPOINT") || set("OTEL_EXPORTER_OTLP_METRICS_ENDPOINT")) &&
    !exporterOff("OTEL_METRICS_EXPORTER");
  const metricsPort = set(METRICS_PORT_ENV) ? port(env[METRICS_PORT_ENV] as string) : undefined;
  if (!otlpTraces && !otlpMetrics && metricsPort === undefined) return undefined;
  const interval = Number(env.OTEL_METRIC_EXPORT_INTERVAL);
  return {
    otlpTraces,
    otlpMetrics,
    ...(metricsPort !== undefined && { metricsPort }),
    metricsHost: env[METRICS_HOST_ENV]?.trim() || "127.0.0.1",
    exportIntervalMs: Number.isInteger(interval) && interval > 0 ? interval : 60_000,
  };
}

function port(text: string): number {
  const value = Number(text.trim());
  if (!Number.isInteger(value) || value < 0 || value > 65_535) {
    throw new ConfigError(
      `${METRICS_PORT_ENV} must be a port number from 0 to 65535 (it is "${text}"): the port of /metrics, apart from the MCP port.`,
      METRICS_PORT_ENV,
    );
  }
  return value;
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

/** Loads OpenTelemetry and installs the real hooks, when `settings` asks for any telemetry. */
export async function startTelemetry(
  settings: TelemetrySettings | undefined,
  sources: TelemetrySources,
): Promise<RunningTelemetry | undefined> {
  if (!settings) return undefined;
  const { openTelemetry } = await import("./otel");
  const { hooks, running } = await openTelemetry(settings, sources).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== "EADDRINUSE" && error.code !== "EACCES" && error.code !== "EADDRNOTAVAIL") throw error;
    throw new ConfigError(
      `Cannot serve /metrics on ${settings.metricsHost}:${settings.metricsPort} (${error.code}): choose another port with ${METRICS_PORT_ENV} or another address with ${METRICS_HOST_ENV}.`,
      METRICS_PORT_ENV,
    );
  });
  Object.assign(telemetry, hooks);
  return running;
}
