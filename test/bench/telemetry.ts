// 12. What telemetry costs: parts-mcp with telemetry off (no OTLP endpoint, no metrics port), on (spans and metrics to an OTLP sink in this process, Prometheus /metrics on a port of its own) and, when PARTS_BENCH_TELEMETRY_BASELINE names a build made before the hooks existed, that build: cold start to the first answer and to the first get_part, and per get_part the latency and the server's CPU, interleaved so that all see the same machine.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { EmbeddedApi } from "../../src/embedded";
import { coldStartOnce } from "./coldstart";
import { cpuMs, externalApiEnv, ms, oursSpec, type Report, round, summarize, times } from "./lib";
import { RpcSession, type ServerSpec } from "./rpc";

const SPAWNS = 12;
const WARMUP = 1_000;
const CALLS = 1_500;
const ERA = "2025-11-25";

/** An OTLP/HTTP endpoint that takes whatever is sent and answers 200. */
async function otlpSink() {
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => res.writeHead(200, { "content-type": "application/json" }).end("{}"));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export async function benchTelemetry(report: Report, api: EmbeddedApi, partId: string) {
  const sink = await otlpSink();
  const base = externalApiEnv(api);
  const specs: Record<string, ServerSpec> = {
    off: oursSpec(base),
    on: oursSpec({ ...base, OTEL_EXPORTER_OTLP_ENDPOINT: sink.url, PARTS_MCP_METRICS_PORT: "0" }),
  };
  const baseline = process.env.PARTS_BENCH_TELEMETRY_BASELINE;
  if (baseline) specs.before = oursSpec(base, [], baseline);
  const names = Object.keys(specs);
  try {
    const starts = new Map<string, { answer: number[]; tool: number[] }>(
      names.map((n) => [n, { answer: [], tool: [] }]),
    );
    for (const name of names) await coldStartOnce(specs[name] as ServerSpec, ERA, partId);
    for (let i = 0; i < SPAWNS; i++) {
      for (let k = 0; k < names.length; k++) {
        const name = names[(i + k) % names.length] as string;
        const sample = await coldStartOnce(specs[name] as ServerSpec, ERA, partId);
        starts.get(name)?.answer.push(sample.firstAnswerMs);
        starts.get(name)?.tool.push(sample.firstToolMs);
      }
    }

    const sessions = await Promise.all(names.map((name) => RpcSession.start(specs[name] as ServerSpec, ERA)));
    const latency = new Map<string, number[]>(names.map((n) => [n, []]));
    const cpu = new Map<string, number>();
    try {
      for (let i = 0; i < WARMUP; i++)
        for (const session of sessions) await session.call("get_part", { id: partId });
      const cpu0 = sessions.map((session) => cpuMs(session.pid));
      for (let i = 0; i < CALLS; i++) {
        for (let k = 0; k < sessions.length; k++) {
          const index = (i + k) % sessions.length;
          const t0 = performance.now();
          const result = await (sessions[index] as RpcSession).call("get_part", { id: partId });
          if (result.isError) throw new Error(`${names[index]}: get_part failed`);
          latency.get(names[index] as string)?.push(performance.now() - t0);
        }
      }
      sessions.forEach((session, index) => {
        cpu.set(names[index] as string, (cpuMs(session.pid) - (cpu0[index] as number)) / CALLS);
      });
    } finally {
      await Promise.all(sessions.map((session) => session.close()));
    }

    const figures = Object.fromEntries(
      names.map((name) => [
        name,
        {
          firstAnswer: summarize(starts.get(name)?.answer ?? []),
          firstTool: summarize(starts.get(name)?.tool ?? []),
          call: summarize(latency.get(name) ?? []),
          cpuMsPerCall: round(cpu.get(name) ?? 0, 4),
        },
      ]),
    );
    const off = figures.off as (typeof figures)[string];
    const how = `median of ${SPAWNS} spawns and ${CALLS} get_part calls each (after ${WARMUP}), servers taking turns; "on": OTLP/HTTP to a sink in the bench process and Prometheus /metrics on its own port${baseline ? `; "before": ${baseline}` : ""}`;
    for (const name of names.filter((n) => n !== "off")) {
      const other = figures[name] as typeof off;
      report.rows.push(
        {
          section: "12 telemetry",
          name: `spawn → first answer, telemetry ${name} vs off`,
          value: `${ms(other.firstAnswer.median)} vs ${ms(off.firstAnswer.median)}: ${times(other.firstAnswer.median, off.firstAnswer.median)} (first get_part ${ms(other.firstTool.median)} vs ${ms(off.firstTool.median)})`,
          how,
        },
        {
          section: "12 telemetry",
          name: `get_part, telemetry ${name} vs off`,
          value: `${ms(other.call.median)} vs ${ms(off.call.median)}: ${times(other.call.median, off.call.median)}; server CPU ${ms(other.cpuMsPerCall)} vs ${ms(off.cpuMsPerCall)} per call (${times(other.cpuMsPerCall, off.cpuMsPerCall)})`,
          how,
        },
      );
    }
    report.data.telemetry = { spawns: SPAWNS, calls: CALLS, ...(baseline && { baseline }), figures };
  } finally {
    await sink.close();
  }
}
