// Two replicas on one real PostgreSQL, behind one public URL: a code authorized on one is
// exchanged on the other, tokens work on both, a revocation on one is refused by the other
// within 5 s, two people interleaved on both never see each other's data. And tokens minted
// with the replicas' own signing key (read from the database with the keyring) for another
// audience, or expired, are refused like forged ones.
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { createServer, request, type Server } from "node:http";
import { join } from "node:path";
import { exportJWK, generateKeyPair, importJWK, type JWK, SignJWT } from "jose";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Keyring } from "../../src/auth/keyring";
import { DEMO_ACCOUNTS, startTestApi, type TestApi } from "../../src/embedded/testing";
import { call, connect, MCP_HEADERS, raw, toolCall } from "../http/support";
import { repoRoot } from "../support/mcp-server";
import { startPostgres, type TestPostgres } from "./postgres";
import {
  authorizationUrl,
  expectRefusedWithin,
  freePort,
  type OAuthServer,
  Person,
  pkce,
  startOAuthServer,
  tokenRequest,
} from "./support";

const [alice, bob] = DEMO_ACCOUNTS.map((account) => account.token) as [string, string];
const KEY = randomBytes(32);
const REDIRECT = "http://127.0.0.1:9/callback";

let api: TestApi;
let db: TestPostgres;
let a: OAuthServer;
let b: OAuthServer;
/** The balancer in front of both, at the public URL; it sends everything to `target`. */
let balancer: Server;
let target: OAuthServer;

function startBalancer(port: number): Promise<Server> {
  const server = createServer((req, res) => {
    const { port: to } = new URL(target.origin);
    const upstream = request(
      { host: "127.0.0.1", port: Number(to), path: req.url, method: req.method, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on("error", () => res.destroy());
    req.pipe(upstream);
  });
  return new Promise((resolve) => server.listen(port, "127.0.0.1", () => resolve(server)));
}

beforeAll(async () => {
  [api, db] = await Promise.all([startTestApi(), startPostgres()]);
  const publicPort = await freePort();
  const options = { api, store: { databaseUrl: db.url }, keys: `k1:${KEY.toString("base64")}`, publicPort };
  // Started together: the migrations and the first-start secrets are made once, under a lock.
  [a, b] = await Promise.all([startOAuthServer(options), startOAuthServer(options)]);
  target = a;
  balancer = await startBalancer(publicPort);
}, 60_000);
afterAll(async () => {
  balancer?.closeAllConnections();
  balancer?.close();
  await Promise.all([a?.stop(), b?.stop()]);
  await Promise.all([api?.close(), db?.stop()]);
});

/** A DCR client registered on `server`, then a person's sign-in there: the code and verifier. */
async function authorizeOn(server: OAuthServer, token: string, scope = "parts:read") {
  const registered = await fetch(`${server.origin}/register`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      client_name: "Replica Host",
      redirect_uris: [REDIRECT],
      token_endpoint_auth_method: "none",
    }),
  });
  const { client_id: clientId } = (await registered.json()) as { client_id: string };
  const { verifier, challenge } = pkce();
  target = server;
  const url = authorizationUrl(server.issuer, { clientId, redirectUri: REDIRECT, challenge, scope });
  const callback = await new Person(token).signIn(url);
  return { clientId, verifier, code: String(callback.get("code")) };
}

async function exchangeOn(server: OAuthServer, grant: Awaited<ReturnType<typeof authorizeOn>>) {
  const tokens = await tokenRequest(server.origin, {
    grant_type: "authorization_code",
    code: grant.code,
    redirect_uri: REDIRECT,
    client_id: grant.clientId,
    code_verifier: grant.verifier,
  });
  expect(tokens.status, JSON.stringify(tokens.body)).toBe(200);
  return tokens.body as { access_token: string; refresh_token: string; scope: string };
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

describe("two replicas, one PostgreSQL", () => {
  it("applied the migrations once", async () => {
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    const { rows } = await client.query("SELECT version FROM parts_mcp_migrations ORDER BY version");
    await client.end();
    expect(rows).toEqual([{ version: 1 }, { version: 2 }, { version: 3 }]);
    for (const server of [a, b]) {
      expect(await (await fetch(`${server.origin}/healthz`)).json()).toEqual({
        status: "ok",
        store: "postgres",
      });
    }
  });

  /** Alice authorizes on one replica, exchanges the code on the other, and calls both. */
  async function signedInAcrossReplicas() {
    const grant = await authorizeOn(a, alice);
    const tokens = await exchangeOn(b, grant);
    for (const server of [a, b]) {
      const client = await connect(`${server.origin}/mcp`, bearer(tokens.access_token));
      expect((await call(client, "list_standards")).isError).toBeFalsy();
      await client.close();
    }
    return { grant, tokens };
  }

  it("authorize on one, exchange on the other, call both; revoke on one, the other refuses within 5 s", async () => {
    const { grant, tokens } = await signedInAcrossReplicas();
    const revoked = await fetch(`${a.origin}/revoke`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ token: tokens.refresh_token, client_id: grant.clientId }),
    });
    expect(revoked.status).toBe(200);
    const took = await expectRefusedWithin(`${b.origin}/mcp`, tokens.access_token, 5_000);
    expect(took).toBeLessThanOrEqual(5_000);
  });

  it("ends a connection whose grant an operator deletes with the SQL of docs/deploying.md, on every replica within 2 s", async () => {
    const { tokens } = await signedInAcrossReplicas();
    const grantId = String(
      JSON.parse(Buffer.from(tokens.access_token.split(".")[1] as string, "base64url").toString()).grant_id,
    );
    const deploying = readFileSync(join(repoRoot, "docs", "deploying.md"), "utf8");
    const sql = /`(DELETE FROM oauth_grant_tokens[^`]+)`/.exec(deploying)?.[1];
    expect(sql, "the statement of docs/deploying.md").toBeDefined();
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      for (const statement of (sql as string).split(";").filter((part) => part.trim() !== "")) {
        await client.query(statement, [grantId]);
      }
    } finally {
      await client.end();
    }
    // 2 s of cache, and a request's own time on top.
    for (const server of [a, b]) {
      expect(
        await expectRefusedWithin(`${server.origin}/mcp`, tokens.access_token, 2_500),
      ).toBeLessThanOrEqual(2_500);
    }
  });

  it("two people interleaved on both replicas never see each other's data", async () => {
    const aliceTokens = await exchangeOn(a, await authorizeOn(b, alice, "parts:read parts:write"));
    const bobTokens = await exchangeOn(b, await authorizeOn(a, bob, "parts:read parts:write"));
    const title = `Replica isolation bracket ${randomBytes(4).toString("hex")}`;
    const aliceOnA = await connect(`${a.origin}/mcp`, bearer(aliceTokens.access_token));
    const created = await call(aliceOnA, "create_part", { title });
    expect(created.isError, JSON.stringify(created.content)).toBeFalsy();
    const id = (created.structuredContent as { id: string }).id;
    const clients = {
      alice: await Promise.all(
        [a, b].map((s) => connect(`${s.origin}/mcp`, bearer(aliceTokens.access_token))),
      ),
      bob: await Promise.all([a, b].map((s) => connect(`${s.origin}/mcp`, bearer(bobTokens.access_token)))),
    };
    for (let round = 0; round < 3; round++) {
      const answers = await Promise.all(
        [0, 1].flatMap((i) => [
          call(clients.alice[i] as never, "get_part", { id }),
          call(clients.bob[i] as never, "get_part", { id }),
          call(clients.bob[i] as never, "search_parts", { query: title }),
        ]),
      );
      for (let i = 0; i < answers.length; i += 3) {
        expect(answers[i]?.isError).toBeFalsy();
        expect(answers[i + 1]?.isError).toBe(true);
        expect(JSON.stringify(answers[i + 2]?.structuredContent ?? answers[i + 2]?.content)).not.toContain(
          id,
        );
      }
    }
    await Promise.all([aliceOnA, ...clients.alice, ...clients.bob].map((c) => c.close()));
  });
});

describe("tokens signed with the replicas' own key", () => {
  async function signingKey(): Promise<JWK> {
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    const { rows } = await client.query("SELECT sealed FROM oauth_secrets WHERE name = 'signing-key-es256'");
    await client.end();
    const opened = new Keyring([{ kid: "k1", key: KEY }]).open(rows[0].sealed, "secret:signing-key-es256");
    return JSON.parse(String(opened)) as JWK;
  }

  it("accepts a well-formed one, refuses other-audience, expired and foreign-key ones with 401", async () => {
    const grant = await authorizeOn(a, alice);
    const real = await exchangeOn(a, grant);
    const claims = JSON.parse(Buffer.from(real.access_token.split(".")[1] as string, "base64url").toString());
    const jwk = await signingKey();
    const mint = async (change: Record<string, unknown>, key: JWK = jwk) =>
      new SignJWT({ ...claims, ...change })
        .setProtectedHeader({ alg: "ES256", typ: "at+jwt", kid: String(key.kid) })
        .sign(await importJWK(key, "ES256"));
    const foreign = {
      ...(await exportJWK((await generateKeyPair("ES256", { extractable: true })).privateKey)),
      kid: jwk.kid,
    };
    const now = Math.floor(Date.now() / 1000);
    const status = async (token: string) =>
      (
        await raw(`${b.origin}/mcp`, {
          headers: { ...MCP_HEADERS, ...bearer(token) },
          body: toolCall("list_standards"),
        })
      ).status;

    expect(await status(await mint({}))).toBe(200);
    expect(await status(await mint({ aud: "https://other.example/mcp" }))).toBe(401);
    expect(await status(await mint({ iat: now - 7200, exp: now - 3600 }))).toBe(401);
    expect(await status(await mint({}, foreign as JWK))).toBe(401);
    expect(await status(await mint({ grant_id: "no-such-grant" }))).toBe(401);
  });

  it("keeps no Parts API token, code or refresh token in the clear in the database", async () => {
    const grant = await authorizeOn(a, bob);
    const tokens = await exchangeOn(b, grant);
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    const dump = JSON.stringify(
      await Promise.all(
        ["oauth_records", "oauth_grant_tokens", "oauth_secrets"].map(
          async (t) => (await client.query(`SELECT * FROM ${t}`)).rows,
        ),
      ),
    );
    await client.end();
    expect(dump).toContain("grant");
    for (const secret of [alice, bob, grant.code, tokens.refresh_token]) expect(dump).not.toContain(secret);
  });
});
