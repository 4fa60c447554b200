// The MCP server factory: one `McpServer` per stdio connection or HTTP request, for either
// protocol era (2025 `initialize` or 2026-07-28 `server/discover`). The tools come from the
// catalogue built once at start-up (catalogue.ts) and are served by one loop (run-tool.ts). The
// `parts://` resources and the prompts read through the same client and cache (scope.ts). One
// instance serves one upstream token.

import { type CacheHint, McpServer } from "@modelcontextprotocol/server";
import { VERSION } from "../app/version";
import { type ConfirmStep, confirmStepFor } from "../confirm/step";
import { telemetry } from "../telemetry";
import { gateServer } from "../text/gate";
import type { Catalogue } from "./catalogue";
import { ICONS } from "./icons";
import { registerPrompts } from "./prompts";
import { answerResourceReads } from "./resource-reads";
import { registerResources, unknownAddress } from "./resources";
import { registerTools, toolRunner } from "./run-tool";
import { type Connection, createScope, type RequestScope, type ServerOptions } from "./scope";
import { registerViews } from "./views";

/**
 * Lists that never change while the server runs, the same for every caller (the selection is the
 * process's): a client may keep them for an hour and share them. Lists and reads of upstream data
 * say so per resource (resources.ts).
 */
const STATIC_LIST: CacheHint = { ttlMs: 3_600_000, cacheScope: "public" };

export function createServer(options: ServerOptions): McpServer {
  const base = createScope(options);
  // The step asks the client through the server, which needs the step to open its states.
  const confirm: ConfirmStep | undefined =
    options.confirm &&
    confirmStepFor(options.confirm, options.token, (): McpServer => server, {
      ...options,
      callOptions: (ctx) => base.callOptions(ctx),
    });
  const server = new McpServer(
    { name: "parts-mcp", title: "Parts and Sourcing", version: VERSION, icons: ICONS },
    {
      // Declared once, here: these lists never change at run time. `logging` is accepted (some
      // clients set a level first) although logs go to stderr, never to the client.
      capabilities: {
        tools: { listChanged: false },
        resources: { listChanged: false },
        prompts: { listChanged: false },
        completions: {},
        logging: {},
      },
      instructions: instructions(options.connection, options.catalogue),
      cacheHints: {
        "tools/list": STATIC_LIST,
        "prompts/list": STATIC_LIST,
        "resources/templates/list": STATIC_LIST,
        "server/discover": STATIC_LIST,
        "resources/list": { ttlMs: options.cacheTtlMs, cacheScope: "private" },
      },
      ...(confirm && { requestState: { verify: confirm.states.open } }),
    },
  );
  // Every result, error and notification this server sends passes the one text gate: here, or
  // as text on our own wires.
  if (!options.wireGates) gateServer(server);
  const scope: RequestScope = { ...base, run: toolRunner(options, base) };
  registerTools(server, scope, confirm);
  const readables = registerResources(server, scope);
  if (options.catalogue.views) readables.push(registerViews(server));
  const addresses = readables.map(({ address }) => address);
  answerResourceReads(server, readables, (uri) => unknownAddress(uri, addresses));
  const prompts = registerPrompts(server, scope);
  telemetry.instrument(server, options.mode === "stdio" ? "pipe" : "tcp", {
    tool: (name) => options.catalogue.has(name),
    prompt: (name) => prompts.has(name),
  });
  return server;
}

function instructions(connection: Connection, tools: Pick<Catalogue, "has">): string {
  const where = connection.embedded
    ? "the embedded sample API (local demo data, not a real service: its parts and RFQs are examples)"
    : `the ${connection.environment} environment of the Parts and Sourcing API at ${connection.baseUrl}`;
  const lines = [
    "Manufacturing parts, their reference data (processes, materials, standards, criticalities, categories), factories and RFQs.",
    `Connected to ${where}.`,
  ];
  if (tools.has("describe_part")) {
    lines.push(
      "To answer questions about a part, start with describe_part: one call returns the part with every reference resolved.",
    );
  }
  if (tools.has("search_parts")) {
    lines.push(
      'Find parts with search_parts: words as people say them ("titanium brackets", "3D printed nylon housings", "flight critical") match a part\'s own text and its material, process, categories, standards and criticalities; filters take codes or lists of codes. Codes of processes, materials, standards, criticalities and categories come from search_reference, from a name, a family or a fragment. An empty result says why.',
    );
  }
  if (tools.has("get_rfq") || tools.has("get_factory")) {
    lines.push(
      "RFQs and factories can be read only by id: nothing lists them or leads from a part to its RFQs, so ask the user for the id.",
    );
  }
  lines.push(
    "Not in the API, so say so at once instead of searching: quotes, offers, prices, suppliers and who quoted what (an RFQ's state such as QUOTE_RECEIVED carries none of them), and lists of RFQs or factories.",
  );
  if (tools.has("create_part")) {
    lines.push(
      `Before create_part, find the codes with search_reference${tools.has("preview_part") ? " and check the draft with preview_part" : ""}. create_part and import_part_file are not idempotent: after an unclear failure, check before repeating them.`,
    );
  } else {
    lines.push("This server is read-only: it cannot create parts or import files.");
  }
  lines.push(
    "Reference records are also resources: parts://standards, parts://standards/{code}, parts://processes/{code}, parts://parts/{id} and more.",
  );
  return lines.join("\n");
}
