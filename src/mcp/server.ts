// The MCP server factory: one `McpServer` per stdio connection or HTTP request, for either
// protocol era (2025 `initialize` or 2026-07-28 `server/discover`). The tools come from the
// catalogue built once at start-up (catalogue.ts) and are served by one loop: arguments validated
// before any request, every failure a tool result. The `parts://` resources and the prompts read
// through the same client and cache. One instance serves one upstream token.

import { setMaxListeners } from "node:events";
import {
  type CacheHint,
  type CallToolResult,
  McpServer,
  ProtocolError,
  ProtocolErrorCode,
  type ServerContext,
} from "@modelcontextprotocol/server";
import type { ResourceRef, ToolContext, ToolDefinition } from "../../tools/define";
import { VERSION } from "../app/version";
import { type CallOptions, createDeadline, type PartsApiClient, PartsApiError } from "../client";
import type { ConfirmSecrets } from "../confirm/state";
import { type ConfirmStep, confirmStepFor, confirmWrite } from "../confirm/step";
import type { ReferenceData, ReferenceKind } from "../data/reference";
import type { SeenRecords } from "../data/seen";
import { collectWhenIdle } from "../idle-gc";
import type { Logger } from "../log/logger";
import { type PartSearch, SearchRefusal, type SuggestKind } from "../search";
import { telemetry } from "../telemetry";
import { gateServer } from "../text/gate";
import type { Catalogue, CatalogueEntry } from "./catalogue";
import { echoableProgressToken } from "./message-guard";
import {
  findPartAdvice,
  gate,
  invalidArgumentsMessage,
  type ServingMode,
  toolErrorMessage,
} from "./messages";
import { registerPrompts } from "./prompts";
import { explainUnknownAddresses, registerResources, resourceUri } from "./resources";
import { registerViews } from "./views";

export interface Connection {
  environment: string;
  baseUrl: string;
  /** True when the upstream is the embedded sample API, not a real service. */
  embedded: boolean;
  /** The setting the base URL came from, to name in advice (PARTS_API_SANDBOX_URL, say). */
  urlSetting?: string;
}

export interface ServerOptions {
  api: PartsApiClient;
  reference: ReferenceData;
  search: PartSearch;
  seen: SeenRecords;
  catalogue: Catalogue;
  connection: Connection;
  timeoutMs: number;
  /** How long reference records are kept (the reference cache's TTL): what resources say of caching. */
  cacheTtlMs: number;
  logger: Logger;
  /** The upstream token of this server's requests, when it is not the client's own (per-user HTTP). */
  token?: string;
  /** How the server is reached, which decides where its upstream token comes from (for messages). */
  mode: ServingMode;
  /**
   * Whether the transport gates the text it writes (src/stdio/wire.ts, src/http/respond.ts), so that
   * the server need not gate each message's values first; a transport of the SDK's does not.
   */
  wireGates?: boolean;
  /** Writes a person confirms first, where the client can ask (src/confirm/); absent: off. */
  confirm?: ConfirmSecrets;
}

/** What tools, resources and prompts share for one request. */
export interface RequestScope {
  api: PartsApiClient;
  reference: ReferenceData;
  seen: SeenRecords;
  catalogue: Catalogue;
  cacheTtlMs: number;
  /** Options for the upstream calls of one request: its cancellation, a fresh deadline, the token. */
  callOptions(ctx?: { mcpReq?: { signal?: AbortSignal } }): CallOptions;
  describeFailure(error: unknown, notFound: string, idempotent?: boolean, suggestions?: string): string;
  /** Codes of a reference kind this token knows without a request (completion offers them). */
  knownCodes(kind: Exclude<ReferenceKind, "standard">, call: CallOptions): Promise<string[]>;
  /** The closest known records to a code or id nobody knows (`"x": did you mean …`), if any. */
  suggest(kind: SuggestKind, unknown: string, call: CallOptions): Promise<string | undefined>;
  /** Runs a tool for the tools/call loop or a resource read: arguments checked, failures in words. */
  run(entry: CatalogueEntry, args: unknown, ctx: ServerContext): Promise<ToolOutcome>;
}

type ToolOutcome =
  | { ok: true; data: Record<string, unknown>; links: readonly ResourceRef[] }
  | { ok: false; message: string; status?: number; invalid?: boolean };

/**
 * Lists that never change while the server runs, the same for every caller (the selection is the
 * process's): a client may keep them for an hour and share them. Lists and reads of upstream data
 * say so per resource (resources.ts).
 */
const STATIC_LIST: CacheHint = { ttlMs: 3_600_000, cacheScope: "public" };

/** Tool runs of each instance not yet returned, and who waits for them all to have returned. */
const running = new WeakMap<McpServer, { count: number; waiting: (() => void)[] }>();

/**
 * Resolves once every tool run of `server` has returned: a run whose request ended (its client
 * gone) may still be unwinding, and must not notify a later request served by the same instance
 * (src/http/server-pool.ts waits for this before it keeps an instance).
 */
export function runsSettled(server: McpServer): Promise<void> {
  const state = running.get(server);
  if (!state || state.count === 0) return Promise.resolve();
  return new Promise((resolve) => state.waiting.push(resolve));
}

export function createServer(options: ServerOptions): McpServer {
  const confirm: ConfirmStep | undefined =
    options.confirm &&
    confirmStepFor(options.confirm, options.token, (): McpServer => server, {
      ...options,
      callOptions: (ctx) => scope.callOptions(ctx),
    });
  const server = new McpServer(
    { name: "parts-mcp", title: "Parts and Sourcing", version: VERSION },
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
  const findPart = findPartAdvice((tool) => options.catalogue.has(tool));
  const scope: RequestScope = {
    api: options.api,
    reference: options.reference,
    seen: options.seen,
    catalogue: options.catalogue,
    cacheTtlMs: options.cacheTtlMs,
    callOptions: (ctx) => {
      const signal = ctx?.mcpReq?.signal;
      // Each upstream request of a call listens to the call's signal while in flight and stops
      // when it ends (the client's tests count them). A call that fans out, such as a preview's
      // lookups with their did-you-means reading pages, passes Node's limit of 10 listeners with
      // no leak, which Node would otherwise log as one.
      if (signal) setMaxListeners(0, signal);
      return {
        deadline: createDeadline(options.timeoutMs),
        ...(signal && { signal }),
        ...(options.token !== undefined && { token: options.token }),
      };
    },
    suggest: (kind, unknown, call) => closestTo(options.search, kind, unknown, call),
    knownCodes: (kind, call) => options.search.knownCodes(kind, call),
    describeFailure: (error, notFound, idempotent = true, suggestions) =>
      toolErrorMessage(error, {
        notFound,
        idempotent,
        ...(suggestions && { suggestions }),
        mode: options.mode,
        timeoutMs: options.timeoutMs,
        findPart,
        ...(options.connection.urlSetting && { urlSetting: options.connection.urlSetting }),
      }),
    run: async (entry, args, ctx) => {
      runs.count++;
      try {
        return await runTool(entry, args, ctx);
      } finally {
        if (--runs.count === 0) for (const settled of runs.waiting.splice(0)) settled();
      }
    },
  };
  const runs = { count: 0, waiting: [] as (() => void)[] };
  running.set(server, runs);
  const runTool: RequestScope["run"] = async ({ tool, input }, args, ctx) => {
    collectWhenIdle();
    const parsed = input.safeParse(args ?? {});
    if (!parsed.success) {
      return { ok: false, invalid: true, message: invalidArgumentsMessage(tool.name, parsed.error, input) };
    }
    const call = scope.callOptions(ctx);
    const { progress, flush } = progressReporter(ctx);
    try {
      const data = await tool
        .handler(parsed.data, {
          api: options.api,
          reference: options.reference,
          search: options.search,
          call,
          ...(progress && { progress }),
        })
        .finally(flush);
      const links = tool.links?.(data) ?? [];
      const mentions = tool.mentions?.(data);
      if (mentions) options.seen.record(mentions, call);
      options.seen.record(links, call);
      return { ok: true, data, links };
    } catch (error) {
      if (error instanceof SearchRefusal) return { ok: false, message: gate(error.message) };
      const status = error instanceof PartsApiError ? error.status : undefined;
      const closest = await suggestionsFor(tool, parsed.data, error, options.search, call);
      // The API names one unknown code at a time; a served tool that prepares this one's calls
      // (preview_part for create_part) checks them all at once.
      const checker =
        status === 400 && closest !== ""
          ? options.catalogue.tools.find((served) => served.requires?.includes(tool.name))
          : undefined;
      const hint = checker ? `${closest} ${checker.name} checks every code of a call at once.` : closest;
      const message = scope.describeFailure(error, tool.notFound, tool.annotations.idempotentHint, hint);
      options.logger.warn("tool call failed", { tool: tool.name, error: message });
      return { ok: false, message, ...(status !== undefined && { status }) };
    }
  };
  registerTools(server, scope, confirm);
  const addresses = registerResources(server, scope);
  if (options.catalogue.views) addresses.push(registerViews(server));
  explainUnknownAddresses(server, addresses);
  const prompts = registerPrompts(server, scope);
  telemetry.instrument(server, options.mode === "stdio" ? "pipe" : "tcp", {
    tool: (name) => options.catalogue.has(name),
    prompt: (name) => prompts.has(name),
  });
  return server;
}

function registerTools(server: McpServer, scope: RequestScope, confirm?: ConfirmStep) {
  const { catalogue } = scope;
  server.server.setRequestHandler("tools/list", () => ({ tools: [...catalogue.advertised] }));
  server.server.setRequestHandler("tools/call", async (request, ctx) => {
    const entry = catalogue.get(request.params.name);
    if (!entry) {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `Unknown tool ${request.params.name}. Available: ${catalogue.tools.map((tool) => tool.name).join(", ")}`,
      );
    }
    const asked = confirm && (await confirmWrite(confirm, entry, request.params.arguments, ctx));
    if (asked) return asked;
    const outcome = await scope.run(entry, request.params.arguments, ctx);
    if (!outcome.ok) return failure(outcome.message);
    const { data, links } = outcome;
    return {
      content: [
        // Invisible controls in it leave as \u escapes, as in every string: the text gate.
        { type: "text", text: JSON.stringify(data) },
        ...links.map(({ kind, id, title }) => ({
          type: "resource_link" as const,
          uri: resourceUri(kind, id),
          name: id,
          ...(title && { title }),
        })),
      ],
      structuredContent: data,
    };
  });
}

/** A failure names at most this many unknown codes with their closest records. */
const MAX_SUGGESTIONS = 5;

/**
 * For a code or id the API did not know (a 404, or a 400 whose message names it): the closest
 * known records, e.g. `"PA-12": did you mean pa12 (PA12)?`. Empty when there is none to offer.
 */
async function suggestionsFor(
  tool: ToolDefinition,
  args: Record<string, unknown>,
  error: unknown,
  search: PartSearch,
  call: CallOptions,
): Promise<string> {
  if (!(error instanceof PartsApiError) || (error.status !== 404 && error.status !== 400)) return "";
  const said = error.upstreamMessage ?? "";
  const unknown = (tool.lookups ?? []).flatMap(({ kind, argument }) =>
    [args[argument]]
      .flat()
      .filter((value): value is string => typeof value === "string")
      .filter((value) => error.status === 404 || said.includes(value))
      .map((value) => ({ kind, value })),
  );
  const hints = await Promise.all(
    unknown.slice(0, MAX_SUGGESTIONS).map(({ kind, value }) => closestTo(search, kind, value, call)),
  );
  return hints.filter(Boolean).join(" ");
}

/** `"PA-12": did you mean pa12 (Polyamide 12 (PA12))?`, or undefined when nothing is close. */
async function closestTo(
  search: PartSearch,
  kind: SuggestKind,
  value: string,
  call: CallOptions,
): Promise<string | undefined> {
  const hint = await search.suggest(kind, value, call);
  return hint ? `"${value}": ${hint}` : undefined;
}

/**
 * Progress notifications one request may send, and how often: with the token's own cap
 * (message-guard.ts), what one request can make the server write, or hold for a client that does
 * not read, stays small. Updates in between are merged into the next; the last always goes.
 */
export const MAX_PROGRESS_NOTIFICATIONS = 100;
const PROGRESS_INTERVAL_MS = 100;

type ProgressUpdate = { progress: number; total?: number; message?: string };

/**
 * A `progress` callback for the handler when the request carries a progress token the server
 * echoes (one that message-guard.ts accepts: transports refuse the others before this), and
 * `flush`, which sends the last update held back, before the answer.
 */
function progressReporter(ctx: ServerContext): Pick<ToolContext, "progress"> & { flush: () => void } {
  const progressToken = ctx.mcpReq._meta?.progressToken;
  if (!echoableProgressToken(progressToken)) return { flush: () => {} };
  let sent = 0;
  let sentAt = Number.NEGATIVE_INFINITY;
  let held: ProgressUpdate | undefined;
  const send = (update: ProgressUpdate) => {
    // A request cancelled, or whose client went away, sends no more progress: nobody reads it.
    if (ctx.mcpReq.signal.aborted) return;
    sent++;
    sentAt = Date.now();
    held = undefined;
    void ctx.mcpReq
      .notify({
        method: "notifications/progress",
        params: {
          progressToken,
          progress: update.progress,
          ...(update.total !== undefined && { total: update.total }),
          ...(update.message !== undefined && { message: update.message }),
        },
      })
      .catch(() => {});
  };
  return {
    progress: (progress, total, message) => {
      held = { progress, ...(total !== undefined && { total }), ...(message !== undefined && { message }) };
      if (sent < MAX_PROGRESS_NOTIFICATIONS - 1 && Date.now() - sentAt >= PROGRESS_INTERVAL_MS) send(held);
    },
    flush: () => {
      if (held && sent < MAX_PROGRESS_NOTIFICATIONS) send(held);
    },
  };
}

const failure = (text: string): CallToolResult => ({ content: [{ type: "text", text }], isError: true });

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
