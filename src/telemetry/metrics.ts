// The metrics of telemetry: their readers (OTLP/HTTP export, the Prometheus port of
// ./metrics-server.ts) and the instruments the hooks record into (./otel.ts, ./server-spans.ts).
import type { Meter } from "@opentelemetry/api";
import { OTLPMetricExporter } from "@opentelemetry/exporter-metrics-otlp-http";
import { PrometheusExporter } from "@opentelemetry/exporter-prometheus";
import type { Resource } from "@opentelemetry/resources";
import { type IMetricReader, MeterProvider, PeriodicExportingMetricReader } from "@opentelemetry/sdk-metrics";
import type { TelemetryConfig } from "../config/telemetry";
import { urlHost } from "../net/hosts";
import { type MetricsServer, serveMetrics } from "./metrics-server";
import type { TelemetrySources } from "./types";

/** The semantic conventions' buckets for MCP operation durations, in seconds. */
const MCP_BUCKETS = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300];
/** The HTTP client conventions' buckets, in seconds. */
const HTTP_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10];

export type Instruments = ReturnType<typeof createInstruments>;

interface Metrics {
  instruments: Instruments;
  /** The /metrics address, when served. */
  metricsUrl?: string;
  /** Sends what is buffered, stops the readers and closes the metrics port. */
  shutdown(): Promise<unknown>;
}

/** Starts the readers `settings` asks for (serving the metrics port, if any) and the instruments. */
export async function startMetrics(
  settings: TelemetryConfig,
  sources: TelemetrySources,
  resource: Resource,
): Promise<Metrics> {
  const readers: IMetricReader[] = [];
  let metricsUrl: string | undefined;
  if (settings.otlpMetrics) {
    readers.push(
      new PeriodicExportingMetricReader({
        exporter: new OTLPMetricExporter(),
        exportIntervalMillis: settings.exportIntervalMs,
        exportTimeoutMillis: Math.min(30_000, settings.exportIntervalMs),
      }),
    );
  }
  let metricsServer: MetricsServer | undefined;
  if (settings.metricsPort !== undefined) {
    // The reader only collects: the port is served by metrics-server.ts, never by the exporter.
    const prometheus = new PrometheusExporter({ preventServerStart: true });
    metricsServer = await serveMetrics(
      prometheus,
      { host: settings.metricsHost, port: settings.metricsPort },
      sources.log,
    );
    metricsUrl = `http://${urlHost(settings.metricsHost)}:${metricsServer.port}/metrics`;
    readers.push(prometheus);
  }
  const meterProvider = new MeterProvider({ resource, readers });
  return {
    instruments: createInstruments(meterProvider.getMeter("parts-mcp", sources.version), sources.search),
    ...(metricsUrl && { metricsUrl }),
    shutdown: () => Promise.allSettled([meterProvider.shutdown(), metricsServer?.close()]),
  };
}

/** The instruments the hooks record into, and the search gauges (read at each collection). */
function createInstruments(meter: Meter, search: TelemetrySources["search"]) {
  const instruments = {
    operationDuration: meter.createHistogram("mcp.server.operation.duration", {
      unit: "s",
      description: "Duration of the MCP requests this server handled.",
      advice: { explicitBucketBoundaries: MCP_BUCKETS },
    }),
    upstreamDuration: meter.createHistogram("http.client.request.duration", {
      unit: "s",
      description: "Duration of each request to the Parts API (one per attempt), by endpoint and status.",
      advice: { explicitBucketBoundaries: HTTP_BUCKETS },
    }),
    retries: meter.createCounter("parts_mcp.upstream.retries", {
      unit: "{retry}",
      description: "Requests to the Parts API sent again after a failed attempt.",
    }),
    cacheHits: meter.createCounter("parts_mcp.cache.hits", {
      unit: "{lookup}",
      description: "Reference-data lookups answered from the cache.",
    }),
    cacheMisses: meter.createCounter("parts_mcp.cache.misses", {
      unit: "{lookup}",
      description: "Reference-data lookups that asked the Parts API.",
    }),
    inFlight: meter.createUpDownCounter("parts_mcp.calls.in_flight", {
      unit: "{request}",
      description: "MCP requests being handled.",
    }),
    shed: meter.createCounter("parts_mcp.calls.shed", {
      unit: "{request}",
      description:
        "MCP requests refused with 503 (busy, too many connections, draining) or held back by stdio backpressure.",
    }),
    signIns: meter.createCounter("parts_mcp.sign_ins", {
      unit: "{sign_in}",
      description: "Sign-ins through the server's authorization, by outcome.",
    }),
  };
  meter
    .createObservableGauge("parts_mcp.search.index.size", {
      unit: "By",
      description: "Bytes held by the search indexes.",
    })
    .addCallback((result) => result.observe(search.bytes));
  meter
    .createObservableGauge("parts_mcp.search.index.parts", {
      unit: "{part}",
      description: "Parts held by the search indexes.",
    })
    .addCallback((result) => result.observe(search.parts));
  return instruments;
}
