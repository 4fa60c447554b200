// The bounds that keep memory, connections and shutdown finite whatever clients send (issue 13):
// calls in flight per process and per connection (stdio is one connection), the largest
// JSON-RPC message, how long shutdown waits, and the HTTP connection limit and time-outs.
import { type Env, processEnv } from "./env";
import { ConfigError } from "./errors";
import {
  type IntegerSetting,
  integerSetting,
  readEnv,
  readIntegerSetting,
  type SettingGroup,
} from "./readers";

interface HttpLimits {
  /** Open connections at once; more are closed as they arrive. */
  maxConnections: number;
  /** The request line and headers must arrive within this (server.headersTimeout). */
  headersTimeoutMs: number;
  /** The whole request, body included, must arrive within this (server.requestTimeout). */
  requestTimeoutMs: number;
  /** A keep-alive connection with nothing to do is closed after this (server.keepAliveTimeout). */
  idleTimeoutMs: number;
}

export interface LimitsConfig {
  /** Tool calls (and other requests) being handled at once in this process. */
  maxInFlight: number;
  /** The same for one connection: one stdio session, or one HTTP connection. */
  maxInFlightPerConnection: number;
  /** Largest JSON-RPC message accepted: one stdio line, or one HTTP request body. */
  maxMessageBytes: number;
  /** On SIGTERM, SIGINT or end of stdin, how long calls in flight may take to finish. */
  shutdownTimeoutMs: number;
  http: HttpLimits;
}

export const LIMITS_ENV = {
  maxInFlight: "PARTS_MCP_MAX_IN_FLIGHT",
  maxInFlightPerConnection: "PARTS_MCP_MAX_IN_FLIGHT_PER_CONNECTION",
  maxMessageBytes: "PARTS_MCP_MAX_MESSAGE_BYTES",
  /** The former name of maxMessageBytes, when it applied to HTTP bodies only; still read. */
  maxBodyBytes: "PARTS_MCP_MAX_BODY_BYTES",
  shutdownTimeoutMs: "PARTS_MCP_SHUTDOWN_TIMEOUT_MS",
  maxConnections: "PARTS_MCP_HTTP_MAX_CONNECTIONS",
  headersTimeoutMs: "PARTS_MCP_HTTP_HEADERS_TIMEOUT_MS",
  requestTimeoutMs: "PARTS_MCP_HTTP_REQUEST_TIMEOUT_MS",
  idleTimeoutMs: "PARTS_MCP_HTTP_IDLE_TIMEOUT_MS",
} as const;

const MINUTES_10 = 600_000;
const ms = (defaultValue: number, min: number) => ({
  defaultValue,
  min,
  max: MINUTES_10,
  unit: "milliseconds",
});

const PROCESS = {
  maxInFlight: integerSetting(LIMITS_ENV.maxInFlight, "requests handled at once by the process", {
    defaultValue: 256,
    min: 1,
    max: 100_000,
  }),
  maxInFlightPerConnection: integerSetting(
    LIMITS_ENV.maxInFlightPerConnection,
    "requests handled at once for one connection (stdio is one)",
    { defaultValue: 64, min: 1, max: 100_000 },
  ),
  maxMessageBytes: integerSetting(
    LIMITS_ENV.maxMessageBytes,
    `largest JSON-RPC message: a stdio line or an HTTP body (formerly ${LIMITS_ENV.maxBodyBytes})`,
    { defaultValue: 1024 * 1024, min: 1024, max: 64 * 1024 * 1024, unit: "bytes" },
  ),
  shutdownTimeoutMs: integerSetting(
    LIMITS_ENV.shutdownTimeoutMs,
    "on SIGTERM, SIGINT or end of stdin, how long calls in flight may take to finish",
    ms(25_000, 0),
  ),
} as const satisfies Record<string, IntegerSetting>;

const HTTP = {
  maxConnections: integerSetting(LIMITS_ENV.maxConnections, "open HTTP connections at once", {
    defaultValue: 512,
    min: 1,
    max: 100_000,
  }),
  headersTimeoutMs: integerSetting(
    LIMITS_ENV.headersTimeoutMs,
    "the request line and headers must arrive within this",
    ms(10_000, 1_000),
  ),
  requestTimeoutMs: integerSetting(
    LIMITS_ENV.requestTimeoutMs,
    "the whole request, body included, must arrive within this",
    ms(30_000, 1_000),
  ),
  idleTimeoutMs: integerSetting(
    LIMITS_ENV.idleTimeoutMs,
    "an idle keep-alive connection is closed after this",
    ms(65_000, 1_000),
  ),
} as const satisfies Record<string, IntegerSetting>;

export const LIMITS_DEFAULTS = {
  maxInFlight: PROCESS.maxInFlight.rule.defaultValue,
  maxInFlightPerConnection: PROCESS.maxInFlightPerConnection.rule.defaultValue,
  maxMessageBytes: PROCESS.maxMessageBytes.rule.defaultValue,
  shutdownTimeoutMs: PROCESS.shutdownTimeoutMs.rule.defaultValue,
  http: {
    maxConnections: HTTP.maxConnections.rule.defaultValue,
    headersTimeoutMs: HTTP.headersTimeoutMs.rule.defaultValue,
    requestTimeoutMs: HTTP.requestTimeoutMs.rule.defaultValue,
    idleTimeoutMs: HTTP.idleTimeoutMs.rule.defaultValue,
  },
} as const satisfies LimitsConfig;

export const LIMITS_SETTINGS: SettingGroup = {
  title: "Limits",
  settings: [...Object.values(PROCESS), ...Object.values(HTTP)],
};

export function loadLimitsConfig(env: Env = processEnv()): LimitsConfig {
  return {
    maxInFlight: readIntegerSetting(env, PROCESS.maxInFlight),
    maxInFlightPerConnection: readIntegerSetting(env, PROCESS.maxInFlightPerConnection),
    maxMessageBytes: readMaxMessageBytes(env),
    shutdownTimeoutMs: readIntegerSetting(env, PROCESS.shutdownTimeoutMs),
    http: readHttpLimits(env),
  };
}

/** PARTS_MCP_MAX_MESSAGE_BYTES, or its former name when only that one is set. */
function readMaxMessageBytes(env: Env): number {
  const setting = PROCESS.maxMessageBytes;
  const formerOnly =
    readEnv(env, LIMITS_ENV.maxMessageBytes) === undefined &&
    readEnv(env, LIMITS_ENV.maxBodyBytes) !== undefined;
  return readIntegerSetting(env, formerOnly ? { ...setting, variable: LIMITS_ENV.maxBodyBytes } : setting);
}

function readHttpLimits(env: Env): HttpLimits {
  const limits = {
    maxConnections: readIntegerSetting(env, HTTP.maxConnections),
    headersTimeoutMs: readIntegerSetting(env, HTTP.headersTimeoutMs),
    requestTimeoutMs: readIntegerSetting(env, HTTP.requestTimeoutMs),
    idleTimeoutMs: readIntegerSetting(env, HTTP.idleTimeoutMs),
  };
  if (limits.headersTimeoutMs > limits.requestTimeoutMs) {
    throw new ConfigError(
      (n) =>
        `${n(LIMITS_ENV.headersTimeoutMs)} (${limits.headersTimeoutMs}) is longer than ${n(LIMITS_ENV.requestTimeoutMs)} (${limits.requestTimeoutMs}), but the headers are part of the request: make it shorter.`,
      LIMITS_ENV.headersTimeoutMs,
    );
  }
  return limits;
}
