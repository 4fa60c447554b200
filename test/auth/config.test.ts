// The `oauth` mode's settings: what it needs, what it refuses, and the keyring that seals each
// person's token (first key seals, every key opens, the grant id binds a sealed value).
import { randomBytes } from "node:crypto";
import type { IncomingMessage } from "node:http";
import { describe, expect, it } from "vitest";
import { Keyring } from "../../src/auth/keyring";
import { clientAddress } from "../../src/auth/rate-limit";
import { ConfigError, loadHttpConfig } from "../../src/config";

const KEY = randomBytes(32).toString("base64");
const BASE = {
  PARTS_MCP_AUTH: "oauth",
  PARTS_MCP_PUBLIC_URL: "https://parts-mcp.example.com/mcp",
  PARTS_MCP_DATA_DIR: "/var/lib/parts-mcp",
  PARTS_MCP_OAUTH_KEYS: `k1:${KEY}`,
};

function refusal(env: Record<string, string>): string {
  try {
    loadHttpConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).not.toContain(KEY);
    return (error as Error).message;
  }
  throw new Error(`expected a refusal for ${JSON.stringify(env)}`);
}

describe("PARTS_MCP_AUTH=oauth", () => {
  it("reads the public URL as the resource and its origin as the issuer, with the documented defaults", () => {
    const oauth = loadHttpConfig(BASE).access.oauth;
    expect(oauth?.publicUrl.href).toBe("https://parts-mcp.example.com/mcp");
    expect(oauth?.issuer).toBe("https://parts-mcp.example.com");
    expect(oauth?.store).toEqual({ kind: "embedded", dataDir: "/var/lib/parts-mcp" });
    expect(oauth?.keys.map((k) => k.kid)).toEqual(["k1"]);
    expect([oauth?.accessTtlS, oauth?.refreshTtlS]).toEqual([3600, 2592000]);
    expect(oauth?.perMinute).toEqual({ signIn: 30, register: 20, token: 120, authorize: 60, client: 600 });
    expect([oauth?.unusedClientTtlS, oauth?.sweepIntervalS]).toEqual([86_400, 60]);
  });

  it("prefers the database URL, accepts a bare key as k1 and a keyring of several", () => {
    const second = randomBytes(32).toString("base64url");
    const oauth = loadHttpConfig({
      ...BASE,
      PARTS_MCP_DATABASE_URL: "postgres://u:p@db:5432/parts",
      PARTS_MCP_OAUTH_KEYS: `new:${second},old:${KEY}`,
    }).access.oauth;
    expect(oauth?.store).toEqual({ kind: "postgres", url: "postgres://u:p@db:5432/parts" });
    expect(oauth?.keys.map((k) => k.kid)).toEqual(["new", "old"]);
    expect(loadHttpConfig({ ...BASE, PARTS_MCP_OAUTH_KEYS: KEY }).access.oauth?.keys[0]?.kid).toBe("k1");
  });

  it("allows http:// only on a loopback host", () => {
    expect(
      loadHttpConfig({ ...BASE, PARTS_MCP_PUBLIC_URL: "http://127.0.0.1:8788/mcp" }).access.oauth?.issuer,
    ).toBe("http://127.0.0.1:8788");
    expect(refusal({ ...BASE, PARTS_MCP_PUBLIC_URL: "http://parts-mcp.example.com/mcp" })).toMatch(
      /https:\/\//,
    );
  });

  it.each([
    [{ PARTS_MCP_PUBLIC_URL: "" }, /PARTS_MCP_PUBLIC_URL is not set/],
    [{ PARTS_MCP_PUBLIC_URL: "https://x.example/mcp?a=1" }, /without query/],
    [{ PARTS_MCP_DATA_DIR: "" }, /neither PARTS_MCP_DATABASE_URL nor PARTS_MCP_DATA_DIR/],
    [{ PARTS_MCP_DATABASE_URL: "mysql://db/x" }, /postgres:\/\//],
    [{ PARTS_MCP_OAUTH_KEYS: "" }, /PARTS_MCP_OAUTH_KEYS is not set/],
    [{ PARTS_MCP_OAUTH_KEYS: "k1:c2hvcnQ=" }, /32-byte key/],
    [{ PARTS_MCP_OAUTH_KEYS: `a:${KEY},a:${randomBytes(32).toString("base64")}` }, /kid twice/],
    [{ PARTS_MCP_AUTH: "oauth,shared" }, /cannot combine oauth/],
    [{ PARTS_MCP_ACCESS_KEYS: "pmk_test_0123456789abcdef" }, /only ever a token this server issued/],
  ])("refuses %j", (change, message) => {
    expect(refusal({ ...BASE, ...change })).toMatch(message);
  });
});

describe("Keyring", () => {
  const [a, b] = [
    { kid: "a", key: randomBytes(32) },
    { kid: "b", key: randomBytes(32) },
  ];

  it("seals with the first key, opens with any, and only for the same grant", () => {
    const sealed = new Keyring([a]).seal("pat-123", "grant:g1");
    expect(sealed).not.toContain("pat-123");
    expect(new Keyring([b, a]).open(sealed, "grant:g1")).toBe("pat-123");
    expect(new Keyring([b, a]).isStale(sealed)).toBe(true);
    expect(new Keyring([a]).open(sealed, "grant:g2")).toBeUndefined();
    expect(new Keyring([b]).open(sealed, "grant:g1")).toBeUndefined();
    const tampered = `${sealed.slice(0, -2)}${sealed.endsWith("A") ? "B" : "A"}A`;
    expect(new Keyring([a]).open(tampered, "grant:g1")).toBeUndefined();
  });
});

describe("clientAddress", () => {
  const request = (forwarded?: string) =>
    ({
      headers: forwarded === undefined ? {} : { "x-forwarded-for": forwarded },
      socket: { remoteAddress: "10.0.0.2" },
    }) as unknown as IncomingMessage;

  it("is the proxy's last X-Forwarded-For entry behind a proxy, else the socket's peer", () => {
    expect(clientAddress(request("1.2.3.4, 203.0.113.9"), true)).toBe("203.0.113.9");
    expect(clientAddress(request("1.2.3.4, 203.0.113.9"), false)).toBe("10.0.0.2");
    expect(clientAddress(request(), true)).toBe("10.0.0.2");
  });
});
