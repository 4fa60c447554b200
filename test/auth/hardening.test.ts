// The authorization server's wrapper under the shapes a hostile round tried (issue 35): other
// spellings of its paths, oversized bodies, discovery naming endpoints that do not answer, DPoP
// proofs, refreshes refused after rotation, a self-registered name built to mislead on the
// sign-in page, oversized authorization requests, and one client_id's requests from one address.
import { randomUUID } from "node:crypto";
import { request } from "node:http";
import { exportJWK, generateKeyPair, SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO_ACCOUNTS, startTestApi, type TestApi } from "../../src/embedded/testing";
import { MCP_HEADERS, raw, toolCall } from "../http/support";
import { type DocumentHost, startDocumentHost } from "./document-host";
import {
  authorizationUrl,
  CALLBACK,
  codeExchange,
  type OAuthServer,
  Person,
  pkce,
  registerClient,
  startOAuthServer,
  tokenRequest,
} from "./support";

const [alice] = DEMO_ACCOUNTS.map((account) => account.token) as [string];
const CLIENT_PER_MINUTE = 25;

let api: TestApi;
let documents: DocumentHost;
let server: OAuthServer;

beforeAll(async () => {
  [api, documents] = await Promise.all([startTestApi(), startDocumentHost()]);
  server = await startOAuthServer({
    api,
    env: {
      ...documents.trustEnv,
      PARTS_MCP_OAUTH_CLIENT_PER_MINUTE: String(CLIENT_PER_MINUTE),
      PARTS_MCP_OAUTH_AUTHORIZE_PER_MINUTE: "500",
    },
  });
}, 60_000);
afterAll(async () => {
  await server?.stop();
  await Promise.all([api?.close(), documents?.close()]);
});

/** One request with `path` sent exactly as written (fetch would normalise some spellings). */
function exact(method: string, path: string, body = "", type = "application/json") {
  const { port } = new URL(server.origin);
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = request(
      { host: "127.0.0.1", port, method, path, headers: { "content-type": type } },
      (res) => {
        let text = "";
        res.on("data", (chunk: Buffer) => {
          text += chunk.toString();
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

const register = (metadata: Record<string, unknown> = {}) => registerClient(server.issuer, metadata);

/** A registered client, a sign-in and the code: what to exchange. */
async function authorized() {
  const clientId = await register({ client_name: "Hardening Host" });
  return { clientId, exchange: await codeExchange(server.issuer, alice, clientId) };
}

const mcpStatus = async (authorization: string) =>
  (await raw(server.url, { headers: { ...MCP_HEADERS, authorization }, body: toolCall("list_standards") }))
    .status;

describe("one door to the authorization server (R4-2)", () => {
  it("refuses every other spelling of its paths with 404, and routes it does not use", async () => {
    const registration = JSON.stringify({
      client_name: "slash",
      redirect_uris: [CALLBACK],
      scope: "parts:read",
    });
    const form = "grant_type=refresh_token&refresh_token=x&client_id=x";
    const form_ = "application/x-www-form-urlencoded";
    for (const [method, path, body, type] of [
      ["POST", "/register/", registration, undefined],
      ["POST", "//register", registration, undefined],
      ["POST", "/REGISTER", registration, undefined],
      ["POST", "/%72egister", registration, undefined],
      ["POST", "/register%2F", registration, undefined],
      ["POST", "/register/?x=1", registration, undefined],
      ["POST", "/token/", form, form_],
      ["POST", "/Token", form, form_],
      ["POST", "/revoke/", "token=x&client_id=x", form_],
      ["GET", "/jwks/", "", undefined],
      ["GET", "/.well-known/openid-configuration/", "", undefined],
      ["GET", "/authorize/", "", undefined],
      ["POST", "/request", "client_id=x", form_],
      ["GET", "/session/end", "", undefined],
      ["POST", "/session/end/confirm", "xsrf=x", form_],
      ["GET", "/sign-in/", "", undefined],
      ["GET", "/sign-in/a/b", "", undefined],
    ] as const) {
      const answer = await exact(method, path, body, type);
      expect(answer.status, `${method} ${path}: ${answer.body}`).toBe(404);
    }
  });

  it("a query string does not skip the metadata filter; a wrong method gets 405", async () => {
    const answer = await exact(
      "POST",
      "/register?x=1",
      JSON.stringify({ client_name: "query", redirect_uris: [CALLBACK], scope: "parts:read" }),
    );
    expect(answer.status, answer.body).toBe(201);
    expect(JSON.parse(answer.body).scope).toBeUndefined();
    expect((await exact("GET", "/token")).status).toBe(405);
  });

  it("caps the body of every POST at 16 KB, /token and /revoke included", async () => {
    const padding = `&pad=${"x".repeat(20 * 1024)}`;
    const form = "application/x-www-form-urlencoded";
    for (const [path, body] of [
      ["/token", `grant_type=refresh_token&refresh_token=x&client_id=x${padding}`],
      ["/revoke", `token=x&client_id=x${padding}`],
    ] as const) {
      const answer = await exact("POST", path, body, form);
      expect(answer.status, `${path}: ${answer.body}`).toBe(413);
      expect(JSON.parse(answer.body).error_description).toMatch(/at most 16 KB/);
    }
  });
});

describe("discovery", () => {
  it("advertises only endpoints that answer: no PAR, no logout, no DPoP", async () => {
    const metadata = (await (
      await fetch(`${server.issuer}/.well-known/oauth-authorization-server`)
    ).json()) as Record<string, unknown>;
    expect(metadata.pushed_authorization_request_endpoint).toBeUndefined();
    expect(metadata.end_session_endpoint).toBeUndefined();
    expect(metadata.dpop_signing_alg_values_supported).toBeUndefined();
    const endpoints = Object.entries(metadata).filter(([key]) => /_endpoint$|_uri$/.test(key));
    expect(endpoints.map(([key]) => key).sort()).toEqual([
      "authorization_endpoint",
      "jwks_uri",
      "registration_endpoint",
      "revocation_endpoint",
      "token_endpoint",
    ]);
    for (const [key, url] of endpoints) {
      const get = key === "authorization_endpoint" || key === "jwks_uri";
      const res = await fetch(String(url), get ? {} : { method: "POST" });
      expect(res.status, key).not.toBe(404);
      await res.body?.cancel();
    }
  });
});

describe("DPoP (R4-3): not issued, not accepted", () => {
  it("a code exchanged with a DPoP proof gives a Bearer token; `Authorization: DPoP` is refused at /mcp", async () => {
    const { exchange } = await authorized();
    const { publicKey, privateKey } = await generateKeyPair("ES256", { extractable: true });
    const proof = await new SignJWT({ htm: "POST", htu: `${server.issuer}/token`, jti: randomUUID() })
      .setProtectedHeader({ alg: "ES256", typ: "dpop+jwt", jwk: await exportJWK(publicKey) })
      .setIssuedAt()
      .sign(privateKey);
    const res = await fetch(`${server.issuer}/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", dpop: proof },
      body: new URLSearchParams(exchange),
    });
    const tokens = (await res.json()) as { token_type: string; access_token: string };
    expect(res.status, JSON.stringify(tokens)).toBe(200);
    expect(tokens.token_type).toBe("Bearer");
    const claims = JSON.parse(Buffer.from(String(tokens.access_token.split(".")[1]), "base64url").toString());
    expect(claims.cnf).toBeUndefined();
    expect(await mcpStatus(`DPoP ${tokens.access_token}`)).toBe(401);
    expect(await mcpStatus(`Bearer ${tokens.access_token}`)).toBe(200);
  });
});

describe("a refused refresh (R4-5)", () => {
  it("leaves the refresh token and the grant usable, whatever it was refused for", async () => {
    const { clientId, exchange } = await authorized();
    const first = await tokenRequest(server.issuer, exchange);
    expect(first.status).toBe(200);
    const refresh = {
      grant_type: "refresh_token",
      refresh_token: first.body.refresh_token,
      client_id: clientId,
    };
    for (const [change, error] of [
      [{ resource: `${server.url}/` }, "invalid_target"],
      [{ resource: "https://other.example/mcp" }, "invalid_target"],
      [{ scope: "parts:write" }, "invalid_scope"],
    ] as const) {
      const refused = await tokenRequest(server.issuer, { ...refresh, ...change });
      expect(refused.status).toBe(400);
      expect(refused.body.error).toBe(error);
    }
    const refreshed = await tokenRequest(server.issuer, refresh);
    expect(refreshed.status, JSON.stringify(refreshed.body)).toBe(200);
    expect(await mcpStatus(`Bearer ${refreshed.body.access_token}`)).toBe(200);
    expect(await mcpStatus(`Bearer ${first.body.access_token}`)).toBe(200);
  });
});

describe("the sign-in page and client-chosen text (R4-4)", () => {
  it("gates, collapses and caps a registered name, after the redirect host", async () => {
    const name = `\u202Egnp.exe\u200B Trusted${"\u00A0".repeat(3_000)}Corp${"\u3000\u2003".repeat(50)}\u2066x`;
    const clientId = await register({ client_name: name });
    const page = await new Person(alice).open(
      authorizationUrl(server.issuer, { clientId, redirectUri: CALLBACK, challenge: pkce().challenge }),
    );
    expect(page.status, page.html).toBe(200);
    expect(page.html).not.toMatch(/[\u202E\u200B\u2066\u00A0\u3000\u2003]/);
    const shown = /calls itself <strong>([^<]*)<\/strong>/.exec(page.html)?.[1] ?? "";
    expect(shown.startsWith("\\u202Egnp.exe\\u200B Trusted Corp")).toBe(true);
    expect([...shown].length).toBeLessThanOrEqual(64);
    const host = new URL(CALLBACK).host;
    expect(page.html.indexOf(host)).toBeGreaterThan(0);
    expect(page.html.indexOf(host)).toBeLessThan(page.html.indexOf("\\u202E"));
  });

  it("names a metadata document's host, before the name it gives", async () => {
    const clientId = documents.serve("/misleading.json", {
      client_name: "Parts Official Connector",
      redirect_uris: [CALLBACK],
      token_endpoint_auth_method: "none",
    });
    const page = await new Person(alice).open(
      authorizationUrl(server.issuer, { clientId, redirectUri: CALLBACK, challenge: pkce().challenge }),
    );
    expect(page.status, page.html).toBe(200);
    const documentHost = `described by <code>${new URL(clientId).host}</code>`;
    expect(page.html).toContain(documentHost);
    expect(page.html.indexOf(documentHost)).toBeLessThan(page.html.indexOf("Parts Official Connector"));
  });
});

describe("authorization requests (R4-6)", () => {
  it("refuses a 12 KiB state with a page that says so", async () => {
    const clientId = await register();
    const url = authorizationUrl(server.issuer, {
      clientId,
      redirectUri: CALLBACK,
      challenge: pkce().challenge,
    });
    url.searchParams.set("state", "s".repeat(12 * 1024));
    const res = await fetch(url, { redirect: "manual" });
    expect(res.status).toBe(400);
    expect(await res.text()).toMatch(/The state parameter of the authorization request is longer than 1024/);
  });

  it("limits one client_id's requests per minute, apart from the address's", async () => {
    const [busy, other] = [await register(), await register()];
    const statuses: number[] = [];
    let retryAfter: string | null = null;
    for (let i = 0; i <= CLIENT_PER_MINUTE; i++) {
      const url = authorizationUrl(server.issuer, {
        clientId: busy,
        redirectUri: CALLBACK,
        challenge: pkce().challenge,
      });
      const res = await fetch(url, { redirect: "manual" });
      statuses.push(res.status);
      if (res.status === 429) retryAfter = res.headers.get("retry-after");
      await res.body?.cancel();
    }
    expect(statuses.slice(0, CLIENT_PER_MINUTE).every((s) => s === 303 || s === 302)).toBe(true);
    expect(statuses.at(-1)).toBe(429);
    expect(Number(retryAfter)).toBeGreaterThan(0);
    const url = authorizationUrl(server.issuer, {
      clientId: other,
      redirectUri: CALLBACK,
      challenge: pkce().challenge,
    });
    const res = await fetch(url, { redirect: "manual" });
    expect(res.status).not.toBe(429);
  });

  it("counts a token request with a client assertion against the assertion's subject", async () => {
    const part = (value: object) => Buffer.from(JSON.stringify(value)).toString("base64url");
    const assertion = (sub: string) => `${part({ alg: "ES256" })}.${part({ sub })}.c2lnbmF0dXJl`;
    const tokenStatus = async (sub: string) => {
      const res = await fetch(`${server.issuer}/token`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({
          grant_type: "authorization_code",
          code: "not-a-code",
          client_assertion_type: "urn:ietf:params:oauth:client-assertion-type:jwt-bearer",
          client_assertion: assertion(sub),
        }),
      });
      await res.body?.cancel();
      return res.status;
    };
    const statuses: number[] = [];
    for (let i = 0; i <= CLIENT_PER_MINUTE; i++)
      statuses.push(await tokenStatus("https://busy.example/client"));
    expect(statuses.slice(0, CLIENT_PER_MINUTE)).not.toContain(429);
    expect(statuses.at(-1)).toBe(429);
    expect(await tokenStatus("https://other.example/client")).not.toBe(429);
  });
});
