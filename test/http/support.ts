// Starts `parts-mcp --http` the way an operator does: the built dist/parts-mcp.js with mcp.json's
// environment, an ephemeral port read back from the ready line on stderr, and an embedded API
// that the test owns. Every byte the server writes to stderr also lands in .test-logs/ for the
// suite-wide secret scan.
import { type ChildProcess, spawn } from "node:child_process";
import { appendFileSync, mkdirSync } from "node:fs";
import { request as httpRequest, type IncomingHttpHeaders } from "node:http";
import { join } from "node:path";
import { type CallToolResult, Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import type { TestApi } from "../../src/embedded/testing";
import { mcpJsonEntry, mcpJsonEnv, repoRoot, serverLogDir } from "../support/mcp-server";

export interface HttpServerProcess {
  /** The MCP endpoint, http://127.0.0.1:<port>/mcp. */
  url: string;
  child: ChildProcess;
  stderr(): string;
  /** Resolves with the exit code once the process has exited. */
  exited: Promise<number | null>;
  /** SIGTERM, then the exit code. */
  stop(): Promise<number | null>;
}

export interface SpawnOptions {
  api: TestApi;
  args?: string[];
  env?: Record<string, string>;
}

function logFile(): string {
  mkdirSync(serverLogDir, { recursive: true });
  return join(serverLogDir, `http-${process.pid}-${Date.now()}-${Math.random().toString(36).slice(2)}.log`);
}

function spawnProcess({ api, args = [], env = {} }: SpawnOptions) {
  const entry = mcpJsonEntry();
  const child = spawn(process.execPath, [...entry.args, ...args], {
    cwd: repoRoot,
    env: mcpJsonEnv(api, { PARTS_MCP_LOG_LEVEL: "debug", ...env }),
    stdio: ["ignore", "ignore", "pipe"],
  });
  const file = logFile();
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
    appendFileSync(file, chunk);
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return { child, stderr: () => stderr, exited };
}

/** Starts `parts-mcp --http --port 0 ...args` and waits for its ready line. */
export async function spawnHttpServer(options: SpawnOptions): Promise<HttpServerProcess> {
  const { child, stderr, exited } = spawnProcess({
    ...options,
    args: ["--http", "--port", "0", ...(options.args ?? [])],
  });
  const url = await new Promise<string>((resolve, reject) => {
    const onData = () => {
      const match = /"url":"(http:\/\/[^"]+)"/.exec(stderr());
      if (match) {
        child.stderr?.off("data", onData);
        resolve(match[1] as string);
      }
    };
    child.stderr?.on("data", onData);
    void exited.then((code) =>
      reject(new Error(`the server exited (${code}) before it was ready:\n${stderr()}`)),
    );
  });
  return {
    url,
    child,
    stderr,
    exited,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      return exited;
    },
  };
}

/** Runs `parts-mcp ...args` expecting it to refuse to start: its exit code and stderr. */
export async function spawnRefused(options: SpawnOptions): Promise<{ code: number | null; stderr: string }> {
  const { child, stderr, exited } = spawnProcess(options);
  const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
  const code = await exited;
  clearTimeout(timer);
  return { code, stderr: stderr() };
}

/** An SDK client connected over Streamable HTTP, sending `headers` with every request. */
/** An SDK client over HTTP, speaking 2025 (`initialize`, the default) or 2026-07-28. */
export async function connect(
  url: string,
  headers: Record<string, string> = {},
  era: "2025" | "2026" = "2025",
): Promise<Client> {
  const client = new Client(
    { name: "parts-mcp-http-tests", version: "1.0.0" },
    era === "2026" ? { versionNegotiation: { mode: { pin: "2026-07-28" } } } : {},
  );
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  return client;
}

export async function call(client: Client, name: string, args: Record<string, unknown> = {}) {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

/** The structured result of a successful call. */
export function ok<T = Record<string, unknown>>(result: CallToolResult): T {
  if (result.isError) {
    throw new Error(`tool failed: ${result.content.map((c) => (c.type === "text" ? c.text : "")).join("")}`);
  }
  return result.structuredContent as T;
}

export interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  /** The header names and values as sent, in order, repeated names included. */
  rawHeaders: string[];
  body: string;
}

/** One HTTP request with exactly these headers (Host included), on a connection of its own. */
export function raw(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string | Buffer } = {},
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url,
      { method: options.method ?? "POST", headers: options.headers, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            rawHeaders: res.rawHeaders,
            body: Buffer.concat(chunks).toString(),
          }),
        );
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(options.body);
  });
}

/** The JSON-RPC message of a response, sent as plain JSON or as the SSE stream's last message. */
// biome-ignore lint/suspicious/noExplicitAny: a JSON-RPC body whose shape each test asserts
type Json = any;

export function rpcBody(res: RawResponse): { id?: unknown; result?: Json; error?: Json } {
  if (!String(res.headers["content-type"]).startsWith("text/event-stream")) return JSON.parse(res.body);
  const data = res.body
    .split("\n")
    .filter((line) => line.startsWith("data:"))
    .map((line) => line.slice(5).trim());
  return JSON.parse(data.at(-1) ?? "null");
}

export const MCP_HEADERS = {
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
  "mcp-protocol-version": "2025-06-18",
};

/** A JSON-RPC tools/call body. */
export function toolCall(name: string, args: Record<string, unknown> = {}, id = 1): string {
  return JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } });
}

export const initializeBody = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
});
