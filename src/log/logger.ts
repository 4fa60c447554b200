// Logging for the server: one compact JSON object per line on stderr (stdout carries the MCP
// protocol and must never see a log line). Every string of a line is redacted (src/text/redact.ts)
// before the line is serialised, so a line is always valid JSON. Control, bidi and zero-width
// characters are escaped by the one text gate (src/text/gate.ts), so that nothing an upstream wrote
// can recolour a terminal or reorder a line.

import { inspect } from "node:util";
import { telemetry } from "../telemetry";
import { escapeInvisible } from "../text/gate";
import { redact, SecretSet } from "../text/redact";

export const LOG_LEVELS = ["debug", "info", "warn", "error", "silent"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
type LogFields = Record<string, unknown>;

export interface Logger {
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
  /**
   * Redacts `value` from every later line. For secrets learned while serving (a per-user token):
   * call it only once the Parts API has accepted the value (the client does, on a 2xx answer to a
   * request made with a per-call token), never for what an unauthenticated client merely sent.
   * Values shorter than MIN_SECRET_LENGTH are ignored (returns false); the most recent
   * LEARNED_SECRETS_LIMIT values are kept.
   */
  addSecret(value: string): boolean;
}

export interface LoggerOptions {
  level: LogLevel;
  /** Secrets known at start (the configured token, access keys): redacted from every line, never dropped. */
  secrets?: Iterable<string>;
  /** Receives each line without its newline; defaults to writing the line and "\n" to stderr. */
  write?: (line: string) => void;
}

const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

const toStderr = (line: string): void => {
  process.stderr.write(`${line}\n`);
};

export function createLogger(options: LoggerOptions): Logger {
  const threshold = RANK[options.level];
  const write = options.write ?? toStderr;
  const secrets = new SecretSet(options.secrets);

  const emit = (level: LogLevel, msg: string, fields: LogFields | undefined) => {
    if (RANK[level] < threshold) return;
    const time = new Date().toISOString();
    let line: string;
    try {
      line = JSON.stringify(
        { time, level, msg, ...telemetry.logFields(), ...fields },
        redactingReplacer(secrets),
      );
    } catch {
      line = JSON.stringify({
        time,
        level,
        msg: redact(msg, secrets),
        logError: "fields could not be serialised",
      });
    }
    // Safe on the serialised line: these characters occur only inside strings, where the escape
    // stands for the same character.
    write(escapeInvisible(line));
  };

  return {
    debug: (msg, fields) => emit("debug", msg, fields),
    info: (msg, fields) => emit("info", msg, fields),
    warn: (msg, fields) => emit("warn", msg, fields),
    error: (msg, fields) => emit("error", msg, fields),
    addSecret: (value) => secrets.learn(value),
  };
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

/** Redacts every string (and object key) of a line before it is serialised. */
function redactingReplacer(secrets: SecretSet) {
  return function replace(this: unknown, _key: string, value: unknown): unknown {
    if (typeof value === "string") return redact(value, secrets);
    if (typeof value === "bigint") return value.toString();
    if (value instanceof Error) {
      const out: Record<string, unknown> = { name: value.name, message: value.message };
      for (const key of ["kind", "code", "status"] as const) {
        const v = (value as unknown as Record<string, unknown>)[key];
        if (v !== undefined) out[key] = v;
      }
      return out;
    }
    if (typeof value === "object" && value !== null && !Array.isArray(value)) {
      const keys = Object.keys(value);
      if (keys.some((key) => redact(key, secrets) !== key)) {
        return Object.fromEntries(keys.map((key) => [redact(key, secrets), (value as LogFields)[key]]));
      }
    }
    return value;
  };
}

/** A logger that writes nothing (for tests and library use). */
export const silentLogger: Logger = createLogger({ level: "silent" });
