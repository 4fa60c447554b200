// An OTLP/HTTP receiver on 127.0.0.1 for the telemetry tests: it decodes the JSON the exporters send (spans and metrics) and lets a test wait for what it expects.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

type AnyValue = {
  stringValue?: string;
  intValue?: number | string;
  boolValue?: boolean;
  doubleValue?: number;
};
interface KeyValue {
  key: string;
  value: AnyValue;
}

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  /** OTLP's SpanKind: 2 SERVER, 3 CLIENT. */
  kind: number;
  attributes: Record<string, string | number | boolean | undefined>;
  links: { traceId: string; spanId: string }[];
  status?: { code?: number; message?: string };
}

interface ReceivedMetric {
  name: string;
  unit?: string;
  points: { attributes: Record<string, string | number | boolean | undefined>; value: number }[];
}

export const SERVER = 2;
export const CLIENT = 3;

function plainValue(value: AnyValue): string | number | boolean | undefined {
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  return value.boolValue;
}

const attributesOf = (list: KeyValue[] | undefined) =>
  Object.fromEntries((list ?? []).map(({ key, value }) => [key, plainValue(value)]));

export interface OtlpReceiver {
  /** The base URL, for OTEL_EXPORTER_OTLP_ENDPOINT. */
  url: string;
  spans: ReceivedSpan[];
  metrics: ReceivedMetric[];
  /** Resolves with the spans once `ready` says they are all there (polls; fails after `ms`). */
  waitFor<T>(find: () => T | undefined, ms?: number): Promise<T>;
  close(): Promise<void>;
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const metrics: ReceivedMetric[] = [];
  const server: Server = createServer(async (req, res) => {
    let text = "";
    for await (const chunk of req) text += chunk;
    if (req.headers["content-type"] !== "application/json") {
      res.writeHead(415).end();
      return;
    }
    const body = JSON.parse(text);
    if (req.url === "/v1/traces") {
      for (const resource of body.resourceSpans ?? [])
        for (const scope of resource.scopeSpans ?? [])
          for (const span of scope.spans ?? [])
            spans.push({
              traceId: span.traceId,
              spanId: span.spanId,
              ...(span.parentSpanId && { parentSpanId: span.parentSpanId }),
              name: span.name,
              kind: span.kind,
              attributes: attributesOf(span.attributes),
              links: (span.links ?? []).map((link: { traceId: string; spanId: string }) => ({
                traceId: link.traceId,
                spanId: link.spanId,
              })),
              status: span.status,
            });
    } else if (req.url === "/v1/metrics") {
      for (const resource of body.resourceMetrics ?? [])
        for (const scope of resource.scopeMetrics ?? [])
          for (const metric of scope.metrics ?? []) {
            const data = metric.histogram ?? metric.sum ?? metric.gauge;
            metrics.push({
              name: metric.name,
              unit: metric.unit,
              points: (data?.dataPoints ?? []).map(
                (point: {
                  attributes?: KeyValue[];
                  count?: number | string;
                  asInt?: number | string;
                  asDouble?: number;
                }) => ({
                  attributes: attributesOf(point.attributes),
                  value: Number(point.count ?? point.asInt ?? point.asDouble ?? 0),
                }),
              ),
            });
          }
    }
    res.writeHead(200, { "content-type": "application/json" }).end("{}");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    metrics,
    async waitFor(find, ms = 10_000) {
      const until = Date.now() + ms;
      for (;;) {
        const found = find();
        if (found !== undefined) return found;
        if (Date.now() > until) throw new Error(`not received within ${ms} ms`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** The environment that sends everything to `receiver` at once (short batch and export intervals). */
export function otlpEnv(receiver: OtlpReceiver): Record<string, string> {
  return {
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    OTEL_BSP_SCHEDULE_DELAY: "50",
    OTEL_METRIC_EXPORT_INTERVAL: "200",
  };
}

/** A port free a moment ago on 127.0.0.1. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}
