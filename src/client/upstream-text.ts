// Text the upstream sent, made fit for an error: redacted, invisible characters escaped, one
// line, bounded. And, for a body that is not what was expected, what it is in a few words (an
// HTML page from a proxy, gzip nobody asked for, truncated JSON), so a message can say so.
import { escapeInvisible } from "../text/gate";
import { redact, type SecretSet } from "../text/redact";

export interface ResponseFacts {
  status: number;
  contentType?: string | undefined;
  contentEncoding?: string | undefined;
  location?: string | undefined;
  retryAfterMs?: number | undefined;
  body: Buffer;
}

const MAX_UPSTREAM_TEXT = 500;
export const MAX_HEADER_TEXT = 80;
const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\b/i;

export const isJsonContentType = (contentType: string): boolean => JSON_TYPE.test(contentType);

/** The API's error shape `{status, message, code?}`, loosely: any object with those field types. */
export function asErrorBody(value: unknown): { status: number; message: string; code?: string } | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const v = value as Record<string, unknown>;
  if (typeof v.status !== "number" || typeof v.message !== "string") return undefined;
  return typeof v.code === "string"
    ? { status: v.status, message: v.message, code: v.code }
    : { status: v.status, message: v.message };
}

/** Text from the upstream, fit for a message: redacted, controls escaped, one line, bounded. */
export function cleanUpstream(
  text: string,
  secrets: SecretSet | readonly string[],
  max = MAX_UPSTREAM_TEXT,
): string {
  const oneLine = escapeInvisible(redact(text, secrets)).replace(/\s+/g, " ").trim();
  return oneLine.length > max ? `${oneLine.slice(0, max)}…` : oneLine;
}

/** A content encoding other than identity: the client asks for none and decodes none. */
export function unaskedEncoding(facts: { contentEncoding?: string | undefined }): string | undefined {
  const encoding = facts.contentEncoding?.trim();
  if (!encoding || /^identity$/i.test(encoding)) return undefined;
  return cleanUpstream(encoding, [], MAX_HEADER_TEXT);
}

const mediaType = (contentType: string) =>
  cleanUpstream(contentType.split(";")[0] ?? "", [], MAX_HEADER_TEXT);

const isGzip = (body: Buffer) => body.length >= 2 && body[0] === 0x1f && body[1] === 0x8b;

/** What a body that is not the expected JSON is, in a few words (after "HTTP 200 "). */
export function describeBody(facts: ResponseFacts, expected: "record" | "error"): string {
  const encoding = unaskedEncoding(facts);
  if (encoding !== undefined)
    return `with a body encoded as ${encoding} (Content-Encoding), which was not asked for`;
  const text = facts.body.toString("utf8", 0, Math.min(facts.body.length, 512));
  if (text.trim() === "")
    return expected === "record" ? "with an empty body instead of JSON" : "with an empty body";
  if (isGzip(facts.body)) return "with gzip-compressed data and no Content-Encoding header";
  const type = facts.contentType;
  if ((type ?? "").toLowerCase().startsWith("text/html") || /^\s*</.test(text)) {
    return expected === "record"
      ? `with an HTML page (content-type ${type ? mediaType(type) : "none"}) instead of JSON`
      : "with an HTML page instead of the API's JSON error";
  }
  if (type !== undefined && !isJsonContentType(type)) {
    return expected === "record"
      ? `with content-type ${mediaType(type)} instead of application/json`
      : `with a ${mediaType(type)} body that is not the API's JSON error`;
  }
  return expected === "record"
    ? "with a body that is not valid JSON (truncated or garbled)"
    : "with a JSON body that is not the API's error shape";
}

export function parseJson(body: Buffer): unknown {
  if (body.length === 0) return undefined;
  try {
    return JSON.parse(body.toString("utf8"));
  } catch {
    return undefined;
  }
}
