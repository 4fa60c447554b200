// The whole connector flow against the built server in the `oauth` mode, with the SDK client's
// OAuth support as the host and a scripted person at the sign-in page: discovery from the 401,
// registration (dynamic), sign-in, calls with the person's own token, refresh, revocation,
// step-up to parts:write, and every kind of token that must be refused.
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO_ACCOUNTS, startTestApi, type TestApi } from "../../src/embedded/testing";
import {
  call,
  MCP_HEADERS,
  ok,
  type RawResponse,
  raw,
  rpcBody,
  spawnRefused,
  toolCall,
} from "../http/support";
import {
  connectSignedIn,
  connectWithSignIn,
  embeddedDataDir,
  expectRefusedWithin,
  newKey,
  type OAuthServer,
  Person,
  startOAuthServer,
  TestHost,
  tokenRequest,
} from "./support";

const [alice, bob] = DEMO_ACCOUNTS.map((account) => account.token) as [string, string];
let api: TestApi;
let server: OAuthServer;
let dataDir: string;
const oldKey = `k1:${newKey()}`;

beforeAll(async () => {
  [api, dataDir] = await Promise.all([startTestApi(), embeddedDataDir("flow")]);
  server = await startOAuthServer({ api, store: { dataDir }, keys: oldKey });
}, 60_000);
afterAll(async () => {
  await server?.stop();
  await api?.close();
});

/** The values of every Content-Type header as sent: one written twice shows twice. */
function contentTypes(res: RawResponse): string[] {
  const values: string[] = [];
  for (let i = 0; i < res.rawHeaders.length; i += 2) {
    if (res.rawHeaders[i]?.toLowerCase() === "content-type") values.push(String(res.rawHeaders[i + 1]));
  }
  return values;
}

describe("discovery", () => {
  it("answers /mcp without a token with 401 naming the metadata and the scope", async () => {
    const res = await raw(server.url, { headers: MCP_HEADERS, body: toolCall("list_standards") });
    expect(res.status).toBe(401);
    const challenge = String(res.headers["www-authenticate"]);
    expect(challenge).toContain(
      `resource_metadata="${server.issuer}/.well-known/oauth-protected-resource/mcp"`,
    );
    expect(challenge).toContain('scope="parts:read"');
    expect(contentTypes(res)).toEqual(["application/json"]);
  });

  it("serves the protected resource metadata at the path-suffixed and root addresses", async () => {
    for (const path of [
      "/.well-known/oauth-protected-resource/mcp",
      "/.well-known/oauth-protected-resource",
    ]) {
      const metadata = await (await fetch(`${server.issuer}${path}`)).json();
      expect(metadata).toMatchObject({
        resource: server.url,
        authorization_servers: [server.issuer],
        scopes_supported: ["parts:read"],
      });
    }
  });

  it("serves RFC 8414 metadata: S256 only, iss in responses, CIMD, the conventional endpoints", async () => {
    const metadata = (await (
      await fetch(`${server.issuer}/.well-known/oauth-authorization-server`)
    ).json()) as Record<string, unknown>;
    expect(metadata).toMatchObject({
      issuer: server.issuer,
      authorization_endpoint: `${server.issuer}/authorize`,
      token_endpoint: `${server.issuer}/token`,
      registration_endpoint: `${server.issuer}/register`,
      code_challenge_methods_supported: ["S256"],
      authorization_response_iss_parameter_supported: true,
      client_id_metadata_document_supported: true,
      response_types_supported: ["code"],
    });
    expect(metadata.token_endpoint_auth_methods_supported).toEqual(["none", "private_key_jwt"]);
  });
});

describe("operations", () => {
  it("/healthz names the store and answers without credentials", async () => {
    const res = await fetch(`${server.issuer}/healthz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: "ok", store: "embedded" });
  });
});

describe("a person connects a host", () => {
  it("signs in once, then calls tools with their own token; refresh keeps the connection", async () => {
    const host = new TestHost("Test Host");
    const client = await connectWithSignIn(server.url, host, new Person(alice));
    const standards = ok<{ items: unknown[] }>(await call(client, "list_standards"));
    expect(standards.items.length).toBeGreaterThan(0);
    expect(host.saved?.refresh_token).toBeTruthy();
    expect(host.saved?.scope).toBe("parts:read");
    await client.close();

    // Refresh: the host swaps its refresh token for a new pair; the old refresh token is spent.
    const before = host.saved as NonNullable<TestHost["saved"]>;
    const refreshed = await tokenRequest(server.issuer, {
      grant_type: "refresh_token",
      refresh_token: String(before.refresh_token),
      client_id: String(host.clientInfo?.client_id),
    });
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.refresh_token).not.toBe(before.refresh_token);
    host.saved = refreshed.body;
    const again = await connectSignedIn(server.url, host);
    expect(ok<{ items: unknown[] }>(await call(again, "list_standards")).items.length).toBeGreaterThan(0);
    await again.close();

    // The spent refresh token, used a second time, is refused, and the grant goes with it.
    const reuse = await tokenRequest(server.issuer, {
      grant_type: "refresh_token",
      refresh_token: String(before.refresh_token),
      client_id: String(host.clientInfo?.client_id),
    });
    expect(reuse.status).toBe(400);
    expect(reuse.body.error).toBe("invalid_grant");
    await expectRefusedWithin(server.url, String(host.saved?.access_token), 5_000);
  });

  it("revocation of the refresh token ends the connection within 5 s", async () => {
    const host = new TestHost("Revoked Host");
    const client = await connectWithSignIn(server.url, host, new Person(alice));
    ok(await call(client, "list_standards"));
    await client.close();
    const revoked = await fetch(`${server.issuer}/revoke`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        token: String(host.saved?.refresh_token),
        client_id: String(host.clientInfo?.client_id),
      }),
    });
    expect(revoked.status).toBe(200);
    await expectRefusedWithin(server.url, String(host.saved?.access_token), 5_000);
  });

  it("refuses a batch, so a parts:read token cannot carry create_part past the step-up inside one", async () => {
    const host = new TestHost("Batch Host");
    const client = await connectWithSignIn(server.url, host, new Person(bob));
    await client.close();
    const res = await raw(server.url, {
      headers: { ...MCP_HEADERS, authorization: `Bearer ${host.saved?.access_token}` },
      body: `[${toolCall("create_part", { title: "Batched bracket" })}]`,
    });
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body).error.code).toBe(-32600);
  });

  it("steps up to parts:write for create_part with a 403 naming both scopes", async () => {
    const host = new TestHost("Writer Host");
    const client = await connectWithSignIn(server.url, host, new Person(bob));
    const res = await raw(server.url, {
      headers: { ...MCP_HEADERS, authorization: `Bearer ${host.saved?.access_token}` },
      body: toolCall("create_part", { title: "Bracket" }),
    });
    expect(res.status).toBe(403);
    const challenge = String(res.headers["www-authenticate"]);
    expect(challenge).toContain('error="insufficient_scope"');
    expect(challenge).toContain('scope="parts:read parts:write"');
    expect(challenge).toContain("resource_metadata=");
    expect(contentTypes(res)).toEqual(["application/json"]);

    // The SDK's transport meets the same 403, sends the person to authorize parts:write, and
    // after sign-in the call goes through.
    await expect(call(client, "create_part", { title: "Bracket" })).rejects.toThrow();
    expect(host.authorizationUrl?.searchParams.get("scope")).toContain("parts:write");
    const page = await new Person(bob).open(host.authorizationUrl as URL);
    expect(page.html, page.url).toContain("parts:write");
    await client.close();

    const transport = new StreamableHTTPClientTransport(new URL(server.url), { authProvider: host });
    await transport.finishAuth(await new Person(bob).signIn(host.authorizationUrl));
    expect(host.saved?.scope?.split(" ").sort()).toEqual(["parts:read", "parts:write"]);
    const writer = await connectSignedIn(server.url, host);
    const created = ok<{ id: string }>(await call(writer, "create_part", { title: "Bracket" }));
    expect(created.id).toBeTruthy();
    await writer.close();
  });
});

describe("a read-only server in the oauth mode", () => {
  it("answers a parts:read token's create_part with the unknown-tool error, not a step-up 403", async () => {
    const readOnly = await startOAuthServer({ api, env: { PARTS_MCP_READ_ONLY: "true" } });
    try {
      const host = new TestHost("Read-only Host");
      (await connectWithSignIn(readOnly.url, host, new Person(bob))).close();
      expect(host.saved?.scope).toBe("parts:read");
      const res = await raw(readOnly.url, {
        headers: { ...MCP_HEADERS, authorization: `Bearer ${host.saved?.access_token}` },
        body: toolCall("create_part", { title: "Bracket" }),
      });
      expect(res.status, res.body).toBe(200);
      expect(res.headers["www-authenticate"]).toBeUndefined();
      const error = rpcBody(res).error;
      expect(error?.code).toBe(-32602);
      expect(error?.message).toMatch(/^Unknown tool "?create_part"?\. Available: /);
    } finally {
      await readOnly.stop();
    }
  });
});

describe("restarts and key rotation (embedded store)", () => {
  it("a restart keeps the connection; a new key first re-seals everything, then the old key can go", async () => {
    const host = new TestHost("Restart Host");
    (await connectWithSignIn(server.url, host, new Person(alice))).close();
    const token = String(host.saved?.access_token);
    const newKeyEntry = `k2:${newKey()}`;
    for (const keys of [`${newKeyEntry},${oldKey}`, newKeyEntry]) {
      await server.stop();
      server = await startOAuthServer({ api, store: { dataDir }, keys, port: new URL(server.issuer).port });
      const res = await raw(server.url, {
        headers: { ...MCP_HEADERS, authorization: `Bearer ${token}` },
        body: toolCall("list_standards"),
      });
      expect(res.status, `with keys ${keys.replace(/:[^,]+/g, ":…")}`).toBe(200);
    }
  });
});

describe("a keyring missing the key the store was sealed with", () => {
  it("stops the start with one line naming PARTS_MCP_OAUTH_KEYS and exit 2, not a stack", async () => {
    const sealedDir = await embeddedDataDir("flow-keys");
    const first = await startOAuthServer({ api, store: { dataDir: sealedDir }, keys: `k1:${newKey()}` });
    const publicUrl = `${first.issuer}/mcp`;
    await first.stop();
    const refused = await spawnRefused({
      api,
      args: ["--http", "--port", "0"],
      env: {
        PARTS_MCP_AUTH: "oauth",
        PARTS_MCP_PUBLIC_URL: publicUrl,
        PARTS_MCP_OAUTH_KEYS: `k2:${newKey()}`,
        PARTS_MCP_DATA_DIR: sealedDir,
      },
    });
    expect(refused.code, refused.stderr).toBe(2);
    expect(refused.stderr).toMatch(/does not open with any key of PARTS_MCP_OAUTH_KEYS/);
    expect(refused.stderr).not.toMatch(/\n\s+at /);
  }, 30_000);
});

describe("tokens that are refused with 401", () => {
  it.each([
    ["garbage", "not-a-jwt"],
    ["unsigned (alg none)", unsignedToken()],
    ["a PAT sent as Bearer", alice],
  ])("%s", async (_name, token) => {
    const res = await raw(server.url, {
      headers: { ...MCP_HEADERS, authorization: `Bearer ${token}` },
      body: toolCall("list_standards"),
    });
    expect(res.status).toBe(401);
    expect(String(res.headers["www-authenticate"])).toContain('error="invalid_token"');
  });
});

function unsignedToken(): string {
  const part = (value: object) => Buffer.from(JSON.stringify(value)).toString("base64url");
  const now = Math.floor(Date.now() / 1000);
  return `${part({ alg: "none", typ: "at+jwt" })}.${part({ iss: "http://127.0.0.1", aud: "x", exp: now + 600, scope: "parts:read parts:write", grant_id: "g" })}.`;
}
