// Who may talk to the HTTP server, decided from the request headers alone, before its body is
// read: the Host and Origin checks against DNS rebinding, and the access control of
// PARTS_MCP_AUTH (shared access keys, per-user API tokens, or both).

import { createHash, timingSafeEqual } from "node:crypto";
import type { IncomingHttpHeaders } from "node:http";
import { isIP } from "node:net";
import { validateHostHeader } from "@modelcontextprotocol/server";
import { type AccessConfig, type HttpConfig, isWildcardHost } from "../config";
import { bracketHost, unbracketHost } from "../net/hosts";

const TOKEN_HEADER = "x-parts-api-token";

export interface Refusal {
  status: 400 | 401 | 403;
  message: string;
  headers?: Record<string, string>;
}

// ---------------------------------------------------------------------------------------------
// DNS rebinding: a web page that makes its own name resolve to 127.0.0.1 still sends its own
// name in Host, and its own origin in Origin. Host is checked by the SDK's validator against the
// names this server answers for; Origin here, because it is stricter than the SDK's (a listed
// origin must match in scheme and port too, not only in host name).

const LOOPBACK_NAMES = ["localhost", "127.0.0.1", "[::1]"];

/**
 * What a request is for, which widens the guard in two safe ways. `health` (/healthz): a balancer
 * or health checker sends the address it dials as Host (a pod's or an instance's IP; `parts-mcp
 * healthcheck` dials loopback, allowed everywhere), or no Host at all (HTTP/1.0 probes); DNS
 * rebinding needs a name, so neither can be a page in a browser. `page` (every path but /mcp and /healthz: the OAuth routes,
 * the 404s): `Origin: null` is accepted, since browsers send it on the sign-in form's post (its
 * page says `Referrer-Policy: no-referrer`); Host is still checked and the form carries its CSRF token.
 */
export type GuardedPath = "mcp" | "health" | "page";

export class OriginGuard {
  readonly #hosts: ReadonlySet<string> | undefined;
  readonly #hostList: string[];
  readonly #origins: ReadonlySet<string> | undefined;
  readonly #anyOrigin: boolean;

  constructor(config: Pick<HttpConfig, "host" | "allowedHosts" | "allowedOrigins">) {
    if (config.allowedHosts === "*") {
      this.#hosts = undefined;
    } else {
      const bound = config.host.toLowerCase();
      const own = isWildcardHost(bound) ? [] : [bracketHost(bound)];
      this.#hosts = new Set([...LOOPBACK_NAMES, ...own, ...config.allowedHosts]);
    }
    this.#hostList = [...(this.#hosts ?? [])];
    this.#anyOrigin = config.allowedOrigins === "*";
    this.#origins = config.allowedOrigins === "*" ? undefined : new Set(config.allowedOrigins);
  }

  /** A refusal when Host or Origin names a site this server does not answer for. */
  check(headers: IncomingHttpHeaders, path: GuardedPath = "mcp"): Refusal | undefined {
    if (this.#hosts !== undefined) {
      const host = headers.host;
      const probe = path === "health" && (host === undefined || isAddress(host));
      if (!probe && !validateHostHeader(host, this.#hostList).ok) {
        return {
          status: 403,
          message: `Host ${JSON.stringify(host ?? "")} is not allowed (see PARTS_MCP_ALLOWED_HOSTS).`,
        };
      }
    }
    const origin = headers.origin;
    const opaque = origin === "null" && path === "page";
    if (origin !== undefined && !opaque && !this.originAllowed(origin)) {
      return {
        status: 403,
        message: `Origin ${JSON.stringify(origin)} is not allowed (see PARTS_MCP_ALLOWED_ORIGINS).`,
      };
    }
    return undefined;
  }

  /** An origin listed in PARTS_MCP_ALLOWED_ORIGINS, or one on a host name this server answers for. */
  originAllowed(origin: string): boolean {
    if (this.#anyOrigin || this.#origins?.has(origin)) return true;
    const match = /^https?:\/\/([^/]+)$/i.exec(origin);
    // With PARTS_MCP_ALLOWED_HOSTS=* any Host is accepted, but not therefore any web page.
    const hosts = this.#hosts ?? new Set(LOOPBACK_NAMES);
    return match !== null && hosts.has(hostname(match[1] as string));
  }
}

/** Whether a Host header value names an IP address (with or without a port), not a host name. */
function isAddress(host: string): boolean {
  return isIP(unbracketHost(hostname(host))) !== 0;
}

/** The host name of a Host header value or authority, lowercase, without the port. */
function hostname(authority: string): string {
  const lower = authority.toLowerCase();
  if (lower.startsWith("[")) {
    const end = lower.indexOf("]");
    return end === -1 ? lower : lower.slice(0, end + 1);
  }
  const colon = lower.indexOf(":");
  return colon === -1 ? lower : lower.slice(0, colon);
}

// ---------------------------------------------------------------------------------------------
// Access control.

export type Access =
  | { ok: true /** The upstream token of this request; undefined: the server's own. */; token?: string }
  | { ok: false; refusal: Refusal };

const digest = (value: string) => createHash("sha256").update(value).digest();
const REALM = 'Bearer realm="parts-mcp"';
const MAX_TOKEN_LENGTH = 4_096;
const TOKEN_FORMAT = /^[\x21-\x7e]+$/;

export class AccessControl {
  readonly #config: AccessConfig;
  readonly #keys: Buffer[];

  constructor(config: AccessConfig) {
    this.#config = config;
    this.#keys = config.keys.map(digest);
  }

  /** Names the mode for the start-up line. */
  get mode(): string {
    const { shared, perUser, oauth } = this.#config;
    if (oauth) return "oauth";
    return shared && perUser ? "shared,per-user" : shared ? "shared" : perUser ? "per-user" : "none";
  }

  check(headers: IncomingHttpHeaders): Access {
    if (this.#config.shared) {
      const refusal = this.#checkKey(headers.authorization);
      if (refusal) return { ok: false, refusal };
    }
    const token = headers[TOKEN_HEADER];
    if (!this.#config.perUser) {
      if (token === undefined) return { ok: true };
      return {
        ok: false,
        refusal: {
          status: 400,
          message:
            "This server calls the Parts API with its own token and does not take X-Parts-Api-Token: remove the header (or ask the operator to enable PARTS_MCP_AUTH=per-user).",
        },
      };
    }
    if (typeof token !== "string" || token === "") {
      return unauthorized("Send your Parts API personal access token in the X-Parts-Api-Token header.");
    }
    if (token.length > MAX_TOKEN_LENGTH) {
      return unauthorized(
        `X-Parts-Api-Token is ${token.length} characters long; a personal access token has at most ${MAX_TOKEN_LENGTH}. Send the token alone.`,
        "invalid_token",
      );
    }
    if (!TOKEN_FORMAT.test(token) || /^bearer$/i.test(token)) {
      return unauthorized(
        "X-Parts-Api-Token must hold the personal access token alone (no spaces, control or non-ASCII characters).",
        "invalid_token",
      );
    }
    return { ok: true, token };
  }

  #checkKey(authorization: string | undefined): Refusal | undefined {
    if (authorization === undefined) {
      return unauthorized("Send one of this server's access keys as Authorization: Bearer <key>.").refusal;
    }
    const match = /^bearer[ \t]+(\S+)[ \t]*$/i.exec(authorization);
    if (match) {
      const presented = digest(match[1] as string);
      // Every key is compared, each in constant time, so the time taken tells nothing.
      let found = false;
      for (const key of this.#keys) found = timingSafeEqual(presented, key) || found;
      if (found) return undefined;
    }
    return unauthorized(
      "The access key in Authorization was not accepted: send one of this server's access keys as Authorization: Bearer <key>.",
      "invalid_token",
    ).refusal;
  }
}

function unauthorized(message: string, error?: "invalid_token"): { ok: false; refusal: Refusal } {
  return {
    ok: false,
    refusal: {
      status: 401,
      message,
      headers: { "WWW-Authenticate": error ? `${REALM}, error="${error}"` : REALM },
    },
  };
}
