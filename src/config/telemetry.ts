// Telemetry: on when an OTLP endpoint (the standard OTEL_* variables) or a Prometheus metrics port is set, otherwise nothing of it is loaded (src/telemetry/).
import { type Env, processEnv } from "./env";
import { ConfigError } from "./errors";
import { readEnv, readHost, readInteger, type SettingGroup } from "./readers";

export interface TelemetryConfig {
  /** OTLP/HTTP export of spans (OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT). */
  otlpTraces: boolean;
  /** OTLP/HTTP export of metrics (OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_METRICS_ENDPOINT). */
  otlpMetrics: boolean;
  /** Prometheus text at /metrics on this port, on `metricsHost`. */
  metricsPort?: number;
  metricsHost: string;
  /** OTEL_METRIC_EXPORT_INTERVAL, in ms. */
  exportIntervalMs: number;
}

export const TELEMETRY_ENV = {
  metricsPort: "PARTS_MCP_METRICS_PORT",
  metricsHost: "PARTS_MCP_METRICS_HOST",
} as const;

const METRICS_HOST_DEFAULT = "127.0.0.1";

export const TELEMETRY_SETTINGS: SettingGroup = {
  title: "Telemetry (off unless one of these is set)",
  settings: [
    {
      variable: "OTEL_EXPORTER_OTLP_ENDPOINT",
      description:
        "send spans and metrics over OTLP/HTTP (or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT / _METRICS_ENDPOINT); the other OTEL_* variables apply",
    },
    {
      variable: TELEMETRY_ENV.metricsPort,
      description:
        "serve the metrics in Prometheus format at /metrics on this port (0 picks one), apart from MCP",
    },
    {
      variable: TELEMETRY_ENV.metricsHost,
      description: "address of /metrics",
      defaultText: METRICS_HOST_DEFAULT,
    },
  ],
};

/** What the environment asks for; undefined when it asks for nothing (nothing is loaded then). */
export function loadTelemetryConfig(env: Env = processEnv()): TelemetryConfig | undefined {
  if (readEnv(env, "OTEL_SDK_DISABLED")?.toLowerCase() === "true") return undefined;
  const set = (name: string) => readEnv(env, name) !== undefined;
  const off = (name: string) => readEnv(env, name)?.toLowerCase() === "none";
  const otlpTraces =
    (set("OTEL_EXPORTER_OTLP_ENDPOINT") || set("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")) &&
    !off("OTEL_TRACES_EXPORTER");
  const otlpMetrics =
    (set("OTEL_EXPORTER_OTLP_ENDPOINT") || set("OTEL_EXPORTER_OTLP_METRICS_ENDPOINT")) &&
    !off("OTEL_METRICS_EXPORTER");
  const portText = readEnv(env, TELEMETRY_ENV.metricsPort);
  const metricsPort = portText === undefined ? undefined : port(portText);
  if (!otlpTraces && !otlpMetrics && metricsPort === undefined) return undefined;
  return {
    otlpTraces,
    otlpMetrics,
    ...(metricsPort !== undefined && { metricsPort }),
    metricsHost: readHost(env, TELEMETRY_ENV.metricsHost, METRICS_HOST_DEFAULT),
    exportIntervalMs: readInteger(env, "OTEL_METRIC_EXPORT_INTERVAL", {
      defaultValue: 60_000,
      min: 1,
      max: 86_400_000,
      unit: "milliseconds",
    }),
  };
}

function port(text: string): number {
  const value = /^\d{1,5}$/.test(text) ? Number(text) : Number.NaN;
  if (!(value >= 0 && value <= 65_535)) {
    throw new ConfigError(
      `${TELEMETRY_ENV.metricsPort} must be a port number from 0 to 65535 (it is "${text}"): the port of /metrics, apart from the MCP port.`,
      TELEMETRY_ENV.metricsPort,
    );
  }
  return value;
}
