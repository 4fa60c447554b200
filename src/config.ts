// Configuration from environment variables: the only module that reads process.env.
// Rules are in ../shared/spec/decisions.md ("Configuration"). Each section of the configuration
// is one function built from the small readers below (readEnv, readInteger, readChoice, readUrl,
// readBoolean); a new section adds one function and calls the same readers.
// No message ever contains the token: values are echoed only when short (see `shown`).
import { LOG_LEVELS, type LogLevel } from "./log";

export type EnvironmentName = "local" | "lab" | "sandbox" | "production";
export const ENVIRONMENTS = [
  "local",
  "lab",
  "sandbox",
  "production",
] as const satisfies readonly EnvironmentName[];

export interface ApiConfig {
  environment: EnvironmentName;
  /** Undefined only for local without PARTS_API_BASE_URL: the server then starts the embedded API. */
  baseUrl?: string;
  /** Undefined only for local without PARTS_API_TOKEN: the embedded API's demo token is used. */
  token?: string;
  /** Deadline of one tool call's upstream work, retries and waits included. */
  timeoutMs: number;
  /** Time allowed for one HTTP attempt (capped by what is left of the deadline). */
  attemptTimeoutMs: number;
  /** Retries after the first attempt; 0 turns retrying off. */
  maxRetries: number;
  /** Entries per request of a batch get. */
  batchSize: number;
  /** Larger responses are refused without being read whole. */
  maxResponseBytes: number;
  logLevel: LogLevel;
}

/** A configuration problem; the message is one sentence naming the variable and the fix. */
export class ConfigError extends Error {
  override readonly name = "ConfigError";
  constructor(
    message: string,
    /** The environment variable at fault. */
    readonly variable?: string,
  ) {
    super(message);
  }
}

export type Env = Readonly<Record<string, string | undefined>>;

export const ENV = {
  environment: "PARTS_API_ENV",
  baseUrl: "PARTS_API_BASE_URL",
  token: "PARTS_API_TOKEN",
  timeoutMs: "PARTS_API_TIMEOUT_MS",
  attemptTimeoutMs: "PARTS_API_ATTEMPT_TIMEOUT_MS",
  maxRetries: "PARTS_API_MAX_RETRIES",
  batchSize: "PARTS_API_BATCH_SIZE",
  maxResponseBytes: "PARTS_API_MAX_RESPONSE_BYTES",
  logLevel: "PARTS_MCP_LOG_LEVEL",
} as const;

/** The URL variable of each remote environment, and its name for people. */
export const ENVIRONMENT_URL_VARIABLES = {
  lab: { variable: "PARTS_API_LAB_URL", label: "Lab" },
  sandbox: { variable: "PARTS_API_SANDBOX_URL", label: "Sandbox" },
  production: { variable: "PARTS_API_PRODUCTION_URL", label: "Production" },
} as const satisfies Record<Exclude<EnvironmentName, "local">, { variable: string; label: string }>;

export const API_DEFAULTS = {
  timeoutMs: 30_000,
  attemptTimeoutMs: 15_000,
  maxRetries: 3,
  batchSize: 50,
  maxResponseBytes: 8 * 1024 * 1024,
  logLevel: "info",
} as const satisfies Partial<ApiConfig>;

const MINUTES_10 = 600_000;

export function loadApiConfig(env: Env = process.env): ApiConfig {
  const chosenEnvironment = readEnv(env, ENV.environment);
  const environment = readChoice(env, ENV.environment, ENVIRONMENTS, "local");
  const token = readToken(env);
  if (token !== undefined && chosenEnvironment === undefined) {
    throw new ConfigError(
      `${ENV.token} is set but ${ENV.environment} is not: set ${ENV.environment} to lab, sandbox or production to choose where the token is sent (or to local to use the built-in sample API).`,
      ENV.environment,
    );
  }

  let baseUrl: string | undefined;
  if (environment === "local") {
    // A real token is never sent in clear text to another machine.
    baseUrl = readUrl(env, ENV.baseUrl, token === undefined ? {} : { httpsOnly: `sending ${ENV.token}` });
  } else {
    const { variable, label } = ENVIRONMENT_URL_VARIABLES[environment];
    const source = readEnv(env, ENV.baseUrl) !== undefined ? ENV.baseUrl : variable;
    baseUrl = readUrl(env, source, { httpsOnly: `the ${label} environment` });
    if (baseUrl === undefined) {
      throw new ConfigError(
        `${ENV.environment} is ${environment} but no address is set for it: set ${variable} (or ${ENV.baseUrl}) to the https:// base URL of the ${label} environment.`,
        variable,
      );
    }
    if (token === undefined) {
      throw new ConfigError(
        `${ENV.environment} is ${environment} but ${ENV.token} is not set: set ${ENV.token} to your personal access token for the ${label} environment.`,
        ENV.token,
      );
    }
  }

  return {
    environment,
    baseUrl,
    token,
    timeoutMs: readInteger(env, ENV.timeoutMs, {
      defaultValue: API_DEFAULTS.timeoutMs,
      min: 1,
      max: MINUTES_10,
      unit: "milliseconds",
    }),
    attemptTimeoutMs: readInteger(env, ENV.attemptTimeoutMs, {
      defaultValue: API_DEFAULTS.attemptTimeoutMs,
      min: 1,
      max: MINUTES_10,
      unit: "milliseconds",
    }),
    maxRetries: readInteger(env, ENV.maxRetries, { defaultValue: API_DEFAULTS.maxRetries, min: 0, max: 10 }),
    batchSize: readInteger(env, ENV.batchSize, { defaultValue: API_DEFAULTS.batchSize, min: 1, max: 1000 }),
    maxResponseBytes: readInteger(env, ENV.maxResponseBytes, {
      defaultValue: API_DEFAULTS.maxResponseBytes,
      min: 1024,
      max: 1024 * 1024 * 1024,
      unit: "bytes",
    }),
    logLevel: readChoice(env, ENV.logLevel, LOG_LEVELS, API_DEFAULTS.logLevel),
  };
}

/** The reference cache shared by tools, resources and describe_part. */
export interface CacheConfig {
  /** How long a reference record is served from memory; 0 turns the cache off. */
  ttlMs: number;
  maxEntries: number;
}

export const CACHE_ENV = { ttlMs: "PARTS_MCP_CACHE_TTL_MS", maxEntries: "PARTS_MCP_CACHE_MAX_ENTRIES" } as const;

export function loadCacheConfig(env: Env = process.env): CacheConfig {
  return {
    ttlMs: readInteger(env, CACHE_ENV.ttlMs, { defaultValue: 300_000, min: 0, max: 86_400_000, unit: "milliseconds" }),
    maxEntries: readInteger(env, CACHE_ENV.maxEntries, { defaultValue: 5_000, min: 1, max: 1_000_000 }),
  };
}

function readToken(env: Env): string | undefined {
  const token = readEnv(env, ENV.token);
  if (token === undefined) return undefined;
  if (/^bearer\s/i.test(token)) {
    throw new ConfigError(
      `${ENV.token} must hold the token alone: remove the "Bearer " in front of it.`,
      ENV.token,
    );
  }
  if (!/^[\x21-\x7e]+$/.test(token)) {
    throw new ConfigError(
      `${ENV.token} contains spaces, control or non-ASCII characters: copy the personal access token again without them.`,
      ENV.token,
    );
  }
  return token;
}

// ---------------------------------------------------------------------------------------------
// Readers shared by every section of the configuration.

/** The trimmed value of a variable; unset, empty and blank all count as unset (MCP clients pass ""). */
export function readEnv(env: Env, name: string): string | undefined {
  const raw = env[name];
  if (raw === undefined) return undefined;
  const value = raw.trim();
  return value === "" ? undefined : value;
}

/** The value quoted for a message, only when it is too short to be a secret. */
function shown(value: string): string {
  return value.length <= 16 ? ` (got "${value}")` : "";
}

export interface IntegerRule {
  defaultValue: number;
  min: number;
  max: number;
  /** Named in the message, e.g. "milliseconds". */
  unit?: string;
}

/** A whole number within [min, max], or the default when unset. */
export function readInteger(env: Env, name: string, rule: IntegerRule): number {
  const raw = readEnv(env, name);
  if (raw === undefined) return rule.defaultValue;
  const value = /^\d{1,16}$/.test(raw) ? Number(raw) : Number.NaN;
  if (!(value >= rule.min && value <= rule.max)) {
    const what = rule.unit ? `a whole number of ${rule.unit}` : "a whole number";
    throw new ConfigError(
      `${name} must be ${what} from ${rule.min} to ${rule.max}${shown(raw)}: fix it, or unset it to use the default ${rule.defaultValue}.`,
      name,
    );
  }
  return value;
}

/** One of `choices`, case-insensitive, or the default when unset. */
export function readChoice<const T extends string>(
  env: Env,
  name: string,
  choices: readonly T[],
  defaultValue: T,
): T {
  const raw = readEnv(env, name);
  if (raw === undefined) return defaultValue;
  const lower = raw.toLowerCase();
  const found = choices.find((choice) => choice.toLowerCase() === lower);
  if (found === undefined) {
    throw new ConfigError(
      `${name} must be one of ${choices.join(", ")}${shown(raw)}: set it to one of them.`,
      name,
    );
  }
  return found;
}

const TRUE = new Set(["1", "true", "yes", "on"]);
const FALSE = new Set(["0", "false", "no", "off"]);

/** true/false (also 1/0, yes/no, on/off), or the default when unset. */
export function readBoolean(env: Env, name: string, defaultValue: boolean): boolean {
  const raw = readEnv(env, name);
  if (raw === undefined) return defaultValue;
  const lower = raw.toLowerCase();
  if (TRUE.has(lower)) return true;
  if (FALSE.has(lower)) return false;
  throw new ConfigError(`${name} must be true or false${shown(raw)}: set it to one of them.`, name);
}

export interface UrlRule {
  /** When set, http:// is refused except on loopback; the text names what requires https. */
  httpsOnly?: string;
}

/**
 * An absolute http(s) base URL, normalised to `scheme://host[:port][/prefix]` without a trailing
 * slash, or undefined when unset. A path prefix is kept (`https://host/api` gives
 * `https://host/api/v1/parts`); a query, fragment or user:password is refused.
 */
export function readUrl(env: Env, name: string, rule: UrlRule = {}): string | undefined {
  const raw = readEnv(env, name);
  if (raw === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    url = new URL("invalid:");
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    throw new ConfigError(
      `${name} must be an absolute http:// or https:// URL such as https://parts.example.com: fix it.`,
      name,
    );
  }
  if (url.username || url.password) {
    throw new ConfigError(
      `${name} must not contain a user name or password: remove them and put the access token in ${ENV.token}.`,
      name,
    );
  }
  if (url.search || url.hash || raw.includes("?") || raw.includes("#")) {
    throw new ConfigError(
      `${name} must not contain a query string or fragment: give only the scheme, host and an optional path prefix.`,
      name,
    );
  }
  if (rule.httpsOnly && url.protocol === "http:" && !isLoopbackHost(url.hostname)) {
    throw new ConfigError(
      `${name} must use https:// for ${rule.httpsOnly} (plain http:// is accepted only for loopback addresses): change the scheme to https://.`,
      name,
    );
  }
  const prefix = url.pathname.replace(/\/+$/, "");
  if (/\/v1$/i.test(prefix)) {
    throw new ConfigError(
      `${name} must not end in /v1, since every API path already starts with /v1/: remove it (https://host/api/v1 becomes https://host/api).`,
      name,
    );
  }
  return `${url.protocol}//${url.host}${prefix}`;
}

export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase();
  return (
    host === "localhost" ||
    host.endsWith(".localhost") ||
    host === "[::1]" ||
    /^127(?:\.\d{1,3}){3}$/.test(host) ||
    /^\[::ffff:127\.\d{1,3}\.\d{1,3}\.\d{1,3}\]$/.test(host) ||
    /^\[::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}\]$/.test(host)
  );
}
