// What a 2xx answer becomes: the endpoint's record, parsed with its zod schema (redacted when it
// quotes the token or a secret of the request), or a PartsApiError when the body is not that record: not JSON, an
// encoding nobody asked for, the API's error shape, or a shape the schema rejects.
import { type EndpointName, endpoints } from "../api/endpoints";
import { redact, type SecretSet } from "../text/redact";
import { contractError, contractIssues, errorFromErrorShape, type RequestContext } from "./errors";
import type { RawResponse } from "./transport";
import { asErrorBody, describeBody, isJsonContentType, unaskedEncoding } from "./upstream-text";

/**
 * The record of a 2xx answer. `redactResult`: the call sent secrets of its own (a SAS URL), so
 * what the API answers is always redacted.
 */
export function parseAnswer(
  name: EndpointName,
  ctx: RequestContext,
  redactResult: boolean,
  response: RawResponse,
  attempt: number,
): unknown {
  const { status } = response;
  const facts = responseFacts(response);
  const notJson = (detail = describeBody(facts, "record")) =>
    contractError(ctx, `HTTP ${status} ${detail}`, attempt, status);
  const { contentType } = facts;
  if (facts.body.length === 0 || unaskedEncoding(facts) !== undefined) throw notJson();
  if (contentType !== undefined && !isJsonContentType(contentType)) throw notJson();
  let data: unknown;
  try {
    data = JSON.parse(facts.body.toString("utf8"));
  } catch {
    throw notJson();
  }
  const result = endpoints[name].response.safeParse(data);
  if (result.success) {
    // An answer that quotes the token (or a secret of the request) has it redacted, in any form.
    const redacted = redactResult || ctx.secrets.foundIn(facts.body);
    return redacted ? redactStrings(result.data, ctx.secrets) : result.data;
  }
  const errorBody = asErrorBody(data);
  if (errorBody) throw errorFromErrorShape(ctx, status, errorBody, attempt);
  throw contractError(
    ctx,
    `HTTP ${status} with a body that does not match the API's contract`,
    attempt,
    status,
    contractIssues(result.error, ctx.secrets),
  );
}

/** What the error factories read of a response: status, the headers they name, the body. */
export function responseFacts(response: RawResponse) {
  return {
    status: response.status,
    contentType: header(response, "content-type"),
    contentEncoding: header(response, "content-encoding"),
    location: header(response, "location"),
    body: response.body,
  };
}

/** Every string of a parsed result, redacted: for calls that sent a secret the API might echo. */
function redactStrings<T>(value: T, secrets: SecretSet): T {
  if (typeof value === "string") return redact(value, secrets) as T;
  if (Array.isArray(value)) return value.map((item) => redactStrings(item, secrets)) as T;
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, redactStrings(item, secrets)]),
    ) as T;
  }
  return value;
}

function header(response: RawResponse, name: string): string | undefined {
  const value = response.headers[name];
  return Array.isArray(value) ? value[0] : value;
}
