// Confirmed writes in the oauth mode, two replicas on one real PostgreSQL: a confirmation asked on
// one replica is answered on the other (they share the sealing key through the store), and the
// same answer presented again, on either, is refused (the ledger of answered confirmations is a
// table of that database), so a write confirmed once is written once.
import { type CallToolResult, Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO_ACCOUNTS } from "../../src/embedded/testing";
import { type ReplicaPair, startReplicaPair } from "../auth/replica-pair";
import { codeExchange, type OAuthServer, registerClient, tokenRequest } from "../auth/support";

let pair: ReplicaPair;

beforeAll(async () => {
  // The public URL (the issuer) leads to replica a; each replica is also called at its own origin.
  pair = await startReplicaPair();
}, 60_000);
afterAll(async () => {
  await pair?.stop();
});

/** Alice's access token with parts:write, signed in through the public URL. */
async function signIn(): Promise<string> {
  const { a } = pair;
  const clientId = await registerClient(a.origin, { client_name: "Confirm Host" });
  const exchange = await codeExchange(
    a.issuer,
    DEMO_ACCOUNTS[0]?.token as string,
    clientId,
    "parts:read parts:write",
  );
  const tokens = await tokenRequest(a.origin, exchange);
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
    const [onA, onB] = await Promise.all([clientOf(pair.a, token), clientOf(pair.b, token)]);
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
      expect(pair.api.store.countPartsWithTitle(args.title)).toBe(1);
      const sql = new pg.Client({ connectionString: pair.db.url });
      await sql.connect();
      const { rows } = await sql.query("SELECT count(*)::int AS n FROM confirmations_answered");
      await sql.end();
      expect(rows[0].n).toBe(1);
    } finally {
      await Promise.all([onA.close(), onB.close()]);
    }
  }, 60_000);
});
