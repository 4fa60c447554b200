// The HTTP section of the configuration: defaults, access modes and what refuses to start; and
// the host helpers it shares with the HTTP server and the embedded API.
import { describe, expect, it } from "vitest";
import {
  ConfigError,
  loadApiConfig,
  loadHttpConfig,
  loadTransport,
  parseCommandLine,
  SERVER_COMMAND,
} from "../../src/config";
import { AccessControl, OriginGuard } from "../../src/http/access";
import {
  bracketHost,
  explainListenError,
  isLoopbackHost,
  isWildcardHost,
  urlHost,
} from "../../src/net/hosts";

const KEY = "pmk_test_0123456789abcdef";

function configError(env: Record<string, string>): ConfigError {
  try {
    loadHttpConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    const e = error as ConfigError;
    expect(e.message).not.toContain(KEY);
    return e;
  }
  throw new Error(`expected a ConfigError for ${JSON.stringify(env)}`);
}

describe("loadHttpConfig", () => {
  it("defaults to 127.0.0.1:8788, 1 MiB bodies, no access control", () => {
    expect(loadHttpConfig({})).toEqual({
      host: "127.0.0.1",
      port: 8788,
      allowedHosts: [],
      allowedOrigins: [],
      maxBodyBytes: 1024 * 1024,
      shutdownTimeoutMs: 25_000,
      access: { shared: false, perUser: false, keys: [], explicit: false },
    });
  });

  it("infers shared access from PARTS_MCP_ACCESS_KEYS", () => {
    const { access } = loadHttpConfig({ PARTS_MCP_ACCESS_KEYS: `${KEY}, ${KEY}x ,` });
    expect(access).toEqual({ shared: true, perUser: false, keys: [KEY, `${KEY}x`], explicit: false });
  });

  it("takes PARTS_MCP_AUTH=per-user, shared, both, or none", () => {
    expect(loadHttpConfig({ PARTS_MCP_AUTH: "per-user" }).access).toMatchObject({
      shared: false,
      perUser: true,
    });
    expect(loadHttpConfig({ PARTS_MCP_AUTH: "Shared", PARTS_MCP_ACCESS_KEYS: KEY }).access).toMatchObject({
      shared: true,
      perUser: false,
    });
    expect(
      loadHttpConfig({ PARTS_MCP_AUTH: "shared,per-user", PARTS_MCP_ACCESS_KEYS: KEY }).access,
    ).toMatchObject({ shared: true, perUser: true });
    expect(loadHttpConfig({ PARTS_MCP_AUTH: "none" }).access).toMatchObject({
      shared: false,
      perUser: false,
    });
  });

  it("refuses modes that contradict the keys", () => {
    expect(configError({ PARTS_MCP_AUTH: "shared" }).variable).toBe("PARTS_MCP_ACCESS_KEYS");
    expect(configError({ PARTS_MCP_AUTH: "per-user", PARTS_MCP_ACCESS_KEYS: KEY }).message).toMatch(
      /would not be checked/,
    );
    expect(configError({ PARTS_MCP_AUTH: "none,shared", PARTS_MCP_ACCESS_KEYS: KEY }).message).toMatch(
      /cannot combine none/,
    );
    expect(configError({ PARTS_MCP_AUTH: "kerberos" }).message).toMatch(/must be none, shared, per-user/);
    expect(configError({ PARTS_MCP_AUTH: "oauth" }).message).toMatch(/PARTS_MCP_PUBLIC_URL is not set/);
    expect(configError({ PARTS_MCP_ACCESS_KEYS: "short" }).message).toMatch(/shorter than 16/);
  });

  it("refuses a non-loopback address without access control; explicit none is the operator's choice", () => {
    for (const host of ["0.0.0.0", "10.1.2.3", "::"]) {
      const error = configError({ PARTS_MCP_HTTP_HOST: host, PARTS_MCP_ALLOWED_HOSTS: "mcp.example.com" });
      expect(error.message).toMatch(/not a loopback address/);
    }
    expect(loadHttpConfig({ PARTS_MCP_HTTP_HOST: "10.1.2.3", PARTS_MCP_ACCESS_KEYS: KEY }).host).toBe(
      "10.1.2.3",
    );
    expect(loadHttpConfig({ PARTS_MCP_HTTP_HOST: "10.1.2.3", PARTS_MCP_AUTH: "none" }).access.explicit).toBe(
      true,
    );
    for (const host of ["localhost", "127.0.0.1", "::1"])
      expect(loadHttpConfig({ PARTS_MCP_HTTP_HOST: host }).host).toBe(host);
  });

  it("needs PARTS_MCP_ALLOWED_HOSTS to listen on every interface", () => {
    const error = configError({ PARTS_MCP_HTTP_HOST: "0.0.0.0", PARTS_MCP_ACCESS_KEYS: KEY });
    expect(error.variable).toBe("PARTS_MCP_ALLOWED_HOSTS");
    const config = loadHttpConfig({
      PARTS_MCP_HTTP_HOST: "0.0.0.0",
      PARTS_MCP_ACCESS_KEYS: KEY,
      PARTS_MCP_ALLOWED_HOSTS: "MCP.example.com,10.0.0.5",
      PARTS_MCP_ALLOWED_ORIGINS: "https://chat.example.com/",
    });
    expect(config.allowedHosts).toEqual(["mcp.example.com", "10.0.0.5"]);
    expect(config.allowedOrigins).toEqual(["https://chat.example.com"]);
    expect(configError({ PARTS_MCP_ALLOWED_HOSTS: "https://mcp.example.com" }).variable).toBe(
      "PARTS_MCP_ALLOWED_HOSTS",
    );
    expect(configError({ PARTS_MCP_ALLOWED_ORIGINS: "chat.example.com" }).variable).toBe(
      "PARTS_MCP_ALLOWED_ORIGINS",
    );
  });

  it("lets a remote environment start without PARTS_API_TOKEN only when every request brings its own", () => {
    const env = { PARTS_API_ENV: "sandbox", PARTS_API_SANDBOX_URL: "https://sandbox.parts.example.com" };
    expect(() => loadApiConfig(env)).toThrow(/PARTS_API_TOKEN is not set/);
    expect(loadApiConfig(env, { requireToken: false }).token).toBeUndefined();
  });

  it("--http and --stdio choose the transport over PARTS_MCP_TRANSPORT", () => {
    expect(loadTransport({})).toBe("stdio");
    expect(loadTransport({ PARTS_MCP_TRANSPORT: "http" })).toBe("http");
    expect(
      loadTransport({ PARTS_MCP_TRANSPORT: "http", ...parseCommandLine(SERVER_COMMAND, ["--stdio"]).values }),
    ).toBe("stdio");
    expect(loadTransport({ ...parseCommandLine(SERVER_COMMAND, ["--http", "--port=0"]).values })).toBe(
      "http",
    );
  });
});

describe("OriginGuard", () => {
  const guard = new OriginGuard(loadHttpConfig({ PARTS_MCP_ALLOWED_ORIGINS: "https://chat.example.com" }));
  it("compares host names without the port, case-insensitively", () => {
    expect(guard.check({ host: "LocalHost:1234" })).toBeUndefined();
    expect(guard.check({ host: "[::1]:1234" })).toBeUndefined();
    expect(guard.check({ host: "localhost.evil.example" })?.status).toBe(403);
    expect(guard.check({})?.status).toBe(403);
    expect(guard.check({ host: "127.0.0.1", origin: "https://chat.example.com" })).toBeUndefined();
    expect(guard.check({ host: "127.0.0.1", origin: "https://chat.example.com.evil.example" })?.status).toBe(
      403,
    );
  });

  it("takes an address as Host on /healthz only, and a half-bracketed one not as an address", () => {
    for (const host of ["10.0.0.5:8080", "[fd00::5]:8080", "[fd00::5]"]) {
      expect(guard.check({ host }, "health"), host).toBeUndefined();
      expect(guard.check({ host })?.status, host).toBe(403);
    }
    expect(guard.check({ host: "[::1" }, "health")?.status).toBe(403);
  });

  it("with PARTS_MCP_ALLOWED_HOSTS=*, takes any Host but still checks Origin", () => {
    const open = new OriginGuard(loadHttpConfig({ PARTS_MCP_ALLOWED_HOSTS: "*" }));
    expect(open.check({ host: "anything.example.com" })).toBeUndefined();
    expect(open.check({ host: "anything.example.com", origin: "https://evil.example.com" })?.status).toBe(
      403,
    );
  });
});

describe("AccessControl", () => {
  it("accepts any listed key and nothing else", () => {
    const access = new AccessControl(
      loadHttpConfig({ PARTS_MCP_ACCESS_KEYS: `${KEY},${KEY}-second` }).access,
    );
    expect(access.check({ authorization: `Bearer ${KEY}` })).toEqual({ ok: true });
    expect(access.check({ authorization: `bearer   ${KEY}-second` })).toEqual({ ok: true });
    for (const authorization of [
      undefined,
      `Bearer ${KEY}-`,
      `Bearer ${KEY.slice(0, -1)}`,
      KEY,
      `Bearer ${KEY} extra`,
    ]) {
      const result = access.check(authorization === undefined ? {} : { authorization });
      expect(result.ok, authorization).toBe(false);
      if (!result.ok)
        expect(result.refusal.headers?.["WWW-Authenticate"]).toMatch(/^Bearer realm="parts-mcp"/);
    }
  });
});

describe("host helpers (src/net/hosts.ts)", () => {
  it("loopback: names, 127/8, ::1 bracketed or not, IPv4-mapped forms; nothing else", () => {
    for (const host of [
      "localhost",
      "LOCALHOST",
      "api.localhost",
      "127.0.0.1",
      "127.9.8.7",
      "::1",
      "[::1]",
    ]) {
      expect(isLoopbackHost(host), host).toBe(true);
    }
    for (const host of ["[::ffff:127.0.0.1]", "::ffff:7f00:1", "[::ffff:7f00:1]"]) {
      expect(isLoopbackHost(host), host).toBe(true);
    }
    for (const host of ["localhost.evil.example", "128.0.0.1", "10.0.0.1", "::", "0.0.0.0", "[::2]", ""]) {
      expect(isLoopbackHost(host), host).toBe(false);
    }
  });

  it("wildcards, brackets and the host of a URL that reaches a listening address", () => {
    for (const host of ["0.0.0.0", "::", "[::]", "0:0:0:0:0:0:0:0", ""])
      expect(isWildcardHost(host), host).toBe(true);
    expect(isWildcardHost("127.0.0.1")).toBe(false);
    expect(bracketHost("::1")).toBe("[::1]");
    expect(bracketHost("[::1]")).toBe("[::1]");
    expect(bracketHost("example.com")).toBe("example.com");
    expect(urlHost("0.0.0.0")).toBe("127.0.0.1");
    expect(urlHost("")).toBe("127.0.0.1");
    expect(urlHost("::")).toBe("[::1]");
    expect(urlHost("[::]")).toBe("[::1]");
    expect(urlHost("fe80::1")).toBe("[fe80::1]");
    expect(urlHost("10.0.0.5")).toBe("10.0.0.5");
  });

  it("explains the listen errors a person can fix by choosing another port or address", () => {
    const error = (code: string) => Object.assign(new Error(code), { code });
    expect(explainListenError(error("EADDRINUSE"), "127.0.0.1", 8788)).toEqual({
      reason: "port 8788 is already in use",
      change: "port",
    });
    expect(explainListenError(error("EACCES"), "127.0.0.1", 80)?.change).toBe("port");
    expect(explainListenError(error("EADDRNOTAVAIL"), "10.9.9.9", 80)).toEqual({
      reason: "10.9.9.9 is not an address of this machine",
      change: "host",
    });
    expect(explainListenError(error("ENOTFOUND"), "nohost", 80)?.change).toBe("host");
    expect(explainListenError(error("EMFILE"), "127.0.0.1", 80)).toBeUndefined();
    expect(explainListenError("not an error", "127.0.0.1", 80)).toBeUndefined();
  });
});
