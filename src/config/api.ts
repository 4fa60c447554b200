// Where the Parts API is and how to talk to it: the environment, its base URL and token, the
// deadline, retries, batch size, response limit and the log level. Rules are in
// ../shared/spec/decisions.md ("Configuration"). No message ever contains the token.

import { LOG_LEVELS, type LogLevel } from "../log/logger";
import { isLoopbackHost } from "../net/hosts";
import { type Env, processEnv } from "./env";
import { ConfigError } from "./errors";
import {
  type IntegerSetting,
  integerSetting,
  readChoice,
  readEnv,
  readIntegerSetting,
  type SettingGroup,
} from "./readers";

type EnvironmentName = "local" | "lab" | "sandbox" | "production";
const ENVIRONMENTS = ["local", "lab", "sandbox", "production"] as const satisfies readonly EnvironmentName[];

export interface ApiConfig {
  environment: EnvironmentName;
  /**
   * Undefined only for local without PARTS_API_BASE_URL: the server then starts the embedded API,
   * so `baseUrl === undefined` is what "the upstream is the embedded API" means.
   */
  baseUrl?: string;
  /**
   * The variable `baseUrl` was read from, the one to name in advice: PARTS_API_BASE_URL when set,
   * else the environment's own (PARTS_API_SANDBOX_URL for sandbox). Undefined with no base URL.
   */
  baseUrlVariable?: string;
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
const ENVIRONMENT_URL_VARIABLES = {
  lab: { variable: "PARTS_API_LAB_URL", label: "Lab" },
  sandbox: { variable: "PARTS_API_SANDBOX_URL", label: "Sandbox" },
  production: { variable: "PARTS_API_PRODUCTION_URL", label: "Production" },
} as const satisfies Record<Exclude<EnvironmentName, "local">, { variable: string; label: string }>;

const MINUTES_10 = 600_000;

const NUMBERS = {
  timeoutMs: integerSetting(
    ENV.timeoutMs,
    "deadline of one tool call's upstream work, retries and waits included",
    { defaultValue: 30_000, min: 1, max: MINUTES_10, unit: "milliseconds" },
  ),
  attemptTimeoutMs: integerSetting(ENV.attemptTimeoutMs, "time allowed for one HTTP attempt", {
    defaultValue: 15_000,
    min: 1,
    max: MINUTES_10,
    unit: "milliseconds",
  }),
  maxRetries: integerSetting(ENV.maxRetries, "retries after the first attempt (0 turns retrying off)", {
    defaultValue: 3,
    min: 0,
    max: 10,
  }),
  batchSize: integerSetting(ENV.batchSize, "entries per request of a batch get", {
    defaultValue: 50,
    min: 1,
    max: 1000,
  }),
  maxResponseBytes: integerSetting(ENV.maxResponseBytes, "larger API responses are refused", {
    defaultValue: 8 * 1024 * 1024,
    min: 1024,
    max: 1024 * 1024 * 1024,
    unit: "bytes",
  }),
} as const satisfies Record<string, IntegerSetting>;

const API_DEFAULTS = {
  timeoutMs: NUMBERS.timeoutMs.rule.defaultValue,
  attemptTimeoutMs: NUMBERS.attemptTimeoutMs.rule.defaultValue,
  maxRetries: NUMBERS.maxRetries.rule.defaultValue,
  batchSize: NUMBERS.batchSize.rule.defaultValue,
  maxResponseBytes: NUMBERS.maxResponseBytes.rule.defaultValue,
  logLevel: "info",
} as const satisfies Partial<ApiConfig>;

export const API_SETTINGS: SettingGroup = {
  title: "Parts API",
  settings: [
    { variable: ENV.environment, description: ENVIRONMENTS.join(", "), defaultText: "local" },
    ...Object.values(ENVIRONMENT_URL_VARIABLES).map(({ variable, label }) => ({
      variable,
      description: `base URL of the ${label} environment`,
    })),
    { variable: ENV.baseUrl, description: "overrides the selected environment's base URL" },
    {
      variable: ENV.token,
      description: "personal access token (no flag: a command line is visible to every user)",
      defaultText: "the embedded API's demo token, for local",
    },
    ...Object.values(NUMBERS),
    { variable: ENV.logLevel, description: LOG_LEVELS.join(", "), defaultText: API_DEFAULTS.logLevel },
  ],
};

export interface ApiConfigOptions {
  /** False when every request brings its own token (per-user HTTP access): then a remote
   * environment starts without PARTS_API_TOKEN. Default true. */
  requireToken?: boolean;
}

export function loadApiConfig(env: Env = processEnv(), options: ApiConfigOptions = {}): ApiConfig {
  const chosenEnvironment = readEnv(env, ENV.environment);
  const environment = readChoice(env, ENV.environment, ENVIRONMENTS, "local");
  const token = readToken(env);
  if (token !== undefined && chosenEnvironment === undefined) {
    throw new ConfigError(
      (n) =>
        `${n(ENV.token)} is set but ${n(ENV.environment)} is not: set ${n(ENV.environment)} to lab, sandbox or production to choose where the token is sent (or to local to use the built-in sample API).`,
      ENV.environment,
    );
  }
  const baseUrl = readBaseUrl(env, environment, token, options);
  return {
    environment,
    baseUrl,
    ...(baseUrl !== undefined && { baseUrlVariable: baseUrlVariable(env, environment) }),
    token,
    timeoutMs: readIntegerSetting(env, NUMBERS.timeoutMs),
    attemptTimeoutMs: readIntegerSetting(env, NUMBERS.attemptTimeoutMs),
    maxRetries: readIntegerSetting(env, NUMBERS.maxRetries),
    batchSize: readIntegerSetting(env, NUMBERS.batchSize),
    maxResponseBytes: readIntegerSetting(env, NUMBERS.maxResponseBytes),
    logLevel: readChoice(env, ENV.logLevel, LOG_LEVELS, API_DEFAULTS.logLevel),
  };
}

function readBaseUrl(
  env: Env,
  environment: EnvironmentName,
  token: string | undefined,
  options: ApiConfigOptions,
): string | undefined {
  if (environment === "local") {
    // A real token is never sent in clear text to another machine.
    return readUrl(env, ENV.baseUrl, token === undefined ? {} : { httpsOnly: `sending ${ENV.token}` });
  }
  const { variable, label } = ENVIRONMENT_URL_VARIABLES[environment];
  const baseUrl = readUrl(env, baseUrlVariable(env, environment), { httpsOnly: `the ${label} environment` });
  if (baseUrl === undefined) {
    throw new ConfigError(
      (n) =>
        `${n(ENV.environment)} is ${environment} but no address is set for it: set ${n(variable)} (or ${n(ENV.baseUrl)}) to the https:// base URL of the ${label} environment.`,
      variable,
    );
  }
  if (token === undefined && options.requireToken !== false) {
    throw new ConfigError(
      (n) =>
        `${n(ENV.environment)} is ${environment} but ${n(ENV.token)} is not set: set ${n(ENV.token)} to your personal access token for the ${label} environment.`,
      ENV.token,
    );
  }
  return baseUrl;
}

/** The variable the base URL of `environment` comes from: PARTS_API_BASE_URL wins when set. */
function baseUrlVariable(env: Env, environment: EnvironmentName): string {
  if (environment === "local" || readEnv(env, ENV.baseUrl) !== undefined) return ENV.baseUrl;
  return ENVIRONMENT_URL_VARIABLES[environment].variable;
}

function readToken(env: Env): string | undefined {
  const token = readEnv(env, ENV.token);
  if (token === undefined) return undefined;
  if (/^bearer\s/i.test(token)) {
    throw new ConfigError(
      (n) => `${n(ENV.token)} must hold the token alone: remove the "Bearer " in front of it.`,
      ENV.token,
    );
  }
  if (!/^[\x21-\x7e]+$/.test(token)) {
    throw new ConfigError(
      (n) =>
        `${n(ENV.token)} contains spaces, control or non-ASCII characters: copy the personal access token again without them.`,
      ENV.token,
    );
  }
  return token;
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
  const url = URL.canParse(raw) ? new URL(raw) : undefined;
  const refuse = (problem: string) => new ConfigError((n) => `${n(name)} must ${problem}`, name);
  if (url === undefined || (url.protocol !== "https:" && url.protocol !== "http:")) {
    throw refuse("be an absolute http:// or https:// URL such as https://parts.example.com: fix it.");
  }
  if (url.username || url.password) {
    throw refuse(
      `not contain a user name or password: remove them and put the access token in ${ENV.token}.`,
    );
  }
  if (url.search || url.hash || raw.includes("?") || raw.includes("#")) {
    throw refuse(
      "not contain a query string or fragment: give only the scheme, host and an optional path prefix.",
    );
  }
  if (rule.httpsOnly && url.protocol === "http:" && !isLoopbackHost(url.hostname)) {
    throw refuse(
      `use https:// for ${rule.httpsOnly} (plain http:// is accepted only for loopback addresses): change the scheme to https://.`,
    );
  }
  const prefix = url.pathname.replace(/\/+$/, "");
  if (/\/v1$/i.test(prefix)) {
    throw refuse(
      "not end in /v1, since every API path already starts with /v1/: remove it (https://host/api/v1 becomes https://host/api).",
    );
  }
  return `${url.protocol}//${url.host}${prefix}`;
}
