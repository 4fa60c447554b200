// Hosts as they are: a request whose MCP-Protocol-Version header disagrees with its body is served
// by its body, because known hosts send such requests and refusing them would leave those hosts
// unable to use the server at all (the body is what the host means). The SDK decides the era from
// the header and the body together and refuses a disagreement, so the header is set here, on the
// request handed to it, before it looks:
// - a 2026-07-28 `_meta` envelope under a 2025 header (or none): served as 2026-07-28, with the
//   Mcp-Method and Mcp-Name headers such a host does not send filled in from the body;
// - no envelope under a 2026-07-28 header: served as 2025-11-25, statelessly, unless the method
//   exists only on the 2026-07-28 wire or `_meta` holds part of an envelope (a broken modern
//   request, which the SDK refuses as the specification requires).
// Mcp-Method and Mcp-Name route requests: one that disagrees with the body is never tolerated,
// and the SDK refuses the request as before. Each tolerated shape is logged at debug once per
// client: such a host sends every request this way, and a line per request would bury the rest of
// the debug log (test/confirm/http.test.ts holds the once).
import type { IncomingHttpHeaders } from "node:http";
import { CLIENT_INFO_META_KEY, PROTOCOL_VERSION_META_KEY } from "@modelcontextprotocol/server";
import type { Logger } from "../log/logger";

/** The revision an envelope-less request is served as. */
const LEGACY_REVISION = "2025-11-25";
/** The first revision with the per-request envelope; later ones sort after it. */
const FIRST_MODERN_REVISION = "2026-07-28";
/** The body field the Mcp-Name header mirrors, by method. */
const NAME_FIELD: Readonly<Record<string, string>> = {
  "tools/call": "name",
  "prompts/get": "name",
  "resources/read": "uri",
};
/**
 * Methods only the 2026-07-28 wire has: one sent without its envelope is a broken modern request,
 * refused by the SDK as the specification says (-32602, 400), never read as 2025.
 */
const MODERN_ONLY_METHODS: ReadonlySet<string> = new Set(["server/discover", "subscriptions/listen"]);
/** The namespace of the envelope's keys: a `_meta` with one of them but no version is a broken envelope. */
const ENVELOPE_KEY_PREFIX = "io.modelcontextprotocol/";
/** Clients whose tolerated shapes were logged, at most (then the oldest are forgotten). */
const MAX_LOGGED_CLIENTS = 1_000;

type Shape = "envelope under a 2025 header" | "no envelope under a 2026 header";

interface Reconciliation {
  shape: Shape;
  /** Headers to set on the request before the SDK sees it. */
  set: Record<string, string>;
  client: string;
}

export class EraReconciler {
  readonly #logger: Logger;
  readonly #logged = new Set<string>();

  constructor(logger: Logger) {
    this.#logger = logger;
  }

  /** Sets the headers of a tolerated shape on `headers` (the request's own); logs it once per client. */
  apply(headers: IncomingHttpHeaders, body: unknown): void {
    const found = reconcile(headers, body);
    if (!found) return;
    const sent = headers["mcp-protocol-version"];
    Object.assign(headers, found.set);
    const key = `${found.shape}\0${found.client}`;
    if (this.#logged.has(key)) return;
    if (this.#logged.size >= MAX_LOGGED_CLIENTS)
      this.#logged.delete(this.#logged.values().next().value as string);
    this.#logged.add(key);
    this.#logger.debug("request served by its body, not its protocol version header", {
      shape: found.shape,
      client: found.client,
      header: sent ?? "(none)",
    });
  }
}

/** What to set for a request whose header and body disagree in a tolerated way; undefined otherwise. */
function reconcile(headers: IncomingHttpHeaders, body: unknown): Reconciliation | undefined {
  const message = record(body);
  const method = message?.method;
  if (typeof method !== "string") return undefined;
  const params = record(message?.params);
  const meta = record(params?._meta);
  const header = single(headers["mcp-protocol-version"]);
  const claim =
    meta !== undefined && Object.hasOwn(meta, PROTOCOL_VERSION_META_KEY)
      ? meta[PROTOCOL_VERSION_META_KEY]
      : undefined;
  const name = nameOf(method, params);
  if (typeof claim === "string" && isModern(claim) && (header === undefined || !isModern(header))) {
    const set: Record<string, string> = { "mcp-protocol-version": claim };
    if (headers["mcp-method"] === undefined) set["mcp-method"] = method;
    if (headers["mcp-name"] === undefined && name !== undefined) set["mcp-name"] = headerValue(name);
    return { shape: "envelope under a 2025 header", set, client: clientOf(meta, headers) };
  }
  const request = message?.id !== undefined;
  if (
    claim === undefined &&
    request &&
    header !== undefined &&
    isModern(header) &&
    !MODERN_ONLY_METHODS.has(method) &&
    !hasEnvelopeKeys(meta)
  ) {
    if (!agrees(single(headers["mcp-method"]), method) || !agrees(decodeName(headers["mcp-name"]), name)) {
      return undefined;
    }
    return {
      shape: "no envelope under a 2026 header",
      set: { "mcp-protocol-version": LEGACY_REVISION },
      client: clientOf(undefined, headers),
    };
  }
  return undefined;
}

const hasEnvelopeKeys = (meta: Record<string, unknown> | undefined) =>
  meta !== undefined && Object.keys(meta).some((key) => key.startsWith(ENVELOPE_KEY_PREFIX));

const isModern = (revision: string) => revision.trim() >= FIRST_MODERN_REVISION;

/** A routing header agrees when absent or equal to the body. */
const agrees = (header: string | undefined, body: string | undefined) =>
  header === undefined || header === body;

function nameOf(method: string, params: Record<string, unknown> | undefined): string | undefined {
  const field = Object.hasOwn(NAME_FIELD, method) ? NAME_FIELD[method] : undefined;
  const value = field === undefined ? undefined : params?.[field];
  return typeof value === "string" ? value : undefined;
}

/** Mcp-Name as the SDK reads it: as sent, or base64 (UTF-8) between `=?base64?` and `?=`. */
const SENTINEL = /^=\?base64\?(.*)\?=$/;

function decodeName(header: string | string[] | undefined): string | undefined {
  const value = single(header);
  const encoded = value === undefined ? undefined : SENTINEL.exec(value)?.[1];
  return encoded === undefined ? value : Buffer.from(encoded, "base64").toString("utf8");
}

/** A header value for `value`: as it is when plain visible ASCII, base64 in the sentinel otherwise. */
function headerValue(value: string): string {
  const plain = /^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/.test(value) && !SENTINEL.test(value);
  return plain ? value : `=?base64?${Buffer.from(value, "utf8").toString("base64")}?=`;
}

/** Who sent it, for the once-per-client log: the envelope's client, else the User-Agent. */
function clientOf(meta: Record<string, unknown> | undefined, headers: IncomingHttpHeaders): string {
  const info = record(meta?.[CLIENT_INFO_META_KEY]);
  const named =
    typeof info?.name === "string" ? `${info.name} ${String(info.version ?? "")}`.trim() : undefined;
  return (named ?? single(headers["user-agent"]) ?? "unknown").slice(0, 200);
}

const single = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value)?.trim();

const record = (value: unknown) =>
  typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
