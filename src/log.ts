// Logging for the server: one compact JSON object per line on stderr (stdout carries the MCP
// protocol and must never see a log line). Every line is redacted just before it is written,
// whatever was logged: known secrets, bearer tokens, Authorization values, URL query strings
// (a SAS URL's query is a credential) and user:password in URLs.

import { inspect } from "node:util";

export const LOG_LEVELS = ["debug", "info", "warn", "error", "silent"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
export type LogFields = Record<string, unknown>;

export interface Logger {
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
  /** A logger that adds `fields` to every line it writes. */
  child(fields: LogFields): Logger;
}

export interface LoggerOptions {
  level: LogLevel;
  /** Read on every line written, so that a secret learned later (a per-user token) is covered too. */
  secrets?: () => Iterable<string>;
  /** Receives each line without its newline; defaults to writing the line and "\n" to stderr. */
  write?: (line: string) => void;
}

export const REDACTED = "[REDACTED]";

const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

const noSecrets = (): Iterable<string> => [];
const toStderr = (line: string): void => {
  process.stderr.write(`${line}\n`);
};

export function createLogger(options: LoggerOptions): Logger {
  const threshold = RANK[options.level];
  const write = options.write ?? toStderr;
  const secrets = options.secrets ?? noSecrets;

  const emit = (level: LogLevel, base: LogFields | undefined, msg: string, fields: LogFields | undefined) => {
    if (RANK[level] < threshold) return;
    const time = new Date().toISOString();
    let line: string;
    try {
      line = JSON.stringify({ time, level, msg, ...base, ...fields }, jsonReplacer);
    } catch {
      line = JSON.stringify({ time, level, msg, logError: "fields could not be serialised" });
    }
    write(redact(line, secrets()));
  };

  const make = (base: LogFields | undefined): Logger => ({
    debug: (msg, fields) => emit("debug", base, msg, fields),
    info: (msg, fields) => emit("info", base, msg, fields),
    warn: (msg, fields) => emit("warn", base, msg, fields),
    error: (msg, fields) => emit("error", base, msg, fields),
    child: (fields) => make({ ...base, ...fields }),
  });
  return make(undefined);
}

/**
 * Sends what libraries print with console.* through `logger`: to stderr, redacted. Stdout is the
 * MCP protocol on stdio, and a dependency's stray line there (the SDK's HTTP adapter prints one
 * when a client disconnects) would corrupt it or leak past redaction.
 */
export function captureConsole(logger: Logger): void {
  const levels = { debug: "debug", log: "info", info: "info", warn: "warn", error: "error" } as const;
  for (const [method, level] of Object.entries(levels)) {
    console[method as keyof typeof levels] = (...args: unknown[]) =>
      logger[level](args.map((arg) => (typeof arg === "string" ? arg : inspect(arg))).join(" "), {
        source: "console",
      });
  }
}

/** A logger that writes nothing (for tests and library use). */
export const silentLogger: Logger = createLogger({ level: "silent" });

function jsonReplacer(_key: string, value: unknown): unknown {
  if (typeof value === "bigint") return value.toString();
  if (value instanceof Error) {
    const out: Record<string, unknown> = { name: value.name, message: value.message };
    for (const key of ["kind", "code", "status"] as const) {
      const v = (value as unknown as Record<string, unknown>)[key];
      if (v !== undefined) out[key] = v;
    }
    return out;
  }
  return value;
}

// `Bearer <token>` anywhere (header dumps, error texts).
const BEARER = /\b(bearer\s+)(?!\[REDACTED\])[^\s"'\\,;]+/gi;
// The value of an Authorization header in `name: value`, `"name":"value"` or `name=value` form:
// an optional scheme word and the credential after it.
const AUTHORIZATION =
  /\b((?:proxy-)?authorization\\?["']?\s*[:=]\s*\\?["']?)(?:(?:bearer|basic|digest|token|negotiate|sas|aws4-hmac-sha256)\s+)?[^\s"'\\,;}]+/gi;
// The query string of every http(s) URL: SAS URLs carry their signature there.
const URL_QUERY = /\b(https?:\/\/[^\s"'<>?#\\]+)\?(?!\[REDACTED\])[^\s"'<>#\\]*/gi;
// user:password@ in a URL.
const URL_USERINFO = /\b(https?:\/\/)[^\s/@"'<>\\]+@/gi;
// Signature-like parameters outside a recognisable URL (a bare query string).
const SECRET_PARAM =
  /([?&](?:sig|signature|access_token|token|api_key|apikey|key)=)(?!\[REDACTED\])[^&\s"'#\\]+/gi;

/** Replaces every known secret and every credential-looking part of `text` with `[REDACTED]`. */
export function redact(text: string, secrets: Iterable<string> = []): string {
  let out = text;
  for (const secret of secrets) {
    if (!secret) continue;
    if (out.includes(secret)) out = out.split(secret).join(REDACTED);
    // The same secret as it appears inside a JSON string (quotes, backslashes escaped).
    const escaped = JSON.stringify(secret).slice(1, -1);
    if (escaped !== secret && out.includes(escaped)) out = out.split(escaped).join(REDACTED);
  }
  return out
    .replace(BEARER, `$1${REDACTED}`)
    .replace(AUTHORIZATION, `$1${REDACTED}`)
    .replace(URL_USERINFO, `$1${REDACTED}@`)
    .replace(URL_QUERY, `$1?${REDACTED}`)
    .replace(SECRET_PARAM, `$1${REDACTED}`);
}

/**
 * A URL fit for a message or a log line: scheme, host and path only; a query string (a SAS
 * URL's signature) becomes `?[REDACTED]`, a user:password and a fragment are dropped.
 */
export function redactUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    const q = url.indexOf("?");
    return redact(q === -1 ? url : `${url.slice(0, q)}?${REDACTED}`);
  }
  const base = `${parsed.protocol}//${parsed.host}${parsed.pathname}`;
  return parsed.search ? `${base}?${REDACTED}` : base;
}
