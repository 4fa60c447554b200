// Serving over HTTP (`--http`): the address, the Host and Origin names accepted (DNS rebinding),
// and who may call (PARTS_MCP_AUTH: shared access keys, per-user API tokens, or both). A
// non-loopback address without access control refuses to start.
import { isLoopbackHost, isWildcardHost } from "../net/hosts";
import { type Env, processEnv } from "./env";
import { ConfigError } from "./errors";
import { loadLimitsConfig } from "./limits";
import { loadOAuthConfig, type OAuthConfig } from "./oauth";
import { integerSetting, readHost, readIntegerSetting, readList, type SettingGroup, shown } from "./readers";

type AccessMode = "none" | "shared" | "per-user" | "oauth";
const ACCESS_MODES = ["none", "shared", "per-user", "oauth"] as const satisfies readonly AccessMode[];

export interface AccessConfig {
  /** Clients present one of `keys` as `Authorization: Bearer <key>`. */
  shared: boolean;
  /** Clients send their own API token in `X-Parts-Api-Token`, used for their request only. */
  perUser: boolean;
  keys: string[];
  /** Remote connectors: clients sign in with OAuth (src/auth/); nothing else is accepted. */
  oauth?: OAuthConfig;
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
  /** Larger request bodies get a 413 (LimitsConfig.maxMessageBytes). */
  maxBodyBytes: number;
  /** How long calls in flight may take to finish on shutdown (LimitsConfig.shutdownTimeoutMs). */
  shutdownTimeoutMs: number;
  access: AccessConfig;
}

export const HTTP_ENV = {
  host: "PARTS_MCP_HTTP_HOST",
  port: "PARTS_MCP_HTTP_PORT",
  allowedHosts: "PARTS_MCP_ALLOWED_HOSTS",
  allowedOrigins: "PARTS_MCP_ALLOWED_ORIGINS",
  auth: "PARTS_MCP_AUTH",
  accessKeys: "PARTS_MCP_ACCESS_KEYS",
} as const;

const PORT = integerSetting(HTTP_ENV.port, "HTTP port (0 picks a free one)", {
  defaultValue: 8788,
  min: 0,
  max: 65_535,
});

const HTTP_DEFAULTS = { host: "127.0.0.1", port: PORT.rule.defaultValue } as const;

/** Shorter access keys are refused: a key is a password that a machine types. */
const MIN_ACCESS_KEY_LENGTH = 16;

export const HTTP_SETTINGS: SettingGroup = {
  title: "HTTP serving (with --http)",
  settings: [
    { variable: HTTP_ENV.host, description: "address to listen on", defaultText: HTTP_DEFAULTS.host },
    PORT,
    {
      variable: HTTP_ENV.auth,
      description: "access control: none, shared, per-user, shared,per-user, or oauth",
      defaultText: "shared if keys are set, else none",
    },
    {
      variable: HTTP_ENV.accessKeys,
      description: `keys clients present, comma-separated, each at least ${MIN_ACCESS_KEY_LENGTH} characters (no flag)`,
    },
    {
      variable: HTTP_ENV.allowedHosts,
      description: "Host names accepted besides loopback and the bound address (comma-separated, or *)",
    },
    {
      variable: HTTP_ENV.allowedOrigins,
      description: "browser Origins accepted besides those on an allowed host (comma-separated, or *)",
    },
  ],
};

/** Where `--http` listens: its address and port. */
export interface ListenAddress {
  host: string;
  port: number;
}

/** The address `--http` listens on, without the access checks: what `parts-mcp healthcheck` asks. */
export function loadListenAddress(env: Env = processEnv()): ListenAddress {
  return { host: readHost(env, HTTP_ENV.host, HTTP_DEFAULTS.host), port: readIntegerSetting(env, PORT) };
}

export function loadHttpConfig(env: Env = processEnv()): HttpConfig {
  const { host, port } = loadListenAddress(env);
  const allowedHosts = readHostList(env, HTTP_ENV.allowedHosts);
  const access = readAccess(env);
  if (!isLoopbackHost(host) && !access.shared && !access.perUser && !access.explicit) {
    throw new ConfigError(
      (n) =>
        `${n(HTTP_ENV.host)} is ${host}, not a loopback address, and no access control is set: set ${n(HTTP_ENV.accessKeys)} (clients send one of the keys) or ${n(HTTP_ENV.auth)}=per-user (clients send their own API token), or listen on 127.0.0.1.`,
      HTTP_ENV.auth,
    );
  }
  if (isWildcardHost(host) && allowedHosts.length === 0) {
    throw new ConfigError(
      (n) =>
        `${n(HTTP_ENV.host)} is ${host} (every interface), so the server cannot tell which Host names are its own: set ${n(HTTP_ENV.allowedHosts)} to the host names clients use (or * to accept any).`,
      HTTP_ENV.allowedHosts,
    );
  }
  const limits = loadLimitsConfig(env);
  return {
    host,
    port,
    allowedHosts: allowedHosts.includes("*") ? "*" : allowedHosts,
    allowedOrigins: readOriginList(env, HTTP_ENV.allowedOrigins),
    maxBodyBytes: limits.maxMessageBytes,
    shutdownTimeoutMs: limits.shutdownTimeoutMs,
    access,
  };
}

function readAccess(env: Env): AccessConfig {
  const keys = readList(env, HTTP_ENV.accessKeys) ?? [];
  for (const key of keys) {
    if (key.length < MIN_ACCESS_KEY_LENGTH || !/^[\x21-\x7e]+$/.test(key)) {
      throw new ConfigError(
        (n) =>
          `${n(HTTP_ENV.accessKeys)} holds a key that is shorter than ${MIN_ACCESS_KEY_LENGTH} characters or has spaces, control or non-ASCII characters: use long random keys (e.g. openssl rand -hex 32), separated by commas.`,
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
        (n) =>
          `${n(HTTP_ENV.auth)} must be none, shared, per-user, shared,per-user, or oauth${shown(raw)}: set it to one of them.`,
        HTTP_ENV.auth,
      );
    }
    chosen.add(mode);
  }
  for (const alone of ["none", "oauth"] as const) {
    if (chosen.has(alone) && chosen.size > 1) {
      throw new ConfigError(
        (n) => `${n(HTTP_ENV.auth)} cannot combine ${alone} with another mode: choose one.`,
        HTTP_ENV.auth,
      );
    }
  }
  if (chosen.has("oauth")) {
    if (keys.length > 0) {
      throw new ConfigError(
        (n) =>
          `${n(HTTP_ENV.accessKeys)} is set but ${n(HTTP_ENV.auth)} is oauth, where a Bearer credential is only ever a token this server issued: unset ${n(HTTP_ENV.accessKeys)}.`,
        HTTP_ENV.accessKeys,
      );
    }
    return { shared: false, perUser: false, keys, oauth: loadOAuthConfig(env), explicit: true };
  }
  const shared = chosen.has("shared");
  if (shared && keys.length === 0) {
    throw new ConfigError(
      (n) =>
        `${n(HTTP_ENV.auth)} includes shared but ${n(HTTP_ENV.accessKeys)} is not set: set it to the comma-separated keys clients may present.`,
      HTTP_ENV.accessKeys,
    );
  }
  if (!shared && keys.length > 0) {
    throw new ConfigError(
      (n) =>
        `${n(HTTP_ENV.accessKeys)} is set but ${n(HTTP_ENV.auth)} does not include shared, so the keys would not be checked: add shared to ${n(HTTP_ENV.auth)} or unset ${n(HTTP_ENV.accessKeys)}.`,
      HTTP_ENV.auth,
    );
  }
  return { shared, perUser: chosen.has("per-user"), keys, explicit: true };
}

function readHostList(env: Env, name: string): string[] {
  const items = readList(env, name) ?? [];
  return items.map((item) => {
    if (item === "*") return item;
    const host = item.toLowerCase();
    if (!/^(?:[a-z0-9.-]+|\[[0-9a-f:.]+\])$/.test(host)) {
      throw new ConfigError(
        (n) =>
          `${n(name)} must list host names or IP addresses without scheme or port (e.g. mcp.example.com,10.0.0.5), or *${shown(item)}: fix it.`,
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
    const url = URL.canParse(item) ? new URL(item) : undefined;
    if (
      !url ||
      (url.protocol !== "http:" && url.protocol !== "https:") ||
      url.origin !== item.replace(/\/$/, "")
    ) {
      throw new ConfigError(
        (n) =>
          `${n(name)} must list origins as scheme://host[:port] (e.g. https://chat.example.com), or *${shown(item)}: fix it.`,
        name,
      );
    }
    return url.origin;
  });
}
