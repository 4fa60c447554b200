// The /metrics port when a scrape fails: a collection that rejects or a serialisation that throws
// answers 500 and is logged, never an unhandled rejection (which would end the process). And what
// telemetry changed in the SDK is put back when it shuts down.
import type { PrometheusExporter } from "@opentelemetry/exporter-prometheus";
import { afterEach, describe, expect, it } from "vitest";
import { type MetricsServer, serveMetrics } from "../../src/telemetry/metrics-server";

let server: MetricsServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function scrapeWith(collect: () => Promise<unknown>) {
  const logged: string[] = [];
  const reader = { collect } as unknown as PrometheusExporter;
  server = await serveMetrics(reader, { host: "127.0.0.1", port: 0 }, (_level, msg) => logged.push(msg));
  const res = await fetch(`http://127.0.0.1:${server.port}/metrics`);
  return { status: res.status, body: await res.text(), logged };
}

describe("a scrape that fails", () => {
  it("answers 500 when the collection rejects", async () => {
    const { status, body, logged } = await scrapeWith(() => Promise.reject(new Error("collection broke")));
    expect(status).toBe(500);
    expect(body).toBe("# metrics could not be collected\n");
    expect(logged).toEqual(["metrics could not be collected"]);
  });

  it("answers 500 when the serialiser throws", async () => {
    // Metrics the serialiser cannot read stand in for a RangeError on a huge body.
    const { status, logged } = await scrapeWith(async () => ({ resourceMetrics: null, errors: [] }));
    expect(status).toBe(500);
    expect(logged).toEqual(["metrics could not be collected"]);
  });

  it("serves what was collected when a gauge's callback failed, and logs the failure", async () => {
    const resourceMetrics = {
      resource: { attributes: {} },
      scopeMetrics: [],
    };
    const { status, logged } = await scrapeWith(async () => ({
      resourceMetrics,
      errors: [new Error("gauge broke")],
    }));
    expect(status).toBe(200);
    expect(logged).toEqual(["some metrics could not be read"]);
  });

  it("answers 404 elsewhere and 405 to other methods", async () => {
    await scrapeWith(() => Promise.reject(new Error("not called")));
    const port = server?.port;
    expect((await fetch(`http://127.0.0.1:${port}/other`)).status).toBe(404);
    expect((await fetch(`http://127.0.0.1:${port}/metrics`, { method: "POST" })).status).toBe(405);
  });
});

describe("telemetry's shutdown", () => {
  it("leaves the SDK's setRequestHandler as it found it", async () => {
    const { openTelemetry } = await import("../../src/telemetry/otel");
    const original = () => undefined;
    const serverClass = { prototype: { setRequestHandler: original } };
    const { running } = await openTelemetry(
      { otlpTraces: false, otlpMetrics: false, metricsHost: "127.0.0.1", exportIntervalMs: 60_000 },
      { search: { bytes: 0, parts: 0 }, version: "test", log: () => {} },
      { Server: serverClass, protocolVersions: [] },
    );
    expect(serverClass.prototype.setRequestHandler).not.toBe(original);
    await running.shutdown();
    expect(serverClass.prototype.setRequestHandler).toBe(original);
  });
});
