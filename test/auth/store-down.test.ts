// The oauth mode with its PostgreSQL stopped: a call whose grant must be checked in the store gets
// 503 with Retry-After and a message saying what happened, not a bare 500; /healthz says 503 too,
// and so does a sign-in or token request whose rate limit cannot be counted.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO_ACCOUNTS, startTestApi, type TestApi } from "../../src/embedded/testing";
import { call, MCP_HEADERS, raw, toolCall } from "../http/support";
import { startPostgres, type TestPostgres } from "./postgres";
import { connectWithSignIn, newKey, type OAuthServer, Person, startOAuthServer, TestHost } from "./support";

const [alice] = DEMO_ACCOUNTS.map((account) => account.token) as [string];
let api: TestApi;
let db: TestPostgres | undefined;
let server: OAuthServer;

beforeAll(async () => {
  [api, db] = await Promise.all([startTestApi(), startPostgres()]);
  server = await startOAuthServer({ api, store: { databaseUrl: db.url }, keys: `k1:${newKey()}` });
}, 60_000);
afterAll(async () => {
  await server?.stop();
  await Promise.all([api?.close(), db?.stop()]);
});

describe("the store stops answering", () => {
  it("answers a call it cannot check with 503, Retry-After and what to do", async () => {
    const host = new TestHost("Store Host");
    const client = await connectWithSignIn(server.url, host, new Person(alice));
    expect((await call(client, "list_standards")).isError).toBeFalsy();
    await client.close();

    await db?.stop();
    db = undefined;
    // Past the 2-second cache of grant checks.
    await new Promise((resolve) => setTimeout(resolve, 2_100));
    const res = await raw(server.url, {
      headers: { ...MCP_HEADERS, authorization: `Bearer ${host.saved?.access_token}` },
      body: toolCall("list_standards"),
    });
    expect(res.status).toBe(503);
    expect(res.headers["retry-after"]).toBe("5");
    expect(JSON.parse(res.body)).toEqual({
      error: "temporarily_unavailable",
      error_description: expect.stringContaining("The sign-in store (the database) does not answer"),
    });
    // The log line is written before the answer, but stderr's pipe may be read after the response.
    const logged = "the store did not answer: a token could not be checked";
    for (let waited = 0; waited < 3_000 && !server.stderr().includes(logged); waited += 20) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(server.stderr()).toContain(logged);
    expect(server.stderr()).not.toContain(String(host.saved?.access_token));
    expect((await fetch(`${server.issuer}/healthz`)).status).toBe(503);

    // A sign-in whose rate limit cannot be counted is answered as the authorization server's
    // routes are: 503 with Retry-After, not a failure of the server.
    for (const path of ["/sign-in/some-interaction", "/token"]) {
      const refused = await raw(`${server.issuer}${path}`, {
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: "token=pat_not_read",
      });
      expect(refused.status, path).toBe(503);
      expect(refused.headers["retry-after"], path).toBe("5");
      expect(JSON.parse(refused.body).error, path).toBe("temporarily_unavailable");
    }
  });
});
