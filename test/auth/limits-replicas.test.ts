// Rate limits and expiry across two replicas on one real PostgreSQL (issue 35): each limit of an
// address (registration, token, authorization, sign-in) counts the requests of both replicas
// together, a registration no one signs in with expires and is swept, a used one stays, and
// expired records go within seconds of their expiry, not within the hour.
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO_ACCOUNTS } from "../../src/embedded/testing";
import { type ReplicaPair, startReplicaPair } from "./replica-pair";
import {
  authorizationUrl,
  CALLBACK,
  codeExchange,
  type OAuthServer,
  Person,
  pkce,
  register as registerOn,
  tokenRequest,
} from "./support";

const [alice] = DEMO_ACCOUNTS.map((account) => account.token) as [string];
const LIMIT = 4;
/** Long enough for a sign-in on a loaded machine. */
const UNUSED_TTL_S = 6;

let pair: ReplicaPair;
let a: OAuthServer;
let b: OAuthServer;

beforeAll(async () => {
  // `a` serves the public URL (the issuer); `b` is another replica behind it.
  pair = await startReplicaPair({
    balancer: false,
    env: {
      PARTS_MCP_OAUTH_REGISTER_PER_MINUTE: String(LIMIT),
      PARTS_MCP_OAUTH_TOKEN_PER_MINUTE: String(LIMIT),
      PARTS_MCP_OAUTH_AUTHORIZE_PER_MINUTE: String(LIMIT),
      PARTS_MCP_OAUTH_SIGN_IN_PER_MINUTE: String(LIMIT),
      PARTS_MCP_OAUTH_UNUSED_CLIENT_TTL_S: String(UNUSED_TTL_S),
      PARTS_MCP_OAUTH_SWEEP_INTERVAL_S: "1",
    },
  });
  ({ a, b } = pair);
}, 60_000);
afterAll(async () => {
  await pair?.stop();
});

async function query<Row>(text: string, params: unknown[] = []): Promise<Row[]> {
  const client = new pg.Client({ connectionString: pair.db.url });
  await client.connect();
  try {
    return (await client.query(text, params)).rows as Row[];
  } finally {
    await client.end();
  }
}

const register = (server: OAuthServer) => registerOn(server.origin, { client_name: "Limits" });

const clientIdOf = async (res: Response) => ((await res.json()) as { client_id: string }).client_id;

/** `send` 2 × LIMIT times, alternating the replicas: the statuses in order. */
async function alternate(send: (server: OAuthServer) => Promise<Response>): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < 2 * LIMIT; i++) {
    const res = await send(i % 2 === 0 ? a : b);
    statuses.push(res.status);
    if (res.status === 429) expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
    await res.body?.cancel();
  }
  return statuses;
}

/** At most LIMIT let through by both replicas together, the rest refused with 429. */
function expectLimited(statuses: number[]) {
  expect(statuses.filter((s) => s !== 429).length, statuses.join(" ")).toBeLessThanOrEqual(LIMIT);
  expect(statuses.slice(LIMIT), statuses.join(" ")).toEqual(Array(LIMIT).fill(429));
}

describe("expiry and the sweep", () => {
  it("an unused registration expires and is swept; one someone signed in with stays", async () => {
    const unused = await clientIdOf(await register(a));
    const used = await clientIdOf(await register(b));
    const tokens = await tokenRequest(a.origin, await codeExchange(a.issuer, alice, used));
    expect(tokens.status).toBe(200);
    const registered = await query<{ id: string }>("SELECT id FROM oauth_records WHERE model = 'Client'");
    expect(registered.map((row) => row.id).sort()).toEqual([unused, used].sort());
    await new Promise((resolve) => setTimeout(resolve, (UNUSED_TTL_S + 2) * 1000));
    const clients = await query<{ id: string }>("SELECT id FROM oauth_records WHERE model = 'Client'");
    expect(clients.map((row) => row.id)).toEqual([used]);
    const expired = authorizationUrl(a.issuer, {
      clientId: unused,
      redirectUri: CALLBACK,
      challenge: pkce().challenge,
    });
    expect((await fetch(expired, { redirect: "manual" })).status).toBe(400);
    const refreshed = await tokenRequest(b.origin, {
      grant_type: "refresh_token",
      refresh_token: tokens.body.refresh_token,
      client_id: used,
    });
    expect(refreshed.status, JSON.stringify(refreshed.body)).toBe(200);
  });

  it("deletes records within seconds of their expiry", async () => {
    const [before] = await query<{ n: string }>("SELECT count(*) AS n FROM oauth_records");
    expect(Number(before?.n)).toBeGreaterThan(0);
    const expiring = await query<{ id: string }>(
      "UPDATE oauth_records SET expires_at = $1 WHERE model IN ('Interaction', 'Session', 'AuthorizationCode') RETURNING id",
      [Date.now() - 1],
    );
    expect(expiring.length).toBeGreaterThan(0);
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    const [expired] = await query<{ n: string }>(
      "SELECT count(*) AS n FROM oauth_records WHERE expires_at <= $1",
      [Date.now()],
    );
    expect(Number(expired?.n)).toBe(0);
  });
});

describe("limits per address hold across replicas", () => {
  it("sign-in posts", async () => {
    const clientId = await clientIdOf(await register(a));
    const person = new Person(alice);
    const page = await person.open(
      authorizationUrl(a.issuer, { clientId, redirectUri: CALLBACK, challenge: pkce().challenge }),
    );
    const path = new URL(page.url).pathname;
    const statuses = await alternate((server) =>
      person.request(`${server.origin}${path}`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: "csrf=wrong&token=x",
      }),
    );
    expectLimited(statuses);
  });

  it("token requests", async () => {
    const form = new URLSearchParams({
      grant_type: "refresh_token",
      refresh_token: "nope",
      client_id: "nope",
    });
    expectLimited(
      await alternate((server) =>
        fetch(`${server.origin}/token`, {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body: form,
        }),
      ),
    );
  });

  it("registrations", async () => {
    expectLimited(await alternate(register));
  });

  it("authorization requests", async () => {
    const url = authorizationUrl(a.issuer, {
      clientId: "nope",
      redirectUri: CALLBACK,
      challenge: pkce().challenge,
    });
    expectLimited(
      await alternate((server) =>
        fetch(`${server.origin}${url.pathname}${url.search}`, { redirect: "manual" }),
      ),
    );
  });
});
