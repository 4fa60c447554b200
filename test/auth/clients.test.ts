// Clients and hostile input: Client ID Metadata Documents served from a local HTTPS host (the
// SDK's own CIMD flow, and the published documents of Claude and ChatGPT kept as fixtures),
// documents the server must not fetch or must not accept, dynamic registration floods, the PAT
// form with hostile input, and a replayed authorization code.
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { exportJWK, generateKeyPair, SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO_ACCOUNTS, startTestApi, type TestApi } from "../../src/embedded/testing";
import { call, ok } from "../http/support";
import { type DocumentHost, startDocumentHost } from "./document-host";
import {
  authorizationUrl,
  connectWithSignIn,
  expectRefusedWithin,
  type OAuthServer,
  Person,
  pkce,
  startOAuthServer,
  TestHost,
  tokenRequest,
} from "./support";

const [alice] = DEMO_ACCOUNTS.map((account) => account.token) as [string];
const fixture = (name: string) =>
  JSON.parse(readFileSync(join(import.meta.dirname, "fixtures", name), "utf8")) as Record<string, unknown>;
const REGISTER_PER_MINUTE = 20;

let api: TestApi;
let host: DocumentHost;
let server: OAuthServer;

beforeAll(async () => {
  [api, host] = await Promise.all([startTestApi(), startDocumentHost()]);
  server = await startOAuthServer({
    api,
    env: {
      ...host.trustEnv,
      PARTS_MCP_OAUTH_REGISTER_PER_MINUTE: String(REGISTER_PER_MINUTE),
    },
  });
}, 60_000);
afterAll(async () => {
  await server?.stop();
  await Promise.all([api?.close(), host?.close()]);
});

/** Alice's browser on the sign-in page of a public client whose document is served at `path`. */
async function signInPageOf(path: string, clientName: string) {
  const clientId = host.serve(path, {
    client_name: clientName,
    redirect_uris: ["http://127.0.0.1:9/callback"],
    token_endpoint_auth_method: "none",
  });
  const person = new Person(alice);
  const page = await person.open(
    authorizationUrl(server.issuer, {
      clientId,
      redirectUri: "http://127.0.0.1:9/callback",
      challenge: pkce().challenge,
    }),
  );
  return { person, page };
}

describe("Client ID Metadata Documents", () => {
  it("the SDK's host signs in with its document URL as client_id (no registration)", async () => {
    const url = host.serve("/host.json", {
      client_name: "CIMD Host",
      redirect_uris: ["http://127.0.0.1:9/callback"],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    });
    const cimdHost = new TestHost("CIMD Host", url);
    const client = await connectWithSignIn(server.url, cimdHost, new Person(alice));
    expect(cimdHost.clientInfo?.client_id).toBe(url);
    expect(ok<{ items: unknown[] }>(await call(client, "list_standards")).items.length).toBeGreaterThan(0);
    await client.close();
  });

  it.each([
    ["claude-client-metadata.json", "Claude", "https://claude.ai/api/mcp/auth_callback"],
    ["chatgpt-client-metadata.json", "ChatGPT", "https://chatgpt.com/connector_platform_oauth_redirect"],
  ])(
    "accepts %s: the sign-in page names the client and its redirect host",
    async (file, name, redirectUri) => {
      const clientId = host.serve(`/${file}`, fixture(file));
      const { challenge } = pkce();
      const person = new Person(alice);
      const page = await person.open(authorizationUrl(server.issuer, { clientId, redirectUri, challenge }));
      expect(page.status, page.html).toBe(200);
      const redirectHost = new URL(redirectUri).host;
      expect(page.html).toContain(`Connect <code>${redirectHost}</code> to Parts`);
      expect(page.html).toContain(`<strong>${name}</strong>`);
      expect(page.html).toContain(`described by <code>${new URL(clientId).host}</code>`);
    },
  );

  it("Claude's client completes the code exchange with PKCE (auth method none), iss in the response", async () => {
    const clientId = host.serve("/claude-exchange.json", fixture("claude-client-metadata.json"));
    const redirectUri = "https://claude.com/api/mcp/auth_callback";
    const { verifier, challenge } = pkce();
    const callback = await new Person(alice).signIn(
      authorizationUrl(server.issuer, { clientId, redirectUri, challenge }),
      redirectUri,
    );
    expect(callback.get("iss")).toBe(server.issuer);
    const tokens = await tokenRequest(server.issuer, {
      grant_type: "authorization_code",
      code: String(callback.get("code")),
      redirect_uri: redirectUri,
      client_id: clientId,
      code_verifier: verifier,
    });
    expect(tokens.status, JSON.stringify(tokens.body)).toBe(200);
    expect(tokens.body).toMatchObject({ token_type: "Bearer", scope: "parts:read" });
    expect(tokens.body.refresh_token).toBeTruthy();
  });

  it("ChatGPT's document with a key of the test's own: the code exchange authenticates with private_key_jwt", async () => {
    const { publicKey, privateKey } = await generateKeyPair("RS256", { extractable: true });
    const jwk = { ...(await exportJWK(publicKey)), kid: "test-key", use: "sig", alg: "RS256" };
    const clientId = host.serve("/chatgpt-exchange.json", {
      ...fixture("chatgpt-client-metadata.json"),
      jwks: { keys: [jwk] },
    });
    const redirectUri = "https://chatgpt.com/connector_platform_oauth_redirect";
    const { verifier, challenge } = pkce();
    const callback = await new Person(alice).signIn(
      authorizationUrl(server.issuer, { clientId, redirectUri, challenge }),
      redirectUri,
    );
    const assertion = await new SignJWT({})
      .setProtectedHeader({ alg: "RS256", kid: "test-key" })
      .setIssuer(clientId)
      .setSubject(clientId)
      .setAudience(server.issuer)
      .setJti(randomUUID())
      .setIssuedAt()
      .setExpirationTime("2m")
      .sign(privateKey);
    const exchange = {
      grant_type: "authorization_code",
      code: String(callback.get("code")),
      redirect_uri: redirectUri,
      code_verifier: verifier,
      client_id: clientId,
    };
    const unauthenticated = await tokenRequest(server.issuer, exchange);
    expect(unauthenticated.status).toBe(401);
    const tokens = await tokenRequest(server.issuer, {
      ...exchange,
      client_assertion_type: "urn:ietf:params:oauth:client-assertion-type:jwt-bearer",
      client_assertion: assertion,
    });
    expect(tokens.status, JSON.stringify(tokens.body)).toBe(200);
    expect(tokens.body.access_token).toBeTruthy();
  });

  it.each([
    [
      "on a private address, not trusted",
      () =>
        host.serve(
          "/private.json",
          {
            client_name: "Private",
            redirect_uris: ["http://127.0.0.1:9/callback"],
            token_endpoint_auth_method: "none",
          },
          `https://127.0.0.1:${host.port}`,
        ),
    ],
    ["answering with a redirect loop", () => `${host.origin}/loop.json`],
    ["of 10 MB", () => `${host.origin}/huge.json`],
    ["over plain http", () => `http://localhost:${host.port}/host.json`],
  ])("refuses a document %s", async (_name, clientId) => {
    const { challenge } = pkce();
    const started = Date.now();
    const url = authorizationUrl(server.issuer, {
      clientId: clientId(),
      redirectUri: "http://127.0.0.1:9/callback",
      challenge,
    });
    const page = await new Person(alice).open(url);
    expect(page.status).toBe(400);
    expect(page.url).not.toContain("/sign-in/");
    expect(Date.now() - started).toBeLessThan(6_000);
  });
});

describe("hostile input", () => {
  it("1,000 registrations from one address: the first ones succeed, the rest get 429 with Retry-After", async () => {
    const statuses: number[] = [];
    let retryAfter: string | null = null;
    for (let batch = 0; batch < 20; batch++) {
      const answers = await Promise.all(
        Array.from({ length: 50 }, () =>
          fetch(`${server.issuer}/register`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ client_name: "flood", redirect_uris: ["http://127.0.0.1:9/cb"] }),
          }),
        ),
      );
      for (const answer of answers) {
        statuses.push(answer.status);
        if (answer.status === 429) retryAfter = answer.headers.get("retry-after");
        await answer.body?.cancel();
      }
    }
    expect(statuses.filter((s) => s === 201)).toHaveLength(REGISTER_PER_MINUTE);
    expect(statuses.filter((s) => s === 429)).toHaveLength(1_000 - REGISTER_PER_MINUTE);
    expect(Number(retryAfter)).toBeGreaterThan(0);
    expect((await fetch(`${server.issuer}/healthz`)).status).toBe(200);
  });

  it("the PAT form refuses huge, malformed and script-bearing input, wrong tokens and a missing CSRF token", async () => {
    const { person, page } = await signInPageOf("/form.json", "Form Host");
    const script = "<script>alert(1)</script>";
    const cases: [Record<string, string>, number, RegExp][] = [
      [{ csrf: page.csrf, token: "x".repeat(20_000) }, 413, /far too long/],
      [{ csrf: page.csrf, token: "two words\u0000" }, 400, /does not look like a personal access token/],
      [{ csrf: page.csrf, token: script }, 401, /did not accept this token/],
      [{ csrf: page.csrf, token: "pat_wrong_but_well_formed_0123456789" }, 401, /did not accept this token/],
      [{ token: alice }, 403, /Form expired/],
      [{ csrf: "forged", token: alice }, 403, /Form expired/],
    ];
    for (const [fields, status, message] of cases) {
      const { response } = await person.submit(page, fields);
      const html = await response.text();
      expect(response.status, html).toBe(status);
      expect(html).toMatch(message);
      expect(html).not.toContain(script);
      expect(html).not.toContain(alice);
    }
    for (const secret of [script, "pat_wrong_but_well_formed_0123456789", alice]) {
      expect(server.stderr()).not.toContain(secret);
    }
    // The form still works afterwards.
    const done = await person.submit(page, { csrf: page.csrf, token: alice });
    expect(done.url).toMatch(/^http:\/\/127\.0\.0\.1:9\/callback\?code=/);
  });

  it("a replayed authorization code is refused, and the tokens it gave are revoked", async () => {
    const redirectUri = "http://127.0.0.1:9/callback";
    const clientId = host.serve("/replay.json", {
      client_name: "Replay",
      redirect_uris: [redirectUri],
      token_endpoint_auth_method: "none",
    });
    const { verifier, challenge } = pkce();
    const callback = await new Person(alice).signIn(
      authorizationUrl(server.issuer, { clientId, redirectUri, challenge }),
    );
    const exchange = {
      grant_type: "authorization_code",
      code: String(callback.get("code")),
      redirect_uri: redirectUri,
      client_id: clientId,
      code_verifier: verifier,
    };
    const first = await tokenRequest(server.issuer, exchange);
    expect(first.status).toBe(200);
    const replay = await tokenRequest(server.issuer, exchange);
    expect(replay.status).toBe(400);
    expect(replay.body.error).toBe("invalid_grant");
    await expectRefusedWithin(server.url, first.body.access_token, 5_000);
  });

  it("token requests past 120 a minute from one address get 429 with Retry-After", async () => {
    const answers = await Promise.all(
      Array.from({ length: 130 }, () =>
        fetch(`${server.issuer}/token`, {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body: new URLSearchParams({
            grant_type: "refresh_token",
            refresh_token: "nope",
            client_id: "nope",
          }),
        }).then(async (r) => {
          await r.body?.cancel();
          return { status: r.status, retryAfter: r.headers.get("retry-after") };
        }),
      ),
    );
    const limited = answers.filter((a) => a.status === 429);
    // Earlier tests of this file used a few of the minute's 120.
    expect(limited.length).toBeGreaterThanOrEqual(10);
    expect(answers.filter((a) => a.status !== 429).length).toBeLessThanOrEqual(120);
    expect(Number(limited[0]?.retryAfter)).toBeGreaterThan(0);
  });

  it("sign-in posts past 30 a minute from one address get 429 with Retry-After, before the form is read", async () => {
    const { person, page } = await signInPageOf("/limit.json", "Limit");
    const statuses: number[] = [];
    let retryAfter: string | null = null;
    for (let i = 0; i < 31; i++) {
      const { response } = await person.submit(page, { csrf: "wrong", token: "x" });
      statuses.push(response.status);
      if (response.status === 429) retryAfter = response.headers.get("retry-after");
      await response.body?.cancel();
    }
    // Earlier tests of this file posted some of the minute's 30.
    expect(statuses.filter((s) => s === 403).length).toBeLessThanOrEqual(30);
    expect(statuses.at(-1)).toBe(429);
    expect(Number(retryAfter)).toBeGreaterThan(0);
  });
});
