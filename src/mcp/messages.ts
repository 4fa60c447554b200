// The words for people and models, written once: every failure a tool, resource or prompt can
// meet becomes here, and only here, a message that says what happened and what to do next. The
// client's errors carry facts (src/client/errors.ts); this module turns them into advice that is
// right for the way the server runs (who sets PARTS_API_* settings, where the token comes from).
// Messages name the request (method and path, never a query or a secret), and every message
// leaves through one gate that redacts credential patterns and escapes control characters.
import type { z } from "zod";
import { RESERVED_KEYS } from "../api/schemas";
import { type ContractIssue, PartsApiError } from "../client";
import { editDistance } from "../search/match";
import { escapeInvisible } from "../text/gate";
import { redact } from "../text/redact";

/**
 * How the server runs, which decides who can act on what:
 * - "stdio": the user runs the server, sets its PARTS_API_* settings, and its token is PARTS_API_TOKEN;
 * - "http": an operator runs it for others, with its own PARTS_API_TOKEN (shared key or no access control);
 * - "http-per-user": an operator runs it, and each caller brings a token in the X-Parts-Api-Token header.
 */
export type ServingMode = "stdio" | "http" | "http-per-user";

export interface FailureContext {
  mode: ServingMode;
  /** Where valid ids come from, said on a 404. */
  notFound: string;
  /** The closest known records to a code or id the API did not know ("did you mean …"), on a 400 or 404. */
  suggestions?: string;
  /** Whether repeating the call is harmless; if not, a failure after sending may have had effect. */
  idempotent: boolean;
  /** The deadline of one tool call (PARTS_API_TIMEOUT_MS). */
  timeoutMs: number;
  /** How a part is found with the tools served, for "check before calling again". */
  findPart?: string;
  /** The setting the API's address came from, as the person set it (PARTS_API_SANDBOX_URL, say). */
  urlSetting?: string;
}

/** How a part is found with the tools a server serves (`has`), for "check before calling again". */
export function findPartAdvice(has: (tool: string) => boolean): string {
  if (has("search_parts")) return "search_parts by its title";
  return has("list_parts") ? "with list_parts view IP_OWNER" : "in the Parts API";
}

/** The message of a failed tool call (and of a resource or prompt that could not be read). */
export function toolErrorMessage(error: unknown, context: FailureContext): string {
  if (!(error instanceof PartsApiError)) {
    return gate(
      `Internal error in parts-mcp: ${error instanceof Error ? error.message : String(error)}. This is a bug in the server, not in your request; report it.`,
    );
  }
  return gate(`${explain(error, context)} (${requestLine(error)})`);
}

/** One line for a lookup that failed inside a larger answer, such as describe_part's unresolved. */
export function shortErrorMessage(error: unknown): string {
  if (!(error instanceof PartsApiError)) return gate(error instanceof Error ? error.message : String(error));
  const said = whatWasWrong(error);
  return gate(`${error.status ?? error.kind}${said ? `: ${said}` : ""}`);
}

/** Names each offending argument: `pageSize: Too big: expected number to be <=50`. */
export function invalidArgumentsMessage(tool: string, error: z.ZodError, input?: z.ZodType): string {
  const issues = input ? error.issues.map((issue) => withKnownKeys(issue, input)) : error.issues;
  return argumentsRefusal(tool, describeIssues(issues, { root: "arguments", max: 5 }));
}

/** The refusal of a call's arguments, `problems` naming each (src/mcp/message-guard.ts refuses with it too). */
export function argumentsRefusal(tool: string, problems: string): string {
  return gate(
    `Invalid arguments for ${tool}: ${problems}. No request was sent; correct the arguments and call again.`,
  );
}

type IssueLike = Pick<ContractIssue, "message"> & { path: readonly PropertyKey[] };

/**
 * An unknown argument says what to send instead: the argument it is a slip of (`"materialID"`:
 * did you mean "materialId"?), or else every argument taken there, so that the next call is right
 * without another look at the schema.
 */
function withKnownKeys(issue: z.core.$ZodIssue, input: z.ZodType): IssueLike {
  if (issue.code !== "unrecognized_keys") return issue;
  // A reserved key is refused as such (src/mcp/message-guard.ts words it alike), never taken for a slip.
  const unknown = issue.keys.filter((key) => !RESERVED_KEYS.has(key));
  const known = unknown.length > 0 ? keysAt(input, issue.path) : undefined;
  if (!known) return issue;
  const meant = unknown.map((key) => closestKey(key, known));
  const hint = meant.every((key) => key !== undefined)
    ? `did you mean ${[...new Set(meant)].map((key) => JSON.stringify(key)).join(", ")}?`
    : `accepted: ${known.join(", ")}`;
  return { ...issue, message: `${issue.message} (${hint})` };
}

interface SchemaNode {
  _zod: {
    def: {
      type: string;
      shape?: Record<string, SchemaNode>;
      innerType?: SchemaNode;
      element?: SchemaNode;
      in?: SchemaNode;
    };
  };
}

/** The keys of the object schema at `path` (through optional, default, array, pipe), if it is one. */
function keysAt(schema: z.ZodType, path: readonly PropertyKey[]): string[] | undefined {
  const unwrap = (node: SchemaNode | undefined): SchemaNode | undefined => {
    let current = node;
    while (current) {
      const def: SchemaNode["_zod"]["def"] = current._zod.def;
      const next = def.innerType ?? (def.type === "pipe" ? def.in : undefined);
      if (!next) return current;
      current = next;
    }
    return current;
  };
  let node = unwrap(schema as unknown as SchemaNode);
  for (const key of path) {
    const def = node?._zod.def;
    if (def?.type === "object" && typeof key === "string") node = unwrap(def.shape?.[key]);
    else if (def?.type === "array" && typeof key === "number") node = unwrap(def.element);
    else return undefined;
  }
  const def = node?._zod.def;
  return def?.type === "object" && def.shape ? Object.keys(def.shape) : undefined;
}

/** The known key `key` is a slip of: the same but for case, `_` or `-`, or a typo or two away. */
function closestKey(key: string, known: readonly string[]): string | undefined {
  const plain = (text: string) => text.toLowerCase().replace(/[-_]/g, "");
  const same = known.find((candidate) => plain(candidate) === plain(key));
  if (same) return same;
  const limit = key.length <= 5 ? 1 : 2;
  const near = known.filter((candidate) => editDistance(plain(key), plain(candidate), limit) <= limit);
  return near.length === 1 ? near[0] : undefined;
}

/**
 * `items[3].title: expected string, received number; metadata["a b"]: …` for the first `max`
 * issues of a zod error (or of a contract error's facts). The one formatter of zod issues.
 */
export function describeIssues(
  issues: readonly IssueLike[],
  { max = 3, root = "(root)" }: { max?: number; root?: string } = {},
): string {
  const shown = issues
    .slice(0, max)
    .map((issue) => `${issuePath(issue.path, root)}: ${issue.message.replace(/^Invalid input: /, "")}`);
  const more = issues.length > max ? ` (and ${issues.length - max} more)` : "";
  return `${shown.join("; ")}${more}`;
}

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/** `customFields[0].dropdownId`; a key that is not an identifier is quoted: `metadata["a b"]`. */
function issuePath(path: readonly PropertyKey[], root = "(root)"): string {
  let out = "";
  for (const key of path) {
    if (typeof key === "number") out += `[${key}]`;
    else if (!IDENTIFIER.test(String(key))) out += `[${JSON.stringify(String(key))}]`;
    else out += out === "" ? String(key) : `.${String(key)}`;
  }
  return out || root;
}

/** Everything said to a person or a model passes here: no credential pattern, no control character. */
export function gate(text: string): string {
  return escapeInvisible(redact(text));
}

/** The API's own message, or else the client's account of what was wrong. */
function whatWasWrong(error: PartsApiError): string | undefined {
  if (error.upstreamMessage !== undefined) return error.upstreamMessage;
  if (error.kind === "redirect" || error.kind === "cancelled" || error.kind === "timeout") return undefined;
  if (error.issues?.length) return `${error.detail}: ${describeIssues(error.issues)}`;
  return error.detail;
}

function explain(error: PartsApiError, context: FailureContext): string {
  const detail = whatWasWrong(error);
  const said = detail ? `: ${detail}` : "";
  const attempts = error.attempts > 1 ? ` after ${error.attempts} attempts` : "";
  const effect = context.idempotent
    ? ""
    : mayHaveHappened(error, context.findPart ?? findPartAdvice(() => true));
  switch (error.kind) {
    case "http":
      return explainStatus(error, context, said, attempts, effect);
    case "network":
      return `Could not reach the Parts API${attempts}${said}. ${reachAdvice(context)}${effect}`;
    case "timeout":
      return `The Parts API did not answer within ${seconds(context.timeoutMs)} s${attempts}. Try again; if it keeps happening, ${raise("PARTS_API_TIMEOUT_MS", context.mode)}.${effect}`;
    case "cancelled":
      return `The call was cancelled before the Parts API answered.${effect}`;
    case "contract":
      return `The Parts API sent a response that does not match its specification${said}. The data cannot be trusted, so none is returned; this is a problem on the API's side (or of a proxy in front of it), not of the request.${effect}`;
    case "too_large":
      return `The Parts API's response was too large and was refused${said}. Ask for less (for example a smaller pageSize)${context.mode === "stdio" ? ", or raise PARTS_API_MAX_RESPONSE_BYTES" : ""}.${effect}`;
    case "redirect":
      return `The Parts API answered with a redirect (${error.status}), which is not followed so that the token is never sent elsewhere. ${context.mode === "stdio" ? `Check ${context.urlSetting ?? "PARTS_API_BASE_URL"}.` : "The operator of this parts-mcp server should check its API base URL."}`;
  }
}

/**
 * Whether a failed call that is not idempotent may have taken effect: it reached the API, and
 * the API did not refuse it (a 4xx) before doing anything.
 */
export function mayHaveTakenEffect(error: unknown): boolean {
  if (!(error instanceof PartsApiError) || !error.sent) return false;
  return !(error.kind === "http" && error.status !== undefined && error.status >= 300 && error.status < 500);
}

/** For a call that is not idempotent: what the user must check before calling again. */
function mayHaveHappened(error: PartsApiError, findPart: string): string {
  const check = `check (for a part, ${findPart})`;
  const answeredOk = error.status !== undefined && error.status >= 200 && error.status < 300;
  if (answeredOk) {
    return ` The API answered ${error.status}, so it most likely took effect: ${check} before calling again, or it will be done twice.`;
  }
  if (!error.sent) return " Nothing reached the Parts API, so nothing was done: it is safe to call again.";
  if (!mayHaveTakenEffect(error)) return "";
  const repeated = error.attempts > 1 ? "" : " This call is not idempotent, so it was not repeated:";
  return `${repeated} it may or may not have taken effect, so ${check} before calling again.`;
}

function explainStatus(
  error: PartsApiError,
  context: FailureContext,
  said: string,
  attempts: string,
  effect: string,
): string {
  const status = error.status ?? 0;
  const closest = context.suggestions ? ` ${context.suggestions}` : "";
  if (status === 400 || status === 422)
    return `The Parts API rejected the request${said}. Correct it and call again.${closest}`;
  if (status === 401) return `The Parts API refused the token${said}. ${TOKEN_ADVICE[context.mode]}`;
  if (status === 403) return `The token is not allowed to do this${said}. ${FORBIDDEN_ADVICE[context.mode]}`;
  if (status === 404) return `Not found${said}. ${context.notFound}${closest}`;
  if (status === 409) return `The request conflicts with the current state of the resource${said}.`;
  if (status === 413) return `The request was too large for the Parts API${said}. Send less.`;
  if (status === 429)
    return `The Parts API is rate limiting requests${attempts}${said}. Try again ${when(error)}.`;
  if (status >= 500) {
    return `The Parts API failed with status ${status}${attempts}${said}. The fault is on the API's side; try again ${when(error)}.${effect}`;
  }
  return `The Parts API refused the request with status ${status}${said}.`;
}

const TOKEN_ADVICE: Record<ServingMode, string> = {
  stdio:
    "Set PARTS_API_TOKEN to a valid personal access token for the selected PARTS_API_ENV, then start parts-mcp again.",
  http: "This server's token (PARTS_API_TOKEN) is set by its operator: ask them to set a valid personal access token.",
  "http-per-user": "Send a valid personal access token in the X-Parts-Api-Token header.",
};

const FORBIDDEN_ADVICE: Record<ServingMode, string> = {
  stdio: "Use a token (PARTS_API_TOKEN) with the right permissions.",
  http: "This server's token lacks the permission: ask its operator.",
  "http-per-user": "Send a token with the right permissions in the X-Parts-Api-Token header.",
};

function reachAdvice({ mode, urlSetting = "PARTS_API_BASE_URL" }: FailureContext): string {
  return mode === "stdio"
    ? `Check ${urlSetting} (or PARTS_API_ENV) and the network, then try again.`
    : "Try again later; if it keeps failing, the operator of this parts-mcp server should check its connection to the Parts API.";
}

function raise(setting: string, mode: ServingMode): string {
  return mode === "stdio" ? `raise ${setting}` : `the operator of this parts-mcp server can raise ${setting}`;
}

/** When to try again, from Retry-After: `in 30 s`, `in 15 min`, `in more than an hour`. */
function when(error: Pick<PartsApiError, "retryAfterSeconds">): string {
  const wait = error.retryAfterSeconds;
  if (wait === undefined) return "shortly";
  if (wait <= 0) return "now";
  if (wait <= 300) return `in ${wait} s`;
  if (wait <= 3600) return `in ${Math.ceil(wait / 60)} min`;
  return "in more than an hour";
}

function requestLine(error: PartsApiError): string {
  const outcome = [error.status, error.code].filter((part) => part !== undefined).join(" ");
  return `${error.method} ${error.path}${outcome ? ` → ${outcome}` : ""}`;
}

const seconds = (ms: number) => Math.round(ms / 100) / 10;
