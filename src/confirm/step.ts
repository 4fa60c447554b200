// Confirmed writes (decisions.md, "Confirming writes"): a tool that declares `confirm`
// (create_part, import_part_file) asks the person first, where the client can be asked. This is
// the one step before such a tool runs:
// - no state, and a client that declared form elicitation: answer `input_required`, with a form
//   that says what will be written and asks `confirm`, and a sealed state (state.ts);
// - a state: it must be this caller's (the codec checked), for this tool and these arguments, and
//   not used before (ledger.ts); then `confirm: true` lets the write run once, and anything else
//   (decline, cancel, no answer) is a normal result saying that nothing was written.
// On 2026-07-28 the client fulfils the form and calls again; on a 2025-era connection that
// declared elicitation, the SDK sends `elicitation/create` and calls the handler again itself, so
// this one step serves both. A client that cannot be asked is never sent `input_required`: the
// tool runs as it always did.

import type { McpServer } from "@modelcontextprotocol/server";
import {
  acceptedContent,
  type CallToolResult,
  CLIENT_CAPABILITIES_META_KEY,
  type ClientCapabilities,
  type InputRequiredResult,
  inputRequired,
  ProtocolError,
  ProtocolErrorCode,
  type ServerContext,
} from "@modelcontextprotocol/server";
import type { ToolContext } from "../../tools/define";
import type { CallOptions } from "../client";
import { tokenKey } from "../data/token-key";
import type { CatalogueEntry } from "../mcp/catalogue";
import { CallerStates, type ConfirmSecrets, type ConfirmState } from "./state";

export interface ConfirmStep {
  states: CallerStates;
  /** What the client declared at `initialize`, on a 2025-era connection (none on stateless HTTP). */
  initializeCapabilities(): ClientCapabilities | undefined;
  /** The form's text: what the call will write, for a tool that declares `confirm`. */
  describe(entry: CatalogueEntry, args: Record<string, unknown>, ctx: ServerContext): Promise<string>;
}

/**
 * The step of one server instance, whose callers all use `token` (undefined: the server's own):
 * its states are bound to a digest of it.
 */
export function confirmStepFor(
  secrets: ConfirmSecrets,
  token: string | undefined,
  server: () => McpServer,
  tools: Omit<ToolContext, "call" | "progress"> & { callOptions(ctx: ServerContext): CallOptions },
): ConfirmStep {
  return {
    states: new CallerStates(secrets, token === undefined ? "own" : tokenKey(token)),
    initializeCapabilities: () => server().server.getClientCapabilities(),
    describe: async ({ tool }, args, ctx) =>
      (await tool.confirm?.(args, { ...tools, call: tools.callOptions(ctx) })) ?? "",
  };
}

/** The key of the one input request, and the form's one field. */
const CONFIRM = "confirm";

/**
 * `input_required` to ask the person, a result saying nothing was written, or undefined to run
 * the tool; throws -32602 for a state that is not this call's or was used before.
 */
export async function confirmWrite(
  step: ConfirmStep,
  entry: CatalogueEntry,
  args: unknown,
  ctx: ServerContext,
): Promise<InputRequiredResult | CallToolResult | undefined> {
  const state = ctx.mcpReq.requestState<ConfirmState>();
  // Most calls are of tools that write nothing: their arguments are read once, by their run.
  if (state === undefined && !entry.tool.confirm) return undefined;
  const parsed = entry.input.safeParse(args ?? {});
  if (state === undefined) {
    // Arguments the tool refuses are reported by its run, as they always were: no question first.
    if (!parsed.success || !canAsk(ctx, step)) return undefined;
    return inputRequired({
      inputRequests: {
        [CONFIRM]: inputRequired.elicit({
          message: await step.describe(entry, parsed.data, ctx),
          requestedSchema: {
            type: "object",
            properties: {
              [CONFIRM]: {
                type: "boolean",
                title: entry.tool.title,
                description: "Yes, write it",
                default: false,
              },
            },
            required: [CONFIRM],
          },
        }),
      },
      requestState: await step.states.seal(entry.tool.name, parsed.data, ctx),
    });
  }
  if (!entry.tool.confirm || !parsed.success || !step.states.fits(state, entry.tool.name, parsed.data)) {
    throw stale("it was made for another tool or other arguments");
  }
  if (!(await step.states.use(state))) throw stale("it was already answered");
  if (acceptedContent(ctx.mcpReq.inputResponses, CONFIRM)?.[CONFIRM] === true) return undefined;
  return notWritten(ctx.mcpReq.inputResponses?.[CONFIRM]);
}

/** Whether the request's client declared form elicitation (an empty `elicitation` means form). */
function canAsk(ctx: ServerContext, step: ConfirmStep): boolean {
  // A 2026-07-28 request carries its client's capabilities; a 2025-era one does not.
  // (The SDK's declared type of the envelope names none of its keys.)
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  const capabilities = envelope
    ? (envelope[CLIENT_CAPABILITIES_META_KEY] as ClientCapabilities | undefined)
    : step.initializeCapabilities();
  const elicitation = capabilities?.elicitation;
  return elicitation !== undefined && (elicitation.form !== undefined || elicitation.url === undefined);
}

function notWritten(answer: unknown): CallToolResult {
  const action = (answer as { action?: unknown } | undefined)?.action;
  const why =
    action === "decline"
      ? "the person declined"
      : action === "cancel"
        ? "the person dismissed the question"
        : "the person did not confirm";
  const data = { notWritten: `Nothing was written: ${why}. Do not repeat the call unless they ask for it.` };
  return { content: [{ type: "text", text: JSON.stringify(data) }], structuredContent: data };
}

/** The SDK's own words for a state it refuses, with why, so a client knows to call afresh. */
const stale = (why: string) =>
  new ProtocolError(
    ProtocolErrorCode.InvalidParams,
    `Invalid or expired requestState: ${why}. Call the tool again to ask the person again.`,
    { reason: "invalid_request_state" },
  );
