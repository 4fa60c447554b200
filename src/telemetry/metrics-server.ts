// The /metrics port: Prometheus text from the Prometheus reader's collection, served by our own
// node:http server rather than the exporter's, so that a collection or serialisation that fails
// answers 500 and is logged instead of rejecting a promise nobody handles (which ends the process).
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { type PrometheusExporter, PrometheusSerializer } from "@opentelemetry/exporter-prometheus";

const METRICS_PATH = "/metrics";

export interface MetricsServer {
  /** The port it listens on (the one asked for, or the one given for port 0). */
  port: number;
  close(): Promise<void>;
}

type Log = (level: "info" | "warn", msg: string, fields?: Record<string, unknown>) => void;

/** Serves `reader`'s metrics at http://host:port/metrics; rejects with the listen error (EADDRINUSE…). */
export async function serveMetrics(
  reader: PrometheusExporter,
  address: { host: string; port: number },
  log: Log,
): Promise<MetricsServer> {
  const serializer = new PrometheusSerializer();
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? "/").split("?", 1)[0];
    if (path !== METRICS_PATH || (req.method !== "GET" && req.method !== "HEAD")) {
      res.writeHead(path === METRICS_PATH ? 405 : 404).end();
      return;
    }
    scrape(reader, serializer, log).then(
      (body) => res.writeHead(200, { "Content-Type": "text/plain; version=0.0.4" }).end(body),
      (error: unknown) => {
        log("warn", "metrics could not be collected", { error: String(error).slice(0, 500) });
        res.writeHead(500, { "Content-Type": "text/plain" }).end("# metrics could not be collected\n");
      },
    );
  }).unref();
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen({ host: address.host, port: address.port }, () => {
      server.off("error", reject);
      resolve();
    });
  });
  server.on("error", (error) => log("warn", "the metrics port failed", { error: error.message }));
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** What was collected, as Prometheus text; a failing gauge callback is logged and the rest served. */
async function scrape(
  reader: PrometheusExporter,
  serializer: PrometheusSerializer,
  log: Log,
): Promise<string> {
  const { resourceMetrics, errors } = await reader.collect();
  if (errors.length > 0) log("warn", "some metrics could not be read", { errors: errors.map(String) });
  return serializer.serialize(resourceMetrics);
}
