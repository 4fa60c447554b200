// Checks a JSON-RPC request before the SDK parses it, for both transports, where the SDK would
// answer badly: a tools/call whose arguments carry a "__proto__" key (the SDK's parsing drops the
// key, so the tool's strict schema never sees it; refused here as that schema refuses any unknown
// key), and parameters of the wrong type (the SDK answers with a raw schema dump, and for a
// resources/read without a uri -32603, an internal error; here -32602 naming the field). It also
// bounds what a client can make the server repeat or send on: a progress token is echoed in every
// progress notification, so only a short, visible one is taken; prompt arguments are capped and
// must be valid Unicode. Its refusals pass the one text gate like every other answer.

import { gateValue, isVisible } from "../text/gate";
import { argumentsRefusal } from "./messages";

/** The longest progress token echoed; a longer one is refused. */
export const MAX_PROGRESS_TOKEN_CHARS = 256;
/** The longest value of any prompt argument (each prompt caps its own further: ids at 200). */
export const MAX_PROMPT_ARGUMENT_CHARS = 4_000;

/** Whether a progress token may be echoed as the client sent it: a number or a short visible string. */
export function echoableProgressToken(token: unknown): token is string | number {
  if (typeof token === "number") return Number.isFinite(token);
  return typeof token === "string" && token.length <= MAX_PROGRESS_TOKEN_CHARS && isVisible(token);
}

type Id = string | number;

/** The answer to send instead of serving `message`, or undefined to serve it. */
export function refusalFor(message: unknown): object | undefined {
  const request = message as { id?: unknown; method?: unknown; params?: unknown } | null;
  const id = request?.id;
  if (typeof id !== "string" && typeof id !== "number") return undefined;
  const params = record(request?.params);
  if (request?.method === "tools/call" && hasOwn(params?.arguments, "__proto__")) {
    const text = argumentsRefusal(String(params?.name), 'arguments: Unrecognized key: "__proto__"');
    return { jsonrpc: "2.0", id, result: { content: [{ type: "text", text }], isError: true } };
  }
  const problem = metaProblem(params) ?? paramProblem(request?.method, params);
  return problem ? gateValue(invalidParams(id, problem)) : undefined;
}

function metaProblem(params: Record<string, unknown> | undefined): string | undefined {
  const meta = record(params?._meta);
  if (!meta || !("progressToken" in meta) || echoableProgressToken(meta.progressToken)) return undefined;
  return `_meta.progressToken must be a number or a string of at most ${MAX_PROGRESS_TOKEN_CHARS} visible characters (it is repeated in every progress notification); send a shorter token`;
}

function paramProblem(method: unknown, params: Record<string, unknown> | undefined): string | undefined {
  if (method === "prompts/get") return promptProblem(params);
  if (method === "tools/call") {
    if (typeof params?.name !== "string") return "name must be a string (a tool name from tools/list)";
    const args = params.arguments;
    if (args !== undefined && (record(args) === undefined || Array.isArray(args))) {
      return "arguments must be an object of the tool's arguments";
    }
  }
  if (method === "resources/read" && typeof params?.uri !== "string") {
    return "uri must be a string (an address from resources/list or resources/templates/list)";
  }
  if (method === "completion/complete") return completionProblem(params);
  return undefined;
}

function promptProblem(params: Record<string, unknown> | undefined): string | undefined {
  if (typeof params?.name !== "string") return "name must be a string (a prompt name from prompts/list)";
  if (params.arguments !== undefined && (!record(params.arguments) || Array.isArray(params.arguments))) {
    return "arguments must be an object of the prompt's arguments";
  }
  for (const [name, value] of Object.entries(record(params.arguments) ?? {})) {
    const field = /^[A-Za-z_$][\w$]*$/.test(name)
      ? `arguments.${name}`
      : `arguments[${JSON.stringify(name)}]`;
    if (typeof value !== "string") return `${field} must be a string (prompt arguments are text)`;
    if (value.length > MAX_PROMPT_ARGUMENT_CHARS) {
      return `${field} is ${value.length} characters long; at most ${MAX_PROMPT_ARGUMENT_CHARS} are accepted`;
    }
    if (UNPAIRED_SURROGATE.test(value)) {
      return `${field} contains an unpaired UTF-16 surrogate (broken Unicode); send valid text`;
    }
  }
  return undefined;
}

const UNPAIRED_SURROGATE = /\p{Cs}/u;

const REF_TYPES = { "ref/prompt": "name", "ref/resource": "uri" } as const;

function completionProblem(params: Record<string, unknown> | undefined): string | undefined {
  const ref = record(params?.ref);
  if (!ref)
    return 'ref must be an object: {"type": "ref/prompt", "name": …} or {"type": "ref/resource", "uri": …}';
  const key = REF_TYPES[ref.type as keyof typeof REF_TYPES];
  if (!Object.hasOwn(REF_TYPES, String(ref.type)) || key === undefined) {
    return `ref.type must be "ref/prompt" or "ref/resource", not ${JSON.stringify(ref.type ?? null).slice(0, 60)}`;
  }
  if (typeof ref[key] !== "string") return `ref.${key} must be a string`;
  const argument = record(params?.argument);
  if (!argument)
    return 'argument must be an object: {"name": the argument to complete, "value": what is typed so far}';
  if (typeof argument.name !== "string") return "argument.name must be a string";
  if (typeof argument.value !== "string") return "argument.value must be a string";
  return undefined;
}

const invalidParams = (id: Id, problem: string) => ({
  jsonrpc: "2.0",
  id,
  error: { code: -32602, message: `Invalid params: ${problem}.` },
});

const record = (value: unknown) =>
  typeof value === "object" && value !== null ? (value as Record<string, unknown>) : undefined;

const hasOwn = (value: unknown, key: string) =>
  typeof value === "object" && value !== null && Object.hasOwn(value, key);
