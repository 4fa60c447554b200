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

/** The process environment with `overrides` (the command-line flags) on top. */
export function environment(overrides: Env = {}): Env {
  return { ...process.env, ...overrides };
}

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

export interface ApiConfigOptions {
  /** False when every request brings its own token (per-user HTTP access): then a remote
   * environment starts without PARTS_API_TOKEN. Default true. */
  requireToken?: boolean;
}

export function loadApiConfig(env: Env = process.env, options: ApiConfigOptions = {}): ApiConfig {
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
    if (token === undefined && options.requireToken !== false) {
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

export const CACHE_ENV = {
  ttlMs: "PARTS_MCP_CACHE_TTL_MS",
  maxEntries: "PARTS_MCP_CACHE_MAX_ENTRIES",
} as const;

export function loadCacheConfig(env: Env = process.env): CacheConfig {
  return {
    ttlMs: readInteger(env, CACHE_ENV.ttlMs, {
      defaultValue: 300_000,
      min: 0,
      max: 86_400_000,
      unit: "milliseconds",
    }),
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

// ---------------------------------------------------------------------------------------------
// Transport, tool selection, HTTP serving and access control. Each command-line flag of
// `parts-mcp` sets the variable it mirrors (see FLAGS): a flag wins over the environment.

export type TransportName = "stdio" | "http";
export const TRANSPORTS = ["stdio", "http"] as const satisfies readonly TransportName[];
export const TRANSPORT_ENV = "PARTS_MCP_TRANSPORT";

export function loadTransport(env: Env = process.env): TransportName {
  return readChoice(env, TRANSPORT_ENV, TRANSPORTS, "stdio");
}

/** Which tools are served; applied to the registry by src/selection.ts. */
export interface SelectionConfig {
  /** Only tools whose annotations say readOnlyHint. */
  readOnly: boolean;
  /** Tool names and group names, as given; undefined serves every tool. */
  tools?: string[];
}

export const SELECTION_ENV = { readOnly: "PARTS_MCP_READ_ONLY", tools: "PARTS_MCP_TOOLS" } as const;

export function loadSelectionConfig(env: Env = process.env): SelectionConfig {
  const tools = readList(env, SELECTION_ENV.tools);
  return {
    readOnly: readBoolean(env, SELECTION_ENV.readOnly, false),
    ...(tools !== undefined && { tools }),
  };
}

export type AccessMode = "none" | "shared" | "per-user";
export const ACCESS_MODES = ["none", "shared", "per-user"] as const satisfies readonly AccessMode[];

export interface AccessConfig {
  /** Clients present one of `keys` as `Authorization: Bearer <key>`. */
  shared: boolean;
  /** Clients send their own API token in `X-Parts-Api-Token`, used for their request only. */
  perUser: boolean;
  keys: string[];
  /** True when PARTS_MCP_AUTH was set (false: inferred from PARTS_MCP_ACCESS_KEYS). */
  explicit: boolean;
}

export interface HttpConfig {
  /** Address to listen on. */
  host: string;
  /** 0 picks a free port. */
  port: number;
  /** Host names (no port) accepted in the Host header, beside the loopback names and the bound
   * address; "*" accepts any. */
  allowedHosts: string[] | "*";
  /** Origins (scheme://host[:port]) accepted in the Origin header, beside those on an allowed
   * host; "*" accepts any. A request without Origin is not a browser's and is accepted. */
  allowedOrigins: string[] | "*";
  /** Larger request bodies get a 413. */
  maxBodyBytes: number;
  /** On SIGTERM, how long calls in flight may take to finish before the process gives up on them. */
  shutdownTimeoutMs: number;
  access: AccessConfig;
}

export const HTTP_ENV = {
  host: "PARTS_MCP_HTTP_HOST",
  port: "PARTS_MCP_HTTP_PORT",
  allowedHosts: "PARTS_MCP_ALLOWED_HOSTS",
  allowedOrigins: "PARTS_MCP_ALLOWED_ORIGINS",
  maxBodyBytes: "PARTS_MCP_MAX_BODY_BYTES",
  shutdownTimeoutMs: "PARTS_MCP_SHUTDOWN_TIMEOUT_MS",
  auth: "PARTS_MCP_AUTH",
  accessKeys: "PARTS_MCP_ACCESS_KEYS",
} as const;

export const HTTP_DEFAULTS = {
  host: "127.0.0.1",
  port: 8788,
  maxBodyBytes: 1024 * 1024,
  shutdownTimeoutMs: 25_000,
} as const;

/** Shorter access keys are refused: a key is a password that a machine types. */
export const MIN_ACCESS_KEY_LENGTH = 16;

export function loadHttpConfig(env: Env = process.env): HttpConfig {
  const host = readEnv(env, HTTP_ENV.host) ?? HTTP_DEFAULTS.host;
  if (!/^[A-Za-z0-9.:_-]+$/.test(host.replace(/^\[(.*)\]$/, "$1"))) {
    throw new ConfigError(
      `${HTTP_ENV.host} must be an IP address or host name${shown(host)}: for example 127.0.0.1, or 0.0.0.0 for every interface.`,
      HTTP_ENV.host,
    );
  }
  const allowedHosts = readHostList(env, HTTP_ENV.allowedHosts);
  const access = readAccess(env);
  const loopback = isLoopbackHost(host.includes(":") && !host.startsWith("[") ? `[${host}]` : host);
  if (!loopback && !access.shared && !access.perUser && !access.explicit) {
    throw new ConfigError(
      `${HTTP_ENV.host} is ${host}, not a loopback address, and no access control is set: set ${HTTP_ENV.accessKeys} (clients send one of the keys) or ${HTTP_ENV.auth}=per-user (clients send their own API token), or listen on 127.0.0.1.`,
      HTTP_ENV.auth,
    );
  }
  if (isWildcardHost(host) && allowedHosts.length === 0) {
    throw new ConfigError(
      `${HTTP_ENV.host} is ${host} (every interface), so the server cannot tell which Host names are its own: set ${HTTP_ENV.allowedHosts} to the host names clients use (or * to accept any).`,
      HTTP_ENV.allowedHosts,
    );
  }
  return {
    host,
    port: readInteger(env, HTTP_ENV.port, { defaultValue: HTTP_DEFAULTS.port, min: 0, max: 65_535 }),
    allowedHosts: allowedHosts.includes("*") ? "*" : allowedHosts,
    allowedOrigins: readOriginList(env, HTTP_ENV.allowedOrigins),
    maxBodyBytes: readInteger(env, HTTP_ENV.maxBodyBytes, {
      defaultValue: HTTP_DEFAULTS.maxBodyBytes,
      min: 1024,
      max: 64 * 1024 * 1024,
      unit: "bytes",
    }),
    shutdownTimeoutMs: readInteger(env, HTTP_ENV.shutdownTimeoutMs, {
      defaultValue: HTTP_DEFAULTS.shutdownTimeoutMs,
      min: 0,
      max: MINUTES_10,
      unit: "milliseconds",
    }),
    access,
  };
}

/** 0.0.0.0, :: and friends: every interface. */
export function isWildcardHost(host: string): boolean {
  const bare = host.replace(/^\[(.*)\]$/, "$1");
  return bare === "0.0.0.0" || bare === "::" || bare === "0:0:0:0:0:0:0:0" || bare === "";
}

function readAccess(env: Env): AccessConfig {
  const keys = readList(env, HTTP_ENV.accessKeys) ?? [];
  for (const key of keys) {
    if (key.length < MIN_ACCESS_KEY_LENGTH || !/^[\x21-\x7e]+$/.test(key)) {
      throw new ConfigError(
        `${HTTP_ENV.accessKeys} holds a key that is shorter than ${MIN_ACCESS_KEY_LENGTH} characters or has spaces, control or non-ASCII characters: use long random keys (e.g. openssl rand -hex 32), separated by commas.`,
        HTTP_ENV.accessKeys,
      );
    }
  }
  const modes = readList(env, HTTP_ENV.auth);
  if (modes === undefined) return { shared: keys.length > 0, perUser: false, keys, explicit: false };

  const chosen = new Set<AccessMode>();
  for (const raw of modes) {
    const mode = ACCESS_MODES.find((m) => m === raw.toLowerCase());
    if (mode === undefined) {
      throw new ConfigError(
        `${HTTP_ENV.auth} must be none, shared, per-user, or shared,per-user${shown(raw)}: set it to one of them.`,
        HTTP_ENV.auth,
      );
    }
    chosen.add(mode);
  }
  if (chosen.has("none") && chosen.size > 1) {
    throw new ConfigError(
      `${HTTP_ENV.auth} cannot combine none with another mode: choose one.`,
      HTTP_ENV.auth,
    );
  }
  const shared = chosen.has("shared");
  if (shared && keys.length === 0) {
    throw new ConfigError(
      `${HTTP_ENV.auth} includes shared but ${HTTP_ENV.accessKeys} is not set: set it to the comma-separated keys clients may present.`,
      HTTP_ENV.accessKeys,
    );
  }
  if (!shared && keys.length > 0) {
    throw new ConfigError(
      `${HTTP_ENV.accessKeys} is set but ${HTTP_ENV.auth} does not include shared, so the keys would not be checked: add shared to ${HTTP_ENV.auth} or unset ${HTTP_ENV.accessKeys}.`,
      HTTP_ENV.auth,
    );
  }
  return { shared, perUser: chosen.has("per-user"), keys, explicit: true };
}

/** A comma-separated list without blanks; undefined when unset or empty. */
export function readList(env: Env, name: string): string[] | undefined {
  const raw = readEnv(env, name);
  if (raw === undefined) return undefined;
  const items = raw
    .split(",")
    .map((item) => item.trim())
    .filter((item) => item !== "");
  return items.length === 0 ? undefined : [...new Set(items)];
}

function readHostList(env: Env, name: string): string[] {
  const items = readList(env, name) ?? [];
  return items.map((item) => {
    if (item === "*") return item;
    const host = item.toLowerCase();
    if (!/^(?:[a-z0-9.-]+|\[[0-9a-f:.]+\])$/.test(host)) {
      throw new ConfigError(
        `${name} must list host names or IP addresses without scheme or port (e.g. mcp.example.com,10.0.0.5), or *${shown(item)}: fix it.`,
        name,
      );
    }
    return host;
  });
}

function readOriginList(env: Env, name: string): string[] | "*" {
  const items = readList(env, name) ?? [];
  if (items.includes("*")) return "*";
  return items.map((item) => {
    let url: URL | undefined;
    try {
      url = new URL(item);
    } catch {}
    if (
      !url ||
      (url.protocol !== "http:" && url.protocol !== "https:") ||
      url.origin !== item.replace(/\/$/, "")
    ) {
      throw new ConfigError(
        `${name} must list origins as scheme://host[:port] (e.g. https://chat.example.com), or *${shown(item)}: fix it.`,
        name,
      );
    }
    return url.origin;
  });
}

// ---------------------------------------------------------------------------------------------
// Command-line flags of `parts-mcp`: each sets the variable it mirrors, so a flag wins over the
// environment and is checked by the same reader. Secrets (tokens, access keys) have no flag: a
// command line is visible to every user of the machine.

export interface Flag {
  variable: string;
  /** The value a flag without argument sets. */
  value?: string;
  help: string;
  /** Meaningful only with --http. */
  httpOnly?: true;
}

export const FLAGS: Readonly<Record<string, Flag>> = {
  "--http": { variable: TRANSPORT_ENV, value: "http", help: "serve MCP over Streamable HTTP at /mcp" },
  "--stdio": { variable: TRANSPORT_ENV, value: "stdio", help: "serve MCP on stdin/stdout (the default)" },
  "--port": {
    variable: HTTP_ENV.port,
    httpOnly: true,
    help: `HTTP port (default ${HTTP_DEFAULTS.port}; 0 picks a free one)`,
  },
  "--host": {
    variable: HTTP_ENV.host,
    httpOnly: true,
    help: `HTTP address to listen on (default ${HTTP_DEFAULTS.host})`,
  },
  "--auth": {
    variable: HTTP_ENV.auth,
    httpOnly: true,
    help: "HTTP access control: none, shared, per-user, or shared,per-user",
  },
  "--allowed-hosts": {
    variable: HTTP_ENV.allowedHosts,
    httpOnly: true,
    help: "Host names accepted besides loopback (comma-separated, or *)",
  },
  "--allowed-origins": {
    variable: HTTP_ENV.allowedOrigins,
    httpOnly: true,
    help: "browser Origins accepted (comma-separated, or *)",
  },
  "--read-only": {
    variable: SELECTION_ENV.readOnly,
    value: "true",
    help: "serve only the tools that change nothing",
  },
  "--tools": {
    variable: SELECTION_ENV.tools,
    help: "tool names and groups (parts, rfqs, factories, reference) to serve",
  },
  "--log-level": { variable: ENV.logLevel, help: "debug, info, warn, error or silent" },
};

export const USAGE = [
  "usage: parts-mcp [--http [--port N] [--host H]] [--read-only] [--tools LIST] [options]",
  "       parts-mcp api [--port N] [--host H] [--large]",
  "",
  ...Object.entries(FLAGS).map(
    ([flag, { variable, value, help }]) =>
      `  ${`${flag}${value === undefined ? " X" : ""}`.padEnd(20)} ${help} (${variable}${value === undefined ? "" : `=${value}`})`,
  ),
  "  -h, --help           this text",
  "",
  "Every setting is also an environment variable; a flag wins over its variable.",
].join("\n");

export interface ParsedFlags {
  /** Variables set by flags, to lay over the environment. */
  overrides: Record<string, string>;
  help: boolean;
}

/** Parses the flags; throws a ConfigError naming a flag that is unknown or lacks its value. */
export function parseFlags(argv: readonly string[]): ParsedFlags {
  const overrides: Record<string, string> = {};
  let help = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    const eq = arg.startsWith("--") ? arg.indexOf("=") : -1;
    const name = eq === -1 ? arg : arg.slice(0, eq);
    if (name === "-h" || name === "--help") {
      help = true;
      continue;
    }
    const flag = FLAGS[name];
    if (flag === undefined) {
      throw new ConfigError(`Unknown argument ${JSON.stringify(arg)}: see parts-mcp --help for the flags.`);
    }
    let value = flag.value;
    if (value === undefined) {
      value = eq === -1 ? argv[++i] : arg.slice(eq + 1);
      if (value === undefined || value === "" || (eq === -1 && value.startsWith("--"))) {
        throw new ConfigError(`${name} needs a value: see parts-mcp --help.`);
      }
    } else if (eq !== -1) {
      throw new ConfigError(`${name} takes no value: remove "${arg.slice(eq)}".`);
    }
    overrides[flag.variable] = value;
  }
  return { overrides, help };
}

/**
 * A ConfigError about a variable that a flag set, told in terms of the flag: `--port must be...`
 * rather than `PARTS_MCP_HTTP_PORT must be...`.
 */
export function inTermsOfFlags(error: ConfigError, argv: readonly string[]): ConfigError {
  let message = error.message;
  const given = new Set(argv.map((arg) => (arg.includes("=") ? arg.slice(0, arg.indexOf("=")) : arg)));
  for (const [flag, { variable }] of Object.entries(FLAGS)) {
    if (given.has(flag)) message = message.split(variable).join(flag);
  }
  return message === error.message ? error : new ConfigError(message, error.variable);
}
