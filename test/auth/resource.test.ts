// The resource server's check of a Bearer token (src/auth/resource.ts) once a token's signature is
// known by its digest: a token is still refused once it has expired, a token one character off is
// checked afresh and refused, and a revoked grant is refused although the signature was known. Real
// ES256 tokens signed with jose; the store is a map of grants, the one thing this test plays.
import { exportJWK, generateKeyPair, SignJWT } from "jose";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ResourceServer } from "../../src/auth/resource";
import type { OAuthStore } from "../../src/auth/store";
import type { OAuthConfig } from "../../src/config";

const issuer = "https://parts-mcp.example.com";
const publicUrl = new URL(`${issuer}/mcp`);

async function setUp() {
  const { privateKey, publicKey } = await generateKeyPair("ES256");
  const grants = new Map([["grant-1", "pat_grant_one_0123456789"]]);
  const queries = { count: 0 };
  const store = {
    grantToken: async (id: string) => {
      queries.count++;
      await new Promise((resolve) => setTimeout(resolve, 20));
      return grants.get(id);
    },
  } as unknown as OAuthStore;
  const config = { issuer, publicUrl } as OAuthConfig;
  const server = await ResourceServer.create(config, store, await exportJWK(publicKey));
  const token = (expiresInS: number, grantId = "grant-1") =>
    new SignJWT({ grant_id: grantId, scope: "parts:read", client_id: "c1" })
      .setProtectedHeader({ alg: "ES256", typ: "at+jwt" })
      .setIssuer(issuer)
      .setAudience(publicUrl.href)
      .setIssuedAt()
      .setExpirationTime(Math.floor(Date.now() / 1000) + expiresInS)
      .sign(privateKey);
  return { server, grants, token, queries };
}

afterEach(() => {
  vi.useRealTimers();
});

describe("the resource server, with signatures known by the token's digest", () => {
  it("refuses a token it has verified once it has expired", async () => {
    const { server, token } = await setUp();
    const jwt = await token(30);
    expect((await server.authenticate(`Bearer ${jwt}`)).token).toBe("pat_grant_one_0123456789");
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now() + 40_000);
    await expect(server.authenticate(`Bearer ${jwt}`)).rejects.toThrow(/expired: sign in again/);
  });

  it("checks a token one character off afresh, and refuses it", async () => {
    const { server, token } = await setUp();
    const jwt = await token(300);
    await server.authenticate(`Bearer ${jwt}`);
    // One character inside the signature (the last one may carry only padding bits).
    const at = jwt.lastIndexOf(".") + 5;
    const tampered = `${jwt.slice(0, at)}${jwt[at] === "A" ? "B" : "A"}${jwt.slice(at + 1)}`;
    await expect(server.authenticate(`Bearer ${tampered}`)).rejects.toThrow(/not one this server issued/);
  });

  it("asks the store once for a grant that many calls need at once", async () => {
    const { server, token, queries } = await setUp();
    const jwt = await token(300);
    const answers = await Promise.all(Array.from({ length: 20 }, () => server.authenticate(`Bearer ${jwt}`)));
    expect(answers.every((info) => info.token === "pat_grant_one_0123456789")).toBe(true);
    expect(queries.count).toBe(1);
  });

  it("refuses a known token whose grant was revoked, once the grant cache has expired", async () => {
    const { server, grants, token } = await setUp();
    const jwt = await token(300);
    await server.authenticate(`Bearer ${jwt}`);
    grants.delete("grant-1");
    await new Promise((resolve) => setTimeout(resolve, 2_100));
    await expect(server.authenticate(`Bearer ${jwt}`)).rejects.toThrow(/revoked or has expired/);
  });
});
