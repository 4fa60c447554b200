// The server from source, in this process, with a real SDK Client in either protocol era:
// 2025 (`initialize`) over the SDK's in-memory linked pair, 2026-07-28 (`server/discover`, the
// per-request envelope) through `createMcpHandler`'s fetch with no socket. The server's own
// client talks real HTTP to an embedded API on 127.0.0.1 that the test owns.

import { appendFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import {
  type CallToolResult,
  Client,
  type ClientCapabilities,
  InMemoryTransport,
  StreamableHTTPClientTransport,
} from "@modelcontextprotocol/client";
import { createMcpHandler } from "@modelcontextprotocol/server";
import type { Part } from "../../src/api/schemas";
import { PartsApiClient } from "../../src/client";
import type { ConfirmSecrets } from "../../src/confirm/state";
import { ReferenceData } from "../../src/data/reference";
import { SeenRecords } from "../../src/data/seen";
import { startTestApi, type TestApi, type TestApiOptions } from "../../src/embedded/testing";
import { createLogger } from "../../src/log/logger";
import { buildCatalogue } from "../../src/mcp/catalogue";
import { createServer } from "../../src/mcp/server";
import { PartSearch } from "../../src/search";
import { tools as allTools } from "../../tools";
import type { ToolDefinition } from "../../tools/define";
import { serverLogDir } from "./mcp-server";

export type Era = "2025" | "2026";
export const ERAS: readonly Era[] = ["2025", "2026"];

export interface InProcessOptions {
  era?: Era;
  tools?: readonly ToolDefinition[];
  api?: TestApiOptions;
  /** Use this API instead of starting one (the caller closes it). */
  sharedApi?: TestApi;
  /** The upstream token; the API's demo token by default. */
  token?: string;
  /** Whether tools link their MCP Apps view (PARTS_MCP_APPS); on by default, as in the product. */
  views?: boolean;
  /** 0 turns the reference cache off, so that upstream behaviour shows. */
  cacheTtlMs?: number;
  /** Reference records the cache holds (PARTS_MCP_CACHE_MAX_ENTRIES); 1,000 by default here. */
  cacheMaxEntries?: number;
  timeoutMs?: number;
  maxRetries?: number;
  /** Pages of list_parts one search call may read (PARTS_MCP_SEARCH_PAGES_PER_CALL). */
  searchPagesPerCall?: number;
  /** Memory for the search indexes of all tokens (PARTS_MCP_SEARCH_INDEX_MB, in bytes). */
  searchIndexBytes?: number;
  /** Writes confirmed by the person where the client can ask (PARTS_MCP_CONFIRM_WRITES=auto); off by default here. */
  confirm?: ConfirmSecrets;
  /** What the client declares (elicitation, say); its handlers are set by `prepare`. */
  clientCapabilities?: ClientCapabilities;
  /** Called with the client before it connects: to set its request handlers. */
  prepare?: (client: Client) => void;
}

export interface InProcessServer {
  client: Client;
  api: TestApi;
  era: Era;
  /** The server's search, to read what its indexes hold. */
  search: PartSearch;
  /** Every log line the server wrote. */
  logs(): string;
  call(name: string, args?: Record<string, unknown>): Promise<CallToolResult>;
  close(): Promise<void>;
}

export async function connectInProcess(options: InProcessOptions = {}): Promise<InProcessServer> {
  const era = options.era ?? "2025";
  const api = options.sharedApi ?? (await startTestApi(options.api));
  const token = options.token ?? api.demoToken;
  let logs = "";
  mkdirSync(serverLogDir, { recursive: true });
  const logFile = join(
    serverLogDir,
    `in-process-${process.pid}-${Date.now()}-${Math.random().toString(36).slice(2)}.log`,
  );
  const logger = createLogger({
    level: "debug",
    secrets: [token],
    write: (line) => {
      logs += `${line}\n`;
      appendFileSync(logFile, `${line}\n`);
    },
  });
  const timeoutMs = options.timeoutMs ?? 10_000;
  const client = new PartsApiClient({
    baseUrl: api.url,
    token,
    timeoutMs,
    attemptTimeoutMs: timeoutMs,
    maxRetries: options.maxRetries ?? 3,
    batchSize: 50,
    maxResponseBytes: 8 * 1024 * 1024,
    backoff: { baseMs: 5, capMs: 20 },
    logger,
  });
  const cacheTtlMs = options.cacheTtlMs ?? 60_000;
  const reference = new ReferenceData(client, token, {
    ttlMs: cacheTtlMs,
    maxEntries: options.cacheMaxEntries ?? 1_000,
  });
  const seen = new SeenRecords(token);
  const search = new PartSearch(client, reference, token, {
    ttlMs: cacheTtlMs,
    seen,
    ...(options.searchPagesPerCall && { pagesPerCall: options.searchPagesPerCall }),
    ...(options.searchIndexBytes && { maxBytes: options.searchIndexBytes }),
  });
  const catalogue = buildCatalogue(options.tools ?? allTools, { views: options.views ?? true });
  const factory = () =>
    createServer({
      api: client,
      reference,
      search,
      seen,
      catalogue,
      connection: { environment: "local", baseUrl: api.url, embedded: true },
      timeoutMs,
      cacheTtlMs,
      logger,
      mode: "stdio",
      ...(options.confirm && { confirm: options.confirm }),
    });

  const mcp = new Client(
    { name: "parts-mcp-tests", version: "1.0.0" },
    {
      ...(era === "2026" && { versionNegotiation: { mode: { pin: "2026-07-28" } } }),
      ...(options.clientCapabilities && { capabilities: options.clientCapabilities }),
    },
  );
  options.prepare?.(mcp);
  let closeServer = async () => {};
  if (era === "2025") {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const server = factory();
    await server.connect(serverSide);
    closeServer = () => server.close();
    await mcp.connect(clientSide);
  } else {
    const handler = createMcpHandler(factory);
    closeServer = () => handler.close();
    await mcp.connect(
      new StreamableHTTPClientTransport(new URL("http://in-process.test/mcp"), {
        fetch: (url, init) => handler.fetch(new Request(url, init)),
      }),
    );
  }
  return {
    client: mcp,
    api,
    era,
    search,
    logs: () => logs,
    call: (name, args = {}) => mcp.callTool({ name, arguments: args }) as Promise<CallToolResult>,
    close: async () => {
      await mcp.close();
      await closeServer();
      await client.close();
      if (!options.sharedApi) await api.close();
    },
  };
}

/** Every part the server's token sees, read page by page with list_parts: a search's ground truth. */
export async function everyVisiblePart(server: InProcessServer): Promise<Part[]> {
  const parts: Part[] = [];
  for (let page = 1; ; page++) {
    const listed = (await server.call("list_parts", { page, pageSize: 50 })).structuredContent as {
      items: Part[];
      hasMore: boolean;
    };
    parts.push(...listed.items);
    if (!listed.hasMore) return parts;
  }
}
