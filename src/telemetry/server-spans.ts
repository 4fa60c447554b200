// SERVER spans and the operation-duration metric around an MCP request handler, after the semantic
// conventions: the parent from params._meta or the traceparent header, names and versions recorded
// as labels.ts allows, the JSON-RPC error code of a failure.
import {
  type Attributes,
  type Context,
  type Link,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  type TextMapGetter,
  type TextMapPropagator,
  type Tracer,
  trace,
} from "@opentelemetry/api";
import type { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { capped, knownVersion, type ServedNames, servedOrUnknown } from "./labels";
import type { Instruments } from "./metrics";
import type { NetworkTransport } from "./types";
import type { Handler } from "./wrap-handlers";

type Carrier = Record<string, unknown>;
const carrierGetter: TextMapGetter<Carrier> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => {
    const value = carrier[key];
    return typeof value === "string" ? value : undefined;
  },
};

/** What traced handlers use: telemetry's tracer, contexts and propagator, its instruments, the SDK's versions. */
interface ServerSpanSetup {
  tracer: Tracer;
  contexts: AsyncLocalStorageContextManager;
  propagator: TextMapPropagator;
  instruments: Pick<Instruments, "operationDuration" | "inFlight">;
  protocolVersions: readonly string[];
}

/** Returns `traced`: `handler` of `method`, run in a SERVER span and timed. */
export function serverSpans({
  tracer,
  contexts,
  propagator,
  instruments,
  protocolVersions,
}: ServerSpanSetup) {
  const { operationDuration, inFlight } = instruments;

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

  return (method: string, handler: Handler, transport: NetworkTransport, served: ServedNames): Handler => {
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
        attributes["mcp.protocol.version"] = knownVersion(version, protocolVersions);
        metricAttributes["mcp.protocol.version"] = knownVersion(version, protocolVersions);
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
}
