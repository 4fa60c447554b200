// OpenTelemetry for parts-mcp, loaded only when telemetry is on: SERVER spans per MCP request and CLIENT spans per upstream attempt after the semantic conventions, the metrics, OTLP/HTTP and Prometheus export.
import {
  type Attributes,
  type Context,
  type Link,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  type TextMapGetter,
  trace,
} from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { OTLPMetricExporter } from "@opentelemetry/exporter-metrics-otlp-http";
import { PrometheusExporter } from "@opentelemetry/exporter-prometheus";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { detectResources, envDetector, resourceFromAttributes } from "@opentelemetry/resources";
import { type IMetricReader, MeterProvider, PeriodicExportingMetricReader } from "@opentelemetry/sdk-metrics";
import { BasicTracerProvider, BatchSpanProcessor, type SpanProcessor } from "@opentelemetry/sdk-trace-base";
import type { TelemetryConfig } from "../config/telemetry";
import { urlHost } from "../net/hosts";
import { capped, knownVersion, MAX_LABEL_CHARS, type ServedNames, servedOrUnknown } from "./labels";
import { type MetricsServer, serveMetrics } from "./metrics-server";
import type {
  AttemptOutcome,
  NetworkTransport,
  RunningTelemetry,
  Telemetry,
  TelemetrySources,
} from "./types";

/** The semantic conventions' buckets for MCP operation durations, in seconds. */
const MCP_BUCKETS = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300];
/** The HTTP client conventions' buckets, in seconds. */
const HTTP_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10];

type Carrier = Record<string, unknown>;
const carrierGetter: TextMapGetter<Carrier> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => {
    const value = carrier[key];
    return typeof value === "string" ? value : undefined;
  },
};

type Handler = (
  request: { method: string; params?: Record<string, unknown> },
  ctx: HandlerContext,
) => unknown;
/** The SDK's Server class as the server's bundle has it (its prototype is where handlers are set). */
export interface HandlerOwner {
  prototype: { setRequestHandler(method: string, ...rest: unknown[]): void };
}

/**
 * What telemetry takes from the server bundle's copy of the SDK: this file never imports a value
 * from the SDK, which would put a second copy of it into the telemetry bundle (scripts/build.mjs).
 */
export interface ServerSdk {
  Server: HandlerOwner;
  /** The protocol versions the SDK speaks: any other is recorded as one value (labels.ts). */
  protocolVersions: readonly string[];
}

interface HandlerContext {
  sessionId?: string;
  mcpReq?: { id?: string | number; envelope?: Record<string, unknown> };
  http?: { req?: { headers?: Headers } };
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
  const meter = meterProvider.getMeter("parts-mcp", sources.version);

  const operationDuration = meter.createHistogram("mcp.server.operation.duration", {
    unit: "s",
    description: "Duration of the MCP requests this server handled.",
    advice: { explicitBucketBoundaries: MCP_BUCKETS },
  });
  const upstreamDuration = meter.createHistogram("http.client.request.duration", {
    unit: "s",
    description: "Duration of each request to the Parts API (one per attempt), by endpoint and status.",
    advice: { explicitBucketBoundaries: HTTP_BUCKETS },
  });
  const retries = meter.createCounter("parts_mcp.upstream.retries", {
    unit: "{retry}",
    description: "Requests to the Parts API sent again after a failed attempt.",
  });
  const cacheHits = meter.createCounter("parts_mcp.cache.hits", {
    unit: "{lookup}",
    description: "Reference-data lookups answered from the cache.",
  });
  const cacheMisses = meter.createCounter("parts_mcp.cache.misses", {
    unit: "{lookup}",
    description: "Reference-data lookups that asked the Parts API.",
  });
  const inFlight = meter.createUpDownCounter("parts_mcp.calls.in_flight", {
    unit: "{request}",
    description: "MCP requests being handled.",
  });
  const shed = meter.createCounter("parts_mcp.calls.shed", {
    unit: "{request}",
    description:
      "MCP requests refused with 503 (busy, too many connections, draining) or held back by stdio backpressure.",
  });
  const signIns = meter.createCounter("parts_mcp.sign_ins", {
    unit: "{sign_in}",
    description: "Sign-ins through the server's authorization, by outcome.",
  });
  meter
    .createObservableGauge("parts_mcp.search.index.size", {
      unit: "By",
      description: "Bytes held by the search indexes.",
    })
    .addCallback((result) => result.observe(sources.search.bytes));
  meter
    .createObservableGauge("parts_mcp.search.index.parts", {
      unit: "{part}",
      description: "Parts held by the search indexes.",
    })
    .addCallback((result) => result.observe(sources.search.parts));

  /** The parent of a request's span: params._meta first, then the HTTP headers; the other one linked. */
  const parentOf = (
    meta: Carrier | undefined,
    headers: Headers | undefined,
  ): { parent: Context; links: Link[] } => {
    const fromMeta =
      meta && typeof meta.traceparent === "string"
        ? propagator.extract(ROOT_CONTEXT, meta, carrierGetter)
        : undefined;
    const headerCarrier = headers?.get("traceparent")
      ? { traceparent: headers.get("traceparent"), tracestate: headers.get("tracestate") ?? undefined }
      : undefined;
    const fromHeaders = headerCarrier
      ? propagator.extract(ROOT_CONTEXT, headerCarrier, carrierGetter)
      : undefined;
    const metaSpan = fromMeta && trace.getSpanContext(fromMeta);
    const headerSpan = fromHeaders && trace.getSpanContext(fromHeaders);
    if (fromMeta && metaSpan) {
      const links = headerSpan && headerSpan.spanId !== metaSpan.spanId ? [{ context: headerSpan }] : [];
      return { parent: fromMeta, links };
    }
    if (fromHeaders && headerSpan) return { parent: fromHeaders, links: [] };
    return { parent: contexts.active(), links: [] };
  };

  const traced = (
    method: string,
    handler: Handler,
    transport: NetworkTransport,
    served: ServedNames,
  ): Handler => {
    return (request, ctx) => {
      const params = request.params ?? {};
      const attributes: Attributes = { "mcp.method.name": method, "network.transport": transport };
      if (transport === "tcp") attributes["network.protocol.name"] = "http";
      let target = "";
      if (method === "tools/call") {
        target = servedOrUnknown(params.name, served.tool);
        attributes["gen_ai.tool.name"] = target;
        attributes["gen_ai.operation.name"] = "execute_tool";
      } else if (method === "prompts/get") {
        target = servedOrUnknown(params.name, served.prompt);
        attributes["gen_ai.prompt.name"] = target;
      } else if (method.startsWith("resources/") && typeof params.uri === "string") {
        attributes["mcp.resource.uri"] = params.uri;
      }
      const metricAttributes: Attributes = { ...attributes };
      delete metricAttributes["mcp.resource.uri"];
      const id = ctx.mcpReq?.id;
      if (id !== undefined && id !== null) attributes["jsonrpc.request.id"] = String(id);
      if (ctx.sessionId) attributes["mcp.session.id"] = ctx.sessionId;
      const headers = ctx.http?.req?.headers;
      const version =
        ctx.mcpReq?.envelope?.["io.modelcontextprotocol/protocolVersion"] ??
        headers?.get("mcp-protocol-version");
      if (typeof version === "string") {
        attributes["mcp.protocol.version"] = knownVersion(version, sdk.protocolVersions);
        metricAttributes["mcp.protocol.version"] = knownVersion(version, sdk.protocolVersions);
      }
      const { parent, links } = parentOf(params._meta as Carrier | undefined, headers);
      const span = tracer.startSpan(
        target ? `${method} ${target}` : method,
        { kind: SpanKind.SERVER, attributes, links },
        parent,
      );
      const started = performance.now();
      inFlight.add(1, { "mcp.method.name": method });
      const finish = (errorType?: string, message?: string, code?: string) => {
        inFlight.add(-1, { "mcp.method.name": method });
        if (errorType !== undefined) {
          span.setAttribute("error.type", errorType);
          metricAttributes["error.type"] = errorType;
          if (code !== undefined) {
            span.setAttribute("rpc.response.status_code", code);
            metricAttributes["rpc.response.status_code"] = code;
          }
          span.setStatus({
            code: SpanStatusCode.ERROR,
            ...(message !== undefined && { message: capped(message) }),
          });
        }
        span.end();
        operationDuration.record((performance.now() - started) / 1000, metricAttributes);
      };
      return contexts.with(trace.setSpan(parent, span), async () => {
        try {
          const result = await handler(request, ctx);
          const isError = (result as { isError?: unknown } | undefined)?.isError === true;
          finish(method === "tools/call" && isError ? "tool_error" : undefined);
          return result;
        } catch (error) {
          const raw = (error as { code?: unknown } | null)?.code;
          const code = String(typeof raw === "number" && Number.isSafeInteger(raw) ? raw : -32603);
          finish(code, (error as Error | null)?.message, code);
          throw error;
        }
      });
    };
  };

  // The SDK has no public hook around its request handlers, and the servers set theirs as they are
  // built (some in the SDK's constructors): from here on, every handler any Server sets is wrapped
  // by its public setRequestHandler, and traced when its server was instrumented.
  const instrumented = new WeakMap<object, { transport: NetworkTransport; served: ServedNames }>();
  const set = sdk.Server.prototype.setRequestHandler;
  const setTraced = function (this: object, method: string, ...rest: unknown[]) {
    const handler = rest[0];
    if (rest.length !== 1 || typeof handler !== "function") return set.call(this, method, ...rest);
    return set.call(this, method, (request: Parameters<Handler>[0], ctx: HandlerContext) => {
      const how = instrumented.get(this);
      return how
        ? traced(method, handler as Handler, how.transport, how.served)(request, ctx)
        : (handler as Handler)(request, ctx);
    });
  };
  sdk.Server.prototype.setRequestHandler = setTraced;

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
        retries.add(1, { "http.request.method": request.method, "url.template": endpoint });
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
          upstreamDuration.record((performance.now() - started) / 1000, metricAttributes);
        },
      };
    },
    cacheLookup(key, hit) {
      // `process:ti64`, `standards?governingBody=…`: the kind is the leading word.
      const attributes = { "parts_mcp.reference.kind": capped(/^[a-z_]*/i.exec(key)?.[0] ?? "") };
      (hit ? cacheHits : cacheMisses).add(1, attributes);
    },
    shed(reason) {
      shed.add(1, { "parts_mcp.shed.reason": reason });
    },
    signIn(outcome) {
      signIns.add(1, { "parts_mcp.sign_in.outcome": outcome });
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
    ...(metricsUrl && { prometheus: metricsUrl }),
  });

  return {
    hooks,
    running: {
      ...(metricsUrl && { metricsUrl }),
      async shutdown() {
        await Promise.allSettled([
          tracerProvider.shutdown(),
          meterProvider.shutdown(),
          metricsServer?.close(),
        ]);
        contexts.disable();
        // Servers built from now on set their handlers as the SDK does.
        if (sdk.Server.prototype.setRequestHandler === setTraced)
          sdk.Server.prototype.setRequestHandler = set;
      },
    },
  };
}
