// The one tools/call loop: the tool looked up in the catalogue, its arguments checked before any
// request, its handler run with the call's deadline, cancellation and progress (sent only for a
// progress token the server echoes, merged and capped), what it names recorded for completions,
// and every failure turned into a tool result in words (with the closest known records for a
// code the API did not know).
import {
  type CallToolResult,
  type McpServer,
  ProtocolError,
  ProtocolErrorCode,
  type ServerContext,
} from "@modelcontextprotocol/server";
import type { ToolContext, ToolDefinition } from "../../tools/define";
import { resourceUri } from "../api/kinds";
import { type CallOptions, PartsApiError } from "../client";
import { type ConfirmStep, confirmWrite } from "../confirm/step";
import { SearchRefusal } from "../search";
import type { CatalogueEntry } from "./catalogue";
import { echoableProgressToken } from "./message-guard";
import { gate, invalidArgumentsMessage } from "./messages";
import type { RequestScope, ServerOptions, ToolOutcome } from "./scope";

/** The `run` of a server's scope: one tool run. */
export function toolRunner(options: ServerOptions, scope: Omit<RequestScope, "run">): RequestScope["run"] {
  return (entry, args, ctx) => runTool(options, scope, entry, args, ctx);
}

async function runTool(
  options: ServerOptions,
  scope: Omit<RequestScope, "run">,
  { tool, input }: CatalogueEntry,
  args: unknown,
  ctx: ServerContext,
): Promise<ToolOutcome> {
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
    const closest = await suggestionsFor(tool, parsed.data, error, scope, call);
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
}

/** How much of a client-chosen name an error repeats: enough to recognise it, never a flood. */
const ECHOED_NAME_CHARS = 64;

function echoed(name: string): string {
  return name.length > ECHOED_NAME_CHARS ? `${name.slice(0, ECHOED_NAME_CHARS)}…` : name;
}

/**
 * Answers tools/list and tools/call from the catalogue, each call through `scope.run`, a write
 * first asking the person to confirm where the client can (`confirm`, src/confirm/).
 */
export function registerTools(server: McpServer, scope: RequestScope, confirm?: ConfirmStep): void {
  const { catalogue } = scope;
  server.server.setRequestHandler("tools/list", () => ({ tools: [...catalogue.advertised] }));
  server.server.setRequestHandler("tools/call", async (request, ctx) => {
    const entry = catalogue.get(request.params.name);
    if (!entry) {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `Unknown tool ${echoed(request.params.name)}. Available: ${catalogue.tools.map((tool) => tool.name).join(", ")}`,
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
        { type: "text", text: entry.tool.text ? entry.tool.text(data) : JSON.stringify(data) },
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
  scope: Pick<RequestScope, "suggest">,
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
    unknown.slice(0, MAX_SUGGESTIONS).map(({ kind, value }) => scope.suggest(kind, value, call)),
  );
  return hints.filter(Boolean).join(" ");
}

const failure = (text: string): CallToolResult => ({ content: [{ type: "text", text }], isError: true });

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
