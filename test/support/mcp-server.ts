// Starts the server the way an MCP client does, from mcp.json, against an embedded API that the
// test owns (so it can count requests and inject faults), and connects an SDK Client over stdio in
// either protocol era. For the smoke tests of the built server; protocol tests run in-process
// (in-process.ts).
import { appendFileSync, mkdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { type CallToolResult, Client, type ClientCapabilities } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { startTestApi, type TestApi, type TestApiOptions } from "../../src/embedded/testing";

export const repoRoot = join(dirname(fileURLToPath(import.meta.url)), "../..");

/** Everything spawned servers write to stderr lands here too, for the suite-wide secret scan. */
export const serverLogDir = join(repoRoot, ".test-logs");

interface McpJson {
  mcpServers: Record<string, { command: string; args: string[]; env: Record<string, string> }>;
}

export function mcpJsonEntry() {
  const entry = (JSON.parse(readFileSync(join(repoRoot, "mcp.json"), "utf8")) as McpJson).mcpServers[
    "parts-mcp"
  ];
  if (!entry) throw new Error("mcp.json has no parts-mcp server");
  return entry;
}

/** The environment mcp.json gives the server, against `api`'s URL and demo token, `env` on top. */
export function mcpJsonEnv(api: { url: string; demoToken: string }, env: Record<string, string> = {}) {
  return {
    PATH: process.env.PATH ?? "",
    ...mcpJsonEntry().env,
    PARTS_API_BASE_URL: api.url,
    PARTS_API_TOKEN: api.demoToken,
    ...env,
  };
}

export interface RunningServer {
  client: Client;
  api: TestApi;
  stderr(): string;
  call(name: string, args?: Record<string, unknown>): Promise<CallToolResult>;
  close(): Promise<void>;
}

export interface StartOptions {
  env?: Record<string, string>;
  api?: TestApiOptions;
  /** Use this API instead of starting one (the caller closes it). */
  sharedApi?: TestApi;
  /** The protocol era the client speaks: 2025 (`initialize`, the default) or 2026-07-28. */
  era?: "2025" | "2026";
  /** What the client declares (elicitation, say); its handlers are set by `prepare`. */
  capabilities?: ClientCapabilities;
  /** Called with the client before it connects: to set its request handlers. */
  prepare?: (client: Client) => void;
}

export async function startServer(options: StartOptions = {}): Promise<RunningServer> {
  const api = options.sharedApi ?? (await startTestApi(options.api));
  const entry = mcpJsonEntry();
  const transport = new StdioClientTransport({
    command: entry.command === "node" ? process.execPath : entry.command,
    args: entry.args,
    cwd: repoRoot,
    env: {
      ...entry.env,
      PARTS_API_BASE_URL: api.url,
      PARTS_API_TOKEN: api.demoToken,
      PARTS_MCP_LOG_LEVEL: "debug",
      ...options.env,
    },
    stderr: "pipe",
  });
  let stderr = "";
  mkdirSync(serverLogDir, { recursive: true });
  const logFile = join(
    serverLogDir,
    `server-${process.pid}-${Date.now()}-${Math.random().toString(36).slice(2)}.log`,
  );
  transport.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
    appendFileSync(logFile, chunk);
  });
  const client = new Client(
    { name: "parts-mcp-tests", version: "1.0.0" },
    {
      ...(options.era === "2026" && { versionNegotiation: { mode: { pin: "2026-07-28" } } }),
      ...(options.capabilities && { capabilities: options.capabilities }),
    },
  );
  options.prepare?.(client);
  await client.connect(transport);
  return {
    client,
    api,
    stderr: () => stderr,
    call: (name, args = {}) => client.callTool({ name, arguments: args }) as Promise<CallToolResult>,
    close: async () => {
      await client.close();
      if (!options.sharedApi) await api.close();
    },
  };
}

export function textOf(result: CallToolResult): string {
  return result.content.map((item) => (item.type === "text" ? item.text : "")).join("");
}
