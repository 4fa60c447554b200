// Checks a JSON-RPC request before the SDK parses it, for both transports, where the SDK would
// answer badly: a tools/call whose arguments carry a "__proto__" key (the SDK's parsing drops the
// key, so the tool's strict schema never sees it; refused here as that schema refuses any unknown
// key), and parameters of the wrong type (the SDK answers with a raw schema dump, and for a
// resources/read without a uri -32603, an internal error; here -32602 naming the field).
import { argumentsRefusal } from "./errors";

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
  const problem = paramProblem(request?.method, params);
  return problem ? invalidParams(id, problem) : undefined;
}

function paramProblem(method: unknown, params: Record<string, unknown> | undefined): string | undefined {
  if (method === "prompts/get") {
    for (const [name, value] of Object.entries(record(params?.arguments) ?? {})) {
      if (typeof value !== "string") return `arguments.${name} must be a string (prompt arguments are text)`;
    }
  }
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
  if (method === "completion/complete") {
    const argument = record(params?.argument);
    if (argument && typeof argument.value !== "string") return "argument.value must be a string";
    if (argument && typeof argument.name !== "string") return "argument.name must be a string";
  }
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
