// 2. Cold start: from spawning `node dist/parts-mcp.js` (as mcp.json does) to the `initialize`
// result, and to the first tool result. The client here is a bare pipe, not the SDK, so that only
// the server's time is counted: the initialize request is written at once (it waits in the pipe
// until the server reads it, as with a real client), the first tool call right after the result.

import { spawn } from "node:child_process";
import type { EmbeddedApi } from "../../src/embedded";
import {
  exited,
  externalApiEnv,
  ms,
  type Report,
  repoRoot,
  serverCommand,
  summarize,
  track,
  withTimeout,
} from "./lib";

export const SPAWNS = 20;

const initialize = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "parts-mcp-bench", version: "1.0.0" },
  },
};

export interface StartSample {
  initializeMs: number;
  firstToolMs: number;
}

/** One spawn: times to the initialize result and to the first get_part result. */
export async function coldStartOnce(
  env: Record<string, string>,
  partId: string,
  nodeArgs: string[] = [],
  script?: string,
  firstCall = true,
): Promise<StartSample> {
  const { command, args, env: baseEnv } = serverCommand();
  const t0 = performance.now();
  const child = track(
    spawn(command, [...nodeArgs, ...(script ? [script] : args)], {
      cwd: repoRoot,
      env: { PATH: process.env.PATH ?? "", ...baseEnv, ...env },
      stdio: ["pipe", "pipe", "pipe"],
    }),
  );
  child.stderr.resume();
  const send = (message: unknown) => child.stdin.write(`${JSON.stringify(message)}\n`);
  send(initialize);
  let initializeMs = 0;
  let buffer = "";
  const done = new Promise<number>((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`server exited (${code}) before answering`)));
    child.stdout.on("data", (chunk: Buffer) => {
      buffer += chunk.toString("utf8");
      for (let nl = buffer.indexOf("\n"); nl !== -1; nl = buffer.indexOf("\n")) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        const message = JSON.parse(line) as { id?: number; result?: { isError?: boolean }; error?: unknown };
        if (message.id === 1) {
          initializeMs = performance.now() - t0;
          if (message.error) reject(new Error(`initialize failed: ${JSON.stringify(message.error)}`));
          if (!firstCall) resolve(initializeMs);
          send({ jsonrpc: "2.0", method: "notifications/initialized" });
          send({
            jsonrpc: "2.0",
            id: 2,
            method: "tools/call",
            params: { name: "get_part", arguments: { id: partId } },
          });
        } else if (message.id === 2) {
          if (message.error || message.result?.isError) reject(new Error(`first call failed: ${line}`));
          resolve(performance.now() - t0);
        }
      }
    });
  });
  try {
    const firstToolMs = await withTimeout(done, 10_000, "cold start");
    return { initializeMs, firstToolMs };
  } finally {
    child.stdin.end();
    await exited(child);
  }
}

export async function coldStarts(
  env: Record<string, string>,
  partId: string,
  count = SPAWNS,
  nodeArgs: string[] = [],
  script?: string,
) {
  await coldStartOnce(env, partId, nodeArgs, script); // warms the file cache, not counted
  const samples: StartSample[] = [];
  for (let i = 0; i < count; i++) samples.push(await coldStartOnce(env, partId, nodeArgs, script));
  return {
    initialize: summarize(samples.map((s) => s.initializeMs)),
    firstTool: summarize(samples.map((s) => s.firstToolMs)),
  };
}

export async function benchColdStart(report: Report, api: EmbeddedApi, partId: string, ownPartId: string) {
  // Alternated spawn by spawn, so that both see the same machine; one unmeasured spawn each first.
  const external = externalApiEnv(api);
  await coldStartOnce({}, ownPartId);
  await coldStartOnce(external, partId);
  const ownSamples: StartSample[] = [];
  const externalSamples: StartSample[] = [];
  for (let i = 0; i < SPAWNS; i++) {
    ownSamples.push(await coldStartOnce({}, ownPartId));
    externalSamples.push(await coldStartOnce(external, partId));
  }
  const summary = (samples: StartSample[]) => ({
    initialize: summarize(samples.map((s) => s.initializeMs)),
    firstTool: summarize(samples.map((s) => s.firstToolMs)),
  });
  const own = summary(ownSamples);
  const externalResult = summary(externalSamples);
  const how = `median of ${SPAWNS} spawns of \`node dist/parts-mcp.js\` (mcp.json env), bare-pipe client, the two kinds alternated, one unmeasured spawn of each first`;
  for (const [label, r] of [
    ["own embedded API", own],
    ["external API", externalResult],
  ] as const) {
    report.rows.push(
      {
        section: "2 cold start",
        name: `spawn → initialize result (${label})`,
        value: `${ms(r.initialize.median)} (p95 ${ms(r.initialize.p95)})`,
        how,
      },
      {
        section: "2 cold start",
        name: `spawn → first get_part result (${label})`,
        value: `${ms(r.firstTool.median)} (p95 ${ms(r.firstTool.p95)})`,
        how,
      },
    );
  }
  report.data.coldStart = { ownEmbeddedApi: own, externalApi: externalResult };
  return { own, external: externalResult };
}
