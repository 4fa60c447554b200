// The `oauth` HTTP mode (PARTS_MCP_AUTH=oauth): the public URL that is the token audience and the
// issuer's base, where the state lives (PostgreSQL or an embedded store), the keyring that
// encrypts each person's token at rest, lifetimes, trusted client hosts and rate limits.
import { isLoopbackHost } from "../net/hosts";
import type { Env } from "./env";
import { ConfigError } from "./errors";
import { integerSetting, readEnv, readIntegerSetting, readList, type SettingGroup, shown } from "./readers";

const OAUTH_ENV = {
  publicUrl: "PARTS_MCP_PUBLIC_URL",
  databaseUrl: "PARTS_MCP_DATABASE_URL",
  dataDir: "PARTS_MCP_DATA_DIR",
  keys: "PARTS_MCP_OAUTH_KEYS",
  trustedClientHosts: "PARTS_MCP_OAUTH_TRUSTED_CLIENT_HOSTS",
} as const;

const ACCESS_TTL = integerSetting("PARTS_MCP_OAUTH_ACCESS_TTL_S", "access token lifetime", {
  defaultValue: 3_600,
  min: 60,
  max: 86_400,
  unit: "seconds",
});
const REFRESH_TTL = integerSetting("PARTS_MCP_OAUTH_REFRESH_TTL_S", "refresh token (and grant) lifetime", {
  defaultValue: 2_592_000,
  min: 300,
  max: 31_536_000,
  unit: "seconds",
});
const SIGN_IN_RATE = integerSetting(
  "PARTS_MCP_OAUTH_SIGN_IN_PER_MINUTE",
  "sign-in posts per client address",
  {
    defaultValue: 30,
    min: 1,
    max: 100_000,
  },
);
const REGISTER_RATE = integerSetting(
  "PARTS_MCP_OAUTH_REGISTER_PER_MINUTE",
  "client registrations per client address",
  { defaultValue: 20, min: 1, max: 100_000 },
);
const TOKEN_RATE = integerSetting("PARTS_MCP_OAUTH_TOKEN_PER_MINUTE", "token requests per client address", {
  defaultValue: 120,
  min: 1,
  max: 100_000,
});
const AUTHORIZE_RATE = integerSetting(
  "PARTS_MCP_OAUTH_AUTHORIZE_PER_MINUTE",
  "authorization requests per client address",
  { defaultValue: 60, min: 1, max: 100_000 },
);
// One client_id is shared by every person of a published client (a CIMD document's URL): its
// limit is the sum of theirs, so it is set well above an address's.
const CLIENT_RATE = integerSetting(
  "PARTS_MCP_OAUTH_CLIENT_PER_MINUTE",
  "authorization, sign-in and token requests per client_id, from all addresses",
  { defaultValue: 600, min: 1, max: 1_000_000 },
);
const UNUSED_CLIENT_TTL = integerSetting(
  "PARTS_MCP_OAUTH_UNUSED_CLIENT_TTL_S",
  "lifetime of a registered client no one has signed in with",
  { defaultValue: 86_400, min: 1, max: 31_536_000, unit: "seconds" },
);
const SWEEP_INTERVAL = integerSetting(
  "PARTS_MCP_OAUTH_SWEEP_INTERVAL_S",
  "how often expired records and rate-limit windows are deleted",
  { defaultValue: 60, min: 1, max: 3_600, unit: "seconds" },
);

export interface OAuthKey {
  kid: string;
  /** 32 bytes (AES-256). */
  key: Buffer;
}

export interface OAuthConfig {
  /** The MCP endpoint as clients reach it: the resource (token audience). */
  publicUrl: URL;
  /** Its origin: the issuer, under which the authorization server's endpoints live. */
  issuer: string;
  store: { kind: "postgres"; url: string } | { kind: "embedded"; dataDir: string };
  /** The first encrypts, every one decrypts. */
  keys: OAuthKey[];
  accessTtlS: number;
  refreshTtlS: number;
  /** Hosts whose client documents may be fetched although they resolve to private addresses. */
  trustedClientHosts: string[];
  /** Requests per minute, on all replicas together: per client address, and per client_id. */
  perMinute: { signIn: number; register: number; token: number; authorize: number; client: number };
  /** A registered client expires after this unless someone signs in with it. */
  unusedClientTtlS: number;
  sweepIntervalS: number;
}

export const OAUTH_SETTINGS: SettingGroup = {
  title: "Remote connectors (PARTS_MCP_AUTH=oauth)",
  settings: [
    {
      variable: OAUTH_ENV.publicUrl,
      description: "the MCP URL clients use, e.g. https://parts-mcp.example.com/mcp (required)",
    },
    { variable: OAUTH_ENV.databaseUrl, description: "PostgreSQL URL shared by replicas (postgres://...)" },
    {
      variable: OAUTH_ENV.dataDir,
      description: "directory of the embedded store, when no database URL is set",
    },
    { variable: OAUTH_ENV.keys, description: "keyring kid:base64key,... (32-byte keys; the first encrypts)" },
    {
      variable: OAUTH_ENV.trustedClientHosts,
      description: "hosts whose client documents may resolve to private addresses (comma-separated)",
    },
    ACCESS_TTL,
    REFRESH_TTL,
    SIGN_IN_RATE,
    REGISTER_RATE,
    TOKEN_RATE,
    AUTHORIZE_RATE,
    CLIENT_RATE,
    UNUSED_CLIENT_TTL,
    SWEEP_INTERVAL,
  ],
};

export function loadOAuthConfig(env: Env): OAuthConfig {
  const publicUrl = readPublicUrl(env);
  return {
    publicUrl,
    issuer: publicUrl.origin,
    store: readStore(env),
    keys: readKeys(env),
    accessTtlS: readIntegerSetting(env, ACCESS_TTL),
    refreshTtlS: readIntegerSetting(env, REFRESH_TTL),
    trustedClientHosts: (readList(env, OAUTH_ENV.trustedClientHosts) ?? []).map((host) => host.toLowerCase()),
    perMinute: {
      signIn: readIntegerSetting(env, SIGN_IN_RATE),
      register: readIntegerSetting(env, REGISTER_RATE),
      token: readIntegerSetting(env, TOKEN_RATE),
      authorize: readIntegerSetting(env, AUTHORIZE_RATE),
      client: readIntegerSetting(env, CLIENT_RATE),
    },
    unusedClientTtlS: readIntegerSetting(env, UNUSED_CLIENT_TTL),
    sweepIntervalS: readIntegerSetting(env, SWEEP_INTERVAL),
  };
}

function readPublicUrl(env: Env): URL {
  const name = OAUTH_ENV.publicUrl;
  const raw = readEnv(env, name);
  if (raw === undefined) {
    throw new ConfigError(
      (n) =>
        `PARTS_MCP_AUTH is oauth but ${n(name)} is not set: set it to the MCP URL clients use, e.g. https://parts-mcp.example.com/mcp.`,
      name,
    );
  }
  const url = URL.canParse(raw) ? new URL(raw) : undefined;
  const secure = url?.protocol === "https:" || (url?.protocol === "http:" && isLoopbackHost(url.hostname));
  if (!url || !secure || url.search !== "" || url.hash !== "" || url.username !== "" || url.password !== "") {
    throw new ConfigError(
      (n) =>
        `${n(name)} must be an https:// URL (http:// only on a loopback host) without query, fragment or credentials${shown(raw)}: e.g. https://parts-mcp.example.com/mcp.`,
      name,
    );
  }
  return url;
}

function readStore(env: Env): OAuthConfig["store"] {
  const url = readEnv(env, OAUTH_ENV.databaseUrl);
  if (url !== undefined) {
    if (!/^postgres(?:ql)?:\/\//i.test(url)) {
      throw new ConfigError(
        (n) => `${n(OAUTH_ENV.databaseUrl)} must be a postgres:// or postgresql:// URL: fix it.`,
        OAUTH_ENV.databaseUrl,
      );
    }
    return { kind: "postgres", url };
  }
  const dataDir = readEnv(env, OAUTH_ENV.dataDir);
  if (dataDir === undefined) {
    throw new ConfigError(
      (n) =>
        `PARTS_MCP_AUTH is oauth but neither ${n(OAUTH_ENV.databaseUrl)} nor ${n(OAUTH_ENV.dataDir)} is set: set the database URL (shared by replicas) or a data directory for the embedded store.`,
      OAUTH_ENV.dataDir,
    );
  }
  return { kind: "embedded", dataDir };
}

function readKeys(env: Env): OAuthKey[] {
  const name = OAUTH_ENV.keys;
  const entries = readList(env, name);
  const fix = "each entry kid:key with a 32-byte key in base64 or base64url (openssl rand -base64 32)";
  if (entries === undefined) {
    throw new ConfigError(
      (n) => `PARTS_MCP_AUTH is oauth but ${n(name)} is not set: set it to ${fix}; the first entry encrypts.`,
      name,
    );
  }
  const keys = entries.map((entry, index) => {
    const colon = entry.indexOf(":");
    const kid = colon === -1 ? "k1" : entry.slice(0, colon);
    const key = Buffer.from(colon === -1 ? entry : entry.slice(colon + 1), "base64");
    if ((colon === -1 && entries.length > 1) || !/^[A-Za-z0-9_.-]{1,32}$/.test(kid) || key.length !== 32) {
      throw new ConfigError((n) => `${n(name)} entry ${index + 1} is not valid: write ${fix}.`, name);
    }
    return { kid, key };
  });
  if (new Set(keys.map((k) => k.kid)).size !== keys.length) {
    throw new ConfigError((n) => `${n(name)} names a kid twice: give each key its own kid.`, name);
  }
  return keys;
}
