// Every failure a tool can meet becomes, here and only here, a message that says what happened
// and what to do next. Messages name the request (method and path, never a query or a secret).
import type { z } from "zod";
import { PartsApiError } from "./client";

export interface ErrorAdvice {
  /** Where valid ids come from, said on a 404. */
  notFound: string;
  /** Whether repeating the call is harmless; if not, a failure after sending may have had effect. */
  idempotent: boolean;
  /** Where the API token comes from, for a 401. */
  tokenSource: string;
  timeoutMs: number;
}

export function toolErrorMessage(error: unknown, advice: ErrorAdvice): string {
  if (!(error instanceof PartsApiError)) {
    return `Internal error in parts-mcp: ${error instanceof Error ? error.message : String(error)}. This is a bug in the server, not in your request; report it.`;
  }
  return `${explain(error, advice)} (${requestLine(error)})`;
}

/** One line for a lookup that failed inside a larger answer, such as describe_part's unresolved. */
export function shortErrorMessage(error: unknown): string {
  if (!(error instanceof PartsApiError)) return error instanceof Error ? error.message : String(error);
  const said = error.upstreamMessage ?? error.detail;
  return `${error.status ?? error.kind}${said ? `: ${said}` : ""}`;
}

function explain(error: PartsApiError, advice: ErrorAdvice): string {
  // The API's own message, or else the client's account of what was wrong (an unusable body, the
  // network failure, a non-JSON error page, a refused size).
  const detail = error.upstreamMessage ?? (error.kind === "redirect" ? undefined : error.detail);
  const said = detail ? `: ${detail}` : "";
  const attempts = error.attempts > 1 ? ` after ${error.attempts} attempts` : "";
  const answeredOk = error.status !== undefined && error.status >= 200 && error.status < 300;
  const mayHaveHappened = advice.idempotent
    ? ""
    : answeredOk
      ? ` The API answered ${error.status}, so it most likely took effect: check (for a part, with list_parts view IP_OWNER) before calling again, or it will be done twice.`
      : " It was not retried, because this call is not idempotent: it may or may not have taken effect, so check (for a part, with list_parts view IP_OWNER) before calling again.";
  switch (error.kind) {
    case "http":
      return explainStatus(error, advice, said, attempts, mayHaveHappened);
    case "network":
      return `Could not reach the Parts API${attempts}${said}. Check the base URL and the network, then try again.${mayHaveHappened}`;
    case "timeout":
      return `The Parts API did not answer within ${seconds(advice.timeoutMs)} s${attempts}. Try again; if it keeps happening, raise PARTS_API_TIMEOUT_MS.${mayHaveHappened}`;
    case "cancelled":
      return "The call was cancelled before the Parts API answered.";
    case "contract":
      return `The Parts API sent a response that does not match its specification${said}. The data cannot be trusted, so none is returned; this is a problem on the API's side.${mayHaveHappened}`;
    case "too_large":
      return `The Parts API's response was too large and was refused${said}. Ask for less (for example a smaller pageSize).${mayHaveHappened}`;
    case "redirect":
      return `The Parts API answered with a redirect (${error.status}), which is not followed so that the token is never sent elsewhere. Check the configured base URL.`;
  }
}

function explainStatus(
  error: PartsApiError,
  advice: ErrorAdvice,
  said: string,
  attempts: string,
  mayHaveHappened: string,
): string {
  const status = error.status ?? 0;
  if (status === 400 || status === 422)
    return `The Parts API rejected the request${said}. Correct it and call again.`;
  if (status === 401)
    return `The Parts API refused the token${said}. Set ${advice.tokenSource} to a valid personal access token.`;
  if (status === 403)
    return `The token is not allowed to do this${said}. Use a token with the right permissions.`;
  if (status === 404) return `Not found${said}. ${advice.notFound}`;
  if (status === 413) return `The request was too large for the Parts API${said}. Send less.`;
  if (status === 429) {
    const wait = error.retryAfterSeconds === undefined ? "shortly" : `in ${error.retryAfterSeconds} s`;
    return `The Parts API is rate limiting requests${attempts}${said}. Try again ${wait}.`;
  }
  if (status >= 500) {
    return `The Parts API failed with status ${status}${attempts}${said}. The fault is on the API's side; try again shortly.${mayHaveHappened}`;
  }
  return `The Parts API refused the request with status ${status}${said}.`;
}

function requestLine(error: PartsApiError): string {
  const outcome = [error.status, error.code].filter((part) => part !== undefined).join(" ");
  return `${error.method} ${error.path}${outcome ? ` → ${outcome}` : ""}`;
}

const seconds = (ms: number) => Math.round(ms / 100) / 10;

/** Names each offending argument: `pageSize: Too big: expected number to be <=50`. */
export function invalidArgumentsMessage(tool: string, error: z.ZodError): string {
  const problems = error.issues.map((issue) => {
    const where = issue.path.length > 0 ? issue.path.map(String).join(".") : "arguments";
    return `${where}: ${issue.message}`;
  });
  return `Invalid arguments for ${tool}: ${problems.join("; ")}. No request was sent; correct the arguments and call again.`;
}
