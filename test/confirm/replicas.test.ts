// Confirmed writes in the oauth mode, two replicas on one real PostgreSQL: a confirmation asked on
// one replica is answered on the other (they share the sealing key through the store), and the
// same answer presented again, on either, is refused (the ledger of answered confirmations is a
// table of that database), so a write confirmed once is written once.
import { randomBytes } from "node:crypto";
import { createServer, request, type Server } from "node:http";
import { type CallToolResult, Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO_ACCOUNTS, startTestApi, type TestApi } from "../../src/embedded/testing";
import { startPostgres, type TestPostgres } from "../auth/postgres";
import {
  authorizationUrl,
  freePort,
  type OAuthServer,
  Person,
  pkce,
  startOAuthServer,
  tokenRequest,
} from "../auth/support";

const KEY = randomBytes(32);
const REDIRECT = "http://127.0.0.1:9/callback";

let api: TestApi;
let db: TestPostgres;
let a: OAuthServer;
let b: OAuthServer;
let balancer: Server;

beforeAll(async () => {
  [api, db] = await Promise.all([startTestApi(), startPostgres()]);
  const publicPort = await freePort();
  const options = { api, store: { databaseUrl: db.url }, keys: `k1:${KEY.toString("base64")}`, publicPort };
  [a, b] = await Promise.all([startOAuthServer(options), startOAuthServer(options)]);
  // The public URL (the issuer) leads to replica a; each replica is also called at its own origin.
  balancer = createServer((req, res) => {
    const upstream = request(
      {
        host: "127.0.0.1",
        port: Number(new URL(a.origin).port),
        path: req.url,
        method: req.method,
        headers: req.headers,
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on("error", () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => balancer.listen(publicPort, "127.0.0.1", () => resolve()));
}, 60_000);

afterAll(async () => {
  balancer?.closeAllConnections();
  balancer?.close();
  await Promise.all([a?.stop(), b?.stop()]);
  await Promise.all([api?.close(), db?.stop()]);
});

/** Alice's access token with parts:write, signed in through the public URL. */
async function signIn(): Promise<string> {
  const registered = await fetch(`${a.origin}/register`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      client_name: "Confirm Host",
      redirect_uris: [REDIRECT],
      token_endpoint_auth_method: "none",
    }),
  });
  const { client_id: clientId } = (await registered.json()) as { client_id: string };
  const { verifier, challenge } = pkce();
  const scope = "parts:read parts:write";
  const url = authorizationUrl(a.issuer, { clientId, redirectUri: REDIRECT, challenge, scope });
  const code = String((await new Person(DEMO_ACCOUNTS[0]?.token as string).signIn(url)).get("code"));
  const tokens = await tokenRequest(a.origin, {
    grant_type: "authorization_code",
    code,
    redirect_uri: REDIRECT,
    client_id: clientId,
    code_verifier: verifier,
  });
  expect(tokens.status, JSON.stringify(tokens.body)).toBe(200);
  return (tokens.body as { access_token: string }).access_token;
}

async function clientOf(replica: OAuthServer, accessToken: string): Promise<Client> {
  const client = new Client(
    { name: "confirm-replicas", version: "1.0.0" },
    { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: { pin: "2026-07-28" } } },
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${replica.origin}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${accessToken}` } },
    }),
  );
  return client;
}

describe("confirmed writes across two oauth replicas", () => {
  it("asked on one, answered on the other, written once; the answer replayed on either is refused", async () => {
    const token = await signIn();
    const [onA, onB] = await Promise.all([clientOf(a, token), clientOf(b, token)]);
    try {
      const args = { title: `Replica confirm ${Date.now()}` };
      const first = (await onA.callTool(
        { name: "create_part", arguments: args },
        { allowInputRequired: true },
      )) as unknown as { resultType: string; requestState: string };
      expect(first.resultType).toBe("input_required");
      const answer = {
        name: "create_part",
        arguments: args,
        inputResponses: { confirm: { action: "accept", content: { confirm: true } } },
        requestState: first.requestState,
      } as never;
      const written = (await onB.callTool(answer)) as CallToolResult;
      expect(written.isError, JSON.stringify(written.content)).toBeFalsy();
      for (const replica of [onA, onB]) {
        expect(await replica.callTool(answer).catch((error: unknown) => error)).toMatchObject({
          code: -32602,
          data: { reason: "invalid_request_state" },
        });
      }
      expect(api.store.countPartsWithTitle(args.title)).toBe(1);
      const sql = new pg.Client({ connectionString: db.url });
      await sql.connect();
      const { rows } = await sql.query("SELECT count(*)::int AS n FROM confirmations_answered");
      await sql.end();
      expect(rows[0].n).toBe(1);
    } finally {
      await Promise.all([onA.close(), onB.close()]);
    }
  }, 60_000);
});
