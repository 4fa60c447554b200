// What the view tests run against: the real server factory with its views, on the embedded
// sample API, reached by a real MCP client (test/support/in-process.ts); and a test host on two
// loopback origins (host page and sandbox proxy on different ports), whose page forwards the
// view's calls to that client.
import {
  createServer as createHttpServer,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from "node:http";
import type { AddressInfo } from "node:net";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { CallToolResult, Tool } from "@modelcontextprotocol/client";
import { build } from "esbuild";
// @ts-expect-error: a plain ESM script without types
import { zodEnglishOnly } from "../../scripts/build-ui.mjs";
import type { TestApi } from "../../src/embedded/testing";
import { connectInProcess, type InProcessServer } from "../support/in-process";

/** The test host's browser code: under ui/, where it is type-checked with the DOM (ui/tsconfig.json). */
const hostSources = join(dirname(fileURLToPath(import.meta.url)), "../../ui/test-host");

export type Parts = InProcessServer;

/** The real server factory in this process (test/support/in-process.ts), views on or off. */
export function startParts(apps: { enabled: boolean }, sharedApi?: TestApi): Promise<Parts> {
  return connectInProcess({ views: apps.enabled, ...(sharedApi && { sharedApi }) });
}

/** The spec's restrictive default CSP for a view that declares no domains. */
const DEFAULT_VIEW_CSP = [
  "default-src 'none'",
  "script-src 'self' 'unsafe-inline'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "media-src 'self' data:",
  "connect-src 'none'",
  "frame-src 'none'",
  "object-src 'none'",
  "base-uri 'self'",
].join("; ");

export interface ViewCase {
  tool: string;
  input: Record<string, unknown>;
  result: CallToolResult;
  theme?: "light" | "dark";
  resultDelayMs?: number;
}

export interface Host {
  /** The host page's URL for a case. */
  open(viewCase: ViewCase): string;
  /** Names of the tools the views called, in order. */
  viewCalls: string[];
  /** What the views told the model (ui/update-model-context). */
  modelContext: unknown[];
  /** How many times the host read the view document from the server. */
  documentReads(): number;
  close(): Promise<void>;
}

/** Bundles the host page and the sandbox proxy for the browser. */
async function bundle(entry: string): Promise<string> {
  const result = await build({
    entryPoints: [join(hostSources, entry)],
    bundle: true,
    write: false,
    format: "iife",
    platform: "browser",
    target: "chrome120",
    minify: true,
    logLevel: "warning",
    plugins: [zodEnglishOnly],
  });
  return result.outputFiles[0]?.text ?? "";
}

function listen(
  handler: (request: IncomingMessage, response: ServerResponse) => void,
): Promise<{ server: Server; origin: string }> {
  const server = createHttpServer(handler);
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () => {
      resolve({ server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
    });
  });
}

async function body(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString("utf8"));
}

export async function startHost(parts: Parts): Promise<Host> {
  const [hostJs, sandboxJs] = await Promise.all([bundle("host.ts"), bundle("sandbox.ts")]);
  const { tools: advertised } = await parts.client.listTools();
  const byName = new Map<string, Tool>(advertised.map((tool) => [tool.name, tool]));
  const cases = new Map<string, ViewCase>();
  const viewCalls: string[] = [];
  const modelContext: unknown[] = [];
  const documents = new Map<string, string>();
  let reads = 0;

  /** The host's cache of view documents: read through the client once per URI. */
  const documentOf = async (tool: Tool): Promise<string> => {
    const uri = (tool._meta?.ui as { resourceUri?: string } | undefined)?.resourceUri;
    if (!uri) throw new Error(`${tool.name} links no view`);
    let html = documents.get(uri);
    if (html === undefined) {
      reads += 1;
      const { contents } = await parts.client.readResource({ uri });
      const [content] = contents;
      if (!content || !("text" in content) || content.mimeType !== "text/html;profile=mcp-app") {
        throw new Error(`${uri} is not an MCP Apps HTML document`);
      }
      html = content.text;
      documents.set(uri, html);
    }
    return html;
  };

  const sandbox = await listen((request, response) => {
    const path = new URL(request.url ?? "/", "http://x").pathname;
    if (path === "/sandbox.html") {
      response.writeHead(200, {
        "content-type": "text/html; charset=utf-8",
        "content-security-policy": DEFAULT_VIEW_CSP,
      });
      response.end(
        '<!doctype html><html><head><meta charset="utf-8"><link rel="icon" href="data:,"><style>html,body{margin:0;height:100%;overflow:hidden}iframe{border:0;width:100%;height:100%;display:block}</style></head><body><script src="/sandbox.js"></script></body></html>',
      );
    } else if (path === "/sandbox.js") {
      response.writeHead(200, { "content-type": "text/javascript" });
      response.end(sandboxJs);
    } else {
      response.writeHead(404).end();
    }
  });

  const host = await listen((request, response) => {
    const url = new URL(request.url ?? "/", "http://x");
    const json = (status: number, value: unknown) => {
      response.writeHead(status, { "content-type": "application/json" });
      response.end(JSON.stringify(value));
    };
    if (url.pathname === "/") {
      response.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      response.end(
        '<!doctype html><html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><link rel="icon" href="data:,"><style>body{margin:0;background:#e9e9e4}#slot{padding:0}#view{display:block;width:100%;height:120px;border:0}</style></head><body><div id="slot"></div><script src="/host.js"></script></body></html>',
      );
    } else if (url.pathname === "/host.js") {
      response.writeHead(200, { "content-type": "text/javascript" });
      response.end(hostJs);
    } else if (url.pathname.startsWith("/case/")) {
      const viewCase = cases.get(url.pathname.slice("/case/".length));
      const tool = viewCase && byName.get(viewCase.tool);
      if (!viewCase || !tool) {
        json(404, { error: "no such case" });
        return;
      }
      documentOf(tool).then(
        (html) =>
          json(200, {
            sandboxUrl: `${sandbox.origin}/sandbox.html?host=${encodeURIComponent(host.origin)}`,
            html,
            input: viewCase.input,
            result: viewCase.result,
            resultDelayMs: viewCase.resultDelayMs,
            hostContext: {
              theme: viewCase.theme ?? "light",
              styles: { variables: { "--font-sans": '"Open Sans", system-ui, sans-serif' } },
              locale: "en-GB",
              timeZone: "UTC",
              toolInfo: { tool },
              displayMode: "inline",
              availableDisplayModes: ["inline"],
              platform: "web",
            },
          }),
        (error: unknown) => json(500, { error: String(error) }),
      );
    } else if (url.pathname === "/rpc" && request.method === "POST") {
      body(request)
        .then(async (message) => {
          const { method, params } = message as { method: string; params: Record<string, unknown> };
          switch (method) {
            case "tools/call":
              viewCalls.push(String(params.name));
              return parts.client.callTool(params as { name: string; arguments?: Record<string, unknown> });
            case "resources/read":
              return parts.client.readResource(params as { uri: string });
            case "ui/update-model-context":
              modelContext.push(params);
              return {};
            default:
              throw new Error(`unsupported ${method}`);
          }
        })
        .then(
          (result) => json(200, { result }),
          (error: unknown) => json(200, { error: error instanceof Error ? error.message : String(error) }),
        );
    } else {
      response.writeHead(404).end();
    }
  });

  let next = 0;
  return {
    open(viewCase) {
      next += 1;
      cases.set(String(next), viewCase);
      return `${host.origin}/?case=${next}`;
    },
    viewCalls,
    modelContext,
    documentReads: () => reads,
    close: async () => {
      await Promise.all(
        [host.server, sandbox.server].map(
          (server) =>
            new Promise<void>((resolve) => {
              server.closeAllConnections();
              server.close(() => resolve());
            }),
        ),
      );
    },
  };
}
