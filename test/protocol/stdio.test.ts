// The stdio process itself: what it says on start-up, that stdout carries only protocol, and that
// it stops cleanly when its client goes away or it is told to.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApi, type TestApi } from "../../src/embedded/testing";
import { mcpJsonEntry, repoRoot, startServer } from "../support/mcp-server";

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api?.close());

/** The server as mcp.json starts it, with `env` added and Node options before mcp.json's. */
function spawnFromMcpJson(env: Record<string, string>, nodeOptions: string[] = []) {
  const entry = mcpJsonEntry();
  return spawn(process.execPath, [...nodeOptions, ...entry.args], {
    cwd: repoRoot,
    env: { PATH: process.env.PATH ?? "", ...entry.env, ...env },
    stdio: ["pipe", "pipe", "pipe"],
  });
}

const initialize = `${JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
})}\n`;

describe("the stdio server", () => {
  it("names its environment and base URL on stderr at start-up, never the token", async () => {
    const server = await startServer({ sharedApi: api });
    try {
      await server.client.listTools();
      expect(server.stderr()).toMatch(/ready on stdio/);
      expect(server.stderr()).toContain(api.url);
      expect(server.stderr()).toMatch(/local/);
      expect(server.stderr()).not.toContain(api.demoToken);
    } finally {
      await server.close();
    }
  });

  it("serves a 2026-07-28 client (server/discover, per-request envelope) from the same process", async () => {
    const server = await startServer({ sharedApi: api, era: "2026" });
    try {
      expect(server.client.getProtocolEra()).toBe("modern");
      const listed = await server.call("list_parts", { pageSize: 1 });
      const part = (listed.structuredContent as { items: { id: string }[] }).items[0];
      const result = await server.call("get_part", { id: part?.id ?? "" });
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toMatchObject({ id: part?.id });
      expect(server.client.getInstructions()).toContain(api.url);
    } finally {
      await server.close();
    }
  });

  it("answers server/discover on a raw pipe, and names the revisions it speaks to an unknown one", async () => {
    const child = spawnFromMcpJson({ PARTS_API_BASE_URL: api.url, PARTS_API_TOKEN: api.demoToken });
    let stdout = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    const envelope = (version: string) => ({
      "io.modelcontextprotocol/protocolVersion": version,
      "io.modelcontextprotocol/clientCapabilities": {},
      "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" },
    });
    child.stdin.write(
      `${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "server/discover", params: { _meta: envelope("2026-07-28") } })}\n`,
    );
    child.stdin.write(
      `${JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list", params: { _meta: envelope("2099-01-01") } })}\n`,
    );
    while (stdout.split("\n").filter(Boolean).length < 2) await once(child.stdout, "data");
    child.stdin.end();
    await once(child, "exit");
    const answers = stdout
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line));
    const discover = answers.find((answer) => answer.id === 1);
    const unknown = answers.find((answer) => answer.id === 2);
    expect(discover.result.supportedVersions).toContain("2026-07-28");
    expect(discover.result).toMatchObject({ ttlMs: 3_600_000, cacheScope: "public" });
    expect(discover.result.instructions).toContain(api.url);
    expect(unknown.error).toMatchObject({
      code: -32022,
      data: { supported: ["2026-07-28"], requested: "2099-01-01" },
    });
  });

  it("reads its search settings: a search reads at most PARTS_MCP_SEARCH_PAGES_PER_CALL pages a call", async () => {
    const server = await startServer({ sharedApi: api, env: { PARTS_MCP_SEARCH_PAGES_PER_CALL: "2" } });
    try {
      const first = (await server.call("search_parts", { text: "no such word anywhere" }))
        .structuredContent as {
        scanned: number;
        complete: boolean;
        nextCursor?: string;
      };
      expect(first).toMatchObject({ scanned: 100, complete: false });
      expect(first.nextCursor).toBeTruthy();
    } finally {
      await server.close();
    }
  });

  it("says in its instructions that it is connected to sample data", async () => {
    const server = await startServer({ env: { PARTS_API_BASE_URL: "", PARTS_API_TOKEN: "" } });
    try {
      expect(server.client.getInstructions()).toMatch(/embedded sample API/);
      expect(server.client.getInstructions()).toMatch(/describe_part/);
    } finally {
      await server.close();
    }
  });

  it("writes only JSON-RPC to stdout, and exits 0 when stdin closes", async () => {
    const child = spawnFromMcpJson({
      PARTS_API_BASE_URL: api.url,
      PARTS_API_TOKEN: api.demoToken,
      PARTS_MCP_LOG_LEVEL: "debug",
    });
    let stdout = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stdin.write(initialize);
    child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`);
    child.stdin.write(
      `${JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "get_part", arguments: { id: "nope" } } })}\n`,
    );
    while (stdout.split("\n").filter(Boolean).length < 2) await once(child.stdout, "data");
    child.stdin.end();
    const [code] = await once(child, "exit");
    expect(code).toBe(0);
    const lines = stdout.split("\n").filter(Boolean);
    for (const line of lines) expect(JSON.parse(line)).toMatchObject({ jsonrpc: "2.0" });
    expect(lines.map((l) => JSON.parse(l).id)).toEqual([1, 2]);
  });

  it("exits 0 on SIGTERM", async () => {
    const child = spawnFromMcpJson({ PARTS_API_BASE_URL: api.url, PARTS_API_TOKEN: api.demoToken });
    child.stdin.write(initialize);
    await once(child.stdout, "data");
    child.kill("SIGTERM");
    const [code] = await once(child, "exit");
    expect(code).toBe(0);
  });

  it("starts its own embedded API when nothing else is configured", async () => {
    const child = spawnFromMcpJson({});
    let stdout = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stdin.write(initialize);
    child.stdin.write(
      `${JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "list_standards", arguments: {} } })}\n`,
    );
    while (!stdout.includes('"id":2')) await once(child.stdout, "data");
    child.stdin.end();
    await once(child, "exit");
    const answer = JSON.parse(stdout.split("\n").find((l) => l.includes('"id":2')) ?? "{}");
    expect(answer.result.isError).toBeFalsy();
    expect(answer.result.structuredContent.items.length).toBeGreaterThan(0);
  });

  it("refuses to start with a token but no environment chosen, naming the variable", async () => {
    const child = spawnFromMcpJson({ PARTS_API_ENV: "", PARTS_API_TOKEN: "pat_real_looking_token" });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const [code] = await once(child, "exit");
    expect(code).toBe(2);
    expect(stderr).toMatch(/PARTS_API_ENV/);
    expect(stderr).not.toContain("pat_real_looking_token");
  });
});
