// The errors for an answer that came back but is not the record asked for: a status that is not
// a success, a redirect (never followed), the API's error shape inside a 2xx, a body the
// endpoint's schema rejects. Each is built from the status and the body, whatever the body is.
import type { z } from "zod";
import type { SecretSet } from "../log/logger";
import { type ContractIssue, PartsApiError, type PartsApiErrorFacts, type RequestContext } from "./errors";
import {
  asErrorBody,
  cleanUpstream,
  describeBody,
  MAX_HEADER_TEXT,
  parseJson,
  type ResponseFacts,
  unaskedEncoding,
} from "./upstream-text";

/**
 * The error for a response that is not a success: built from status and body, whatever the body
 * is (the API's error shape, an HTML page from a proxy, nothing, truncated JSON).
 */
export function errorFromResponse(
  ctx: RequestContext,
  facts: ResponseFacts,
  attempts: number,
): PartsApiError {
  const { status } = facts;
  if (status >= 300 && status < 400) return redirectError(ctx, facts, attempts);
  const retryAfterSeconds =
    facts.retryAfterMs === undefined ? undefined : Math.ceil(facts.retryAfterMs / 1000);
  const errorBody = unaskedEncoding(facts) === undefined ? asErrorBody(parseJson(facts.body)) : undefined;
  const upstreamMessage = errorBody ? cleanUpstream(errorBody.message, ctx.secrets) : undefined;
  const code =
    errorBody?.code === undefined ? undefined : cleanUpstream(errorBody.code, ctx.secrets, MAX_HEADER_TEXT);
  return new PartsApiError({
    kind: "http",
    method: ctx.method,
    path: ctx.path,
    attempts,
    sent: true,
    status,
    ...(code === undefined ? {} : { code }),
    ...(retryAfterSeconds === undefined ? {} : { retryAfterSeconds }),
    ...(upstreamMessage === undefined
      ? { detail: `HTTP ${status} ${describeBody(facts, "error")}` }
      : { upstreamMessage }),
  });
}

/** A 2xx whose body is the API's error shape: an error, reported with the status the body declares. */
export function errorFromErrorShape(
  ctx: RequestContext,
  wireStatus: number,
  body: { status: number; message: string; code?: string },
  attempts: number,
): PartsApiError {
  const upstreamMessage = cleanUpstream(body.message, ctx.secrets);
  const code = body.code === undefined ? undefined : cleanUpstream(body.code, ctx.secrets, MAX_HEADER_TEXT);
  const facts: PartsApiErrorFacts = {
    kind: "http",
    method: ctx.method,
    path: ctx.path,
    attempts,
    sent: true,
    status: body.status,
    ...(code === undefined ? {} : { code }),
    upstreamMessage,
  };
  return new PartsApiError(
    facts,
    `${ctx.method} ${ctx.path}: HTTP ${wireStatus} carrying an error body: ${body.status}${code ? ` ${code}` : ""}: ${upstreamMessage}`,
  );
}

function redirectError(ctx: RequestContext, facts: ResponseFacts, attempts: number): PartsApiError {
  let target = "";
  if (facts.location) {
    try {
      const url = new URL(facts.location, ctx.origin);
      target =
        url.origin === ctx.origin
          ? " to another path of the same host"
          : ` to ${cleanUpstream(url.host, [])}`;
    } catch {
      target = " to an unreadable location";
    }
  }
  return new PartsApiError({
    kind: "redirect",
    method: ctx.method,
    path: ctx.path,
    attempts,
    sent: true,
    status: facts.status,
    detail: `HTTP ${facts.status}${target}, not followed`,
  });
}

/** A success status with a body that is not the expected record (not JSON, wrong shape). */
export function contractError(
  ctx: RequestContext,
  detail: string,
  attempts: number,
  status: number | undefined,
  issues?: readonly ContractIssue[],
): PartsApiError {
  return new PartsApiError({
    kind: "contract",
    method: ctx.method,
    path: ctx.path,
    attempts,
    sent: true,
    ...(status === undefined ? {} : { status }),
    detail,
    ...(issues === undefined ? {} : { issues }),
  });
}

/** The issues of a zod error as facts: paths and messages, upstream text made safe to print. */
export function contractIssues(error: z.ZodError, secrets: SecretSet): ContractIssue[] {
  return error.issues.map((issue) => ({
    path: issue.path.map((key) =>
      typeof key === "number" ? key : cleanUpstream(String(key), secrets, MAX_HEADER_TEXT),
    ),
    message: cleanUpstream(issue.message, secrets),
  }));
}
