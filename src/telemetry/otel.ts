// OpenTelemetry for parts-mcp, loaded only when telemetry is on: SERVER spans per MCP request
// (./server-spans.ts, around the SDK's handlers through ./wrap-handlers.ts, the one workaround for
// the SDK's lack of a public hook around them) and CLIENT spans per upstream attempt after the
// semantic conventions, the metrics (./metrics.ts), OTLP/HTTP and Prometheus export.
import { type Attributes, type Span, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { detectResources, envDetector, resourceFromAttributes } from "@opentelemetry/resources";
import { BasicTracerProvider, BatchSpanProcessor, type SpanProcessor } from "@opentelemetry/sdk-trace-base";
import type { TelemetryConfig } from "../config/telemetry";
import { capped, MAX_LABEL_CHARS, type ServedNames } from "./labels";
import { startMetrics } from "./metrics";
import { serverSpans } from "./server-spans";
import type {
  AttemptOutcome,
  NetworkTransport,
  RunningTelemetry,
  Telemetry,
  TelemetrySources,
} from "./types";
import { type HandlerOwner, wrapHandlers } from "./wrap-handlers";

/**
 * What telemetry takes from the server bundle's copy of the SDK: this file never imports a value
 * from the SDK, which would put a second copy of it into the telemetry bundle (scripts/build.mjs).
 */
export interface ServerSdk {
  Server: HandlerOwner;
  /** The protocol versions the SDK speaks: any other is recorded as one value (labels.ts). */
  protocolVersions: readonly string[];
}

export async function openTelemetry(
  settings: TelemetryConfig,
  sources: TelemetrySources,
  sdk: ServerSdk,
): Promise<{ hooks: Telemetry; running: RunningTelemetry }> {
  const resource = resourceFromAttributes({
    "service.name": "parts-mcp",
    "service.version": sources.version,
  }).merge(detectResources({ detectors: [envDetector] }));
  const contexts = new AsyncLocalStorageContextManager().enable();
  const propagator = new W3CTraceContextPropagator();

  const spanProcessors: SpanProcessor[] = settings.otlpTraces
    ? [new BatchSpanProcessor(new OTLPTraceExporter())]
    : [];
  // Every string attribute of a span (a resource URI, a request id…) is cut to MAX_LABEL_CHARS.
  const tracerProvider = new BasicTracerProvider({
    resource,
    spanProcessors,
    spanLimits: { attributeValueLengthLimit: MAX_LABEL_CHARS },
  });
  const tracer = tracerProvider.getTracer("parts-mcp", sources.version);
  const metrics = await startMetrics(settings, sources, resource);
  const { instruments } = metrics;

  // Every handler is wrapped; those of an instrumented server are traced.
  const traced = serverSpans({
    tracer,
    contexts,
    propagator,
    instruments,
    protocolVersions: sdk.protocolVersions,
  });
  const instrumented = new WeakMap<object, { transport: NetworkTransport; served: ServedNames }>();
  const restoreHandlers = wrapHandlers(sdk.Server, (server, method, handler) => {
    const how = instrumented.get(server);
    return how ? traced(method, handler, how.transport, how.served) : handler;
  });

  const hooks: Telemetry = {
    instrument(server, transport, served) {
      instrumented.set(server.server, { transport, served });
    },
    attempt(request, endpoint, origin, attempt) {
      const url = new URL(request.path, origin);
      const attributes: Attributes = {
        "http.request.method": request.method,
        "server.address": url.hostname,
        "server.port": Number(url.port || (url.protocol === "https:" ? 443 : 80)),
        "url.template": endpoint,
      };
      const metricAttributes: Attributes = { ...attributes };
      url.search = "";
      attributes["url.full"] = url.href;
      if (attempt > 1) {
        attributes["http.request.resend_count"] = attempt - 1;
        instruments.retries.add(1, { "http.request.method": request.method, "url.template": endpoint });
      }
      const span = tracer.startSpan(
        `${request.method} ${endpoint}`,
        { kind: SpanKind.CLIENT, attributes },
        contexts.active(),
      );
      const headers = { ...request.headers };
      propagator.inject(trace.setSpan(contexts.active(), span), headers, {
        set: (carrier, key, value) => {
          carrier[key] = value;
        },
      });
      const started = performance.now();
      return {
        request: { ...request, headers },
        end(outcome: AttemptOutcome) {
          if ("status" in outcome) {
            span.setAttribute("http.response.status_code", outcome.status);
            metricAttributes["http.response.status_code"] = outcome.status;
            if (outcome.status >= 400) {
              span.setAttribute("error.type", String(outcome.status));
              metricAttributes["error.type"] = String(outcome.status);
              span.setStatus({ code: SpanStatusCode.ERROR });
            }
          } else {
            span.setAttribute("error.type", outcome.failure);
            metricAttributes["error.type"] = outcome.failure;
            span.setStatus({ code: SpanStatusCode.ERROR, message: outcome.failure });
          }
          span.end();
          instruments.upstreamDuration.record((performance.now() - started) / 1000, metricAttributes);
        },
      };
    },
    cacheLookup(key, hit) {
      // `process:ti64`, `standards?governingBody=…`: the kind is the leading word.
      const attributes = { "parts_mcp.reference.kind": capped(/^[a-z_]*/i.exec(key)?.[0] ?? "") };
      (hit ? instruments.cacheHits : instruments.cacheMisses).add(1, attributes);
    },
    shed(reason) {
      instruments.shed.add(1, { "parts_mcp.shed.reason": reason });
    },
    signIn(outcome) {
      instruments.signIns.add(1, { "parts_mcp.sign_in.outcome": outcome });
    },
    logFields() {
      const span: Span | undefined = trace.getSpan(contexts.active());
      if (!span) return undefined;
      const { traceId, spanId } = span.spanContext();
      return { trace_id: traceId, span_id: spanId };
    },
  };

  sources.log("info", "telemetry on", {
    ...(settings.otlpTraces && { traces: "OTLP/HTTP" }),
    ...(settings.otlpMetrics && { metrics: "OTLP/HTTP" }),
    ...(metrics.metricsUrl && { prometheus: metrics.metricsUrl }),
  });

  return {
    hooks,
    running: {
      ...(metrics.metricsUrl && { metricsUrl: metrics.metricsUrl }),
      async shutdown() {
        await Promise.allSettled([tracerProvider.shutdown(), metrics.shutdown()]);
        contexts.disable();
        restoreHandlers();
      },
    },
  };
}
