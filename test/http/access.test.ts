// Access control over HTTP, through the real stack (SDK Client → parts-mcp --http → embedded
// API): shared access keys, per-user API tokens, and what one organisation's token lets it see.
import type { ReadResourceResult } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Part } from "../../src/api/schemas";
import { startTestApi, type TestApi } from "../../src/embedded/testing";
import {
  call,
  connect,
  type HttpServerProcess,
  initializeBody,
  MCP_HEADERS,
  ok,
  raw,
  spawnHttpServer,
  toolCall,
} from "./support";

const KEYS = ["pmk_test_alpha_3c1f9e7a2b6d4f80", "pmk_test_bravo_91d2e4c6a8b0f357"];
const WRONG_KEY = "pmk_test_wrong_000000000000";

let api: TestApi;
let shared: HttpServerProcess;
let perUser: HttpServerProcess;

beforeAll(async () => {
  api = await startTestApi();
  [shared, perUser] = await Promise.all([
    spawnHttpServer({ api, env: { PARTS_MCP_ACCESS_KEYS: KEYS.join(",") } }),
    spawnHttpServer({ api, args: ["--auth", "per-user"], env: { PARTS_API_TOKEN: "" } }),
  ]);
});

afterAll(async () => {
  await Promise.all([shared?.stop(), perUser?.stop()]);
  await api?.close();
});

describe("shared access keys (PARTS_MCP_ACCESS_KEYS)", () => {
  it("refuses a request without a key: 401 with WWW-Authenticate: Bearer", async () => {
    const res = await raw(shared.url, { headers: MCP_HEADERS, body: initializeBody });
    expect(res.status).toBe(401);
    expect(res.headers["www-authenticate"]).toMatch(/^Bearer\b/);
    expect(JSON.parse(res.body).error.message).toMatch(/Authorization: Bearer/);
  });

  it("refuses a wrong key, and a right key sent with another scheme", async () => {
    for (const authorization of [`Bearer ${WRONG_KEY}`, `Bearer ${KEYS[0]}x`, `Basic ${KEYS[0]}`, "Bearer"]) {
      const res = await raw(shared.url, { headers: { ...MCP_HEADERS, authorization }, body: initializeBody });
      expect(res.status, authorization).toBe(401);
      expect(res.headers["www-authenticate"]).toMatch(/^Bearer\b.*invalid_token/);
    }
  });

  it("serves a client with either key, calling the API with the server's own token", async () => {
    for (const key of KEYS) {
      const client = await connect(shared.url, { authorization: `Bearer ${key}` });
      try {
        const process = ok(await call(client, "get_process", { code: "cnc-milling" }));
        expect(process.code).toBe("cnc-milling");
        const part = ok<Part>(await call(client, "get_part", { id: ownedPart().id }));
        expect(part.id).toBe(ownedPart().id);
      } finally {
        await client.close();
      }
    }
    expect(api.stats.lastHeaders("getPart")?.authorization).toBe(`Bearer ${api.demoToken}`);
  });

  it("is refused through the SDK client too, without a key", async () => {
    await expect(connect(shared.url)).rejects.toMatchObject({
      data: { status: 401 },
      message: expect.stringMatching(/access keys/),
    });
  });

  it("refuses X-Parts-Api-Token, which it would not use", async () => {
    const res = await raw(shared.url, {
      headers: {
        ...MCP_HEADERS,
        authorization: `Bearer ${KEYS[0]}`,
        "x-parts-api-token": api.accounts[1]!.token,
      },
      body: initializeBody,
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatch(/X-Parts-Api-Token/);
  });

  it("never writes a key to its logs", () => {
    expect(shared.stderr()).toMatch(/"access":"shared"/);
    for (const key of KEYS) expect(shared.stderr()).not.toContain(key);
    expect(shared.stderr()).not.toContain(WRONG_KEY);
  });
});

describe("per-user tokens (PARTS_MCP_AUTH=per-user)", () => {
  it("refuses a request without X-Parts-Api-Token: 401 with WWW-Authenticate: Bearer", async () => {
    const res = await raw(perUser.url, { headers: MCP_HEADERS, body: initializeBody });
    expect(res.status).toBe(401);
    expect(res.headers["www-authenticate"]).toMatch(/^Bearer\b/);
    expect(JSON.parse(res.body).error.message).toMatch(/X-Parts-Api-Token/);
  });

  it("refuses a malformed token before calling the API", async () => {
    const before = api.stats.requests();
    const res = await raw(perUser.url, {
      headers: { ...MCP_HEADERS, "x-parts-api-token": "Bearer" },
      body: toolCall("get_process", { code: "cnc-milling" }),
    });
    expect(res.status).toBe(401);
    expect(api.stats.requests()).toBe(before);
  });

  it("says a token is too long, not that it has spaces, when it is over 4,096 characters", async () => {
    const res = await raw(perUser.url, {
      headers: { ...MCP_HEADERS, "x-parts-api-token": "t".repeat(5_000) },
      body: toolCall("get_process", { code: "cnc-milling" }),
    });
    expect(res.status).toBe(401);
    expect(JSON.parse(res.body).error.message).toMatch(/5000 characters long; .* at most 4096/);
  });

  it("keeps a search index per token: one organisation's search never answers another's", async () => {
    const [first, second] = api.accounts;
    const searchAs = async (token: string) => {
      const client = await connect(perUser.url, { "x-parts-api-token": token }, "2026");
      try {
        const before = api.stats.requests("listParts");
        const result = ok<{ items: Part[]; complete: boolean }>(
          await call(client, "search_parts", { view: "IP_OWNER", limit: 50 }),
        );
        return { result, requests: api.stats.requests("listParts") - before };
      } finally {
        await client.close();
      }
    };
    const a = await searchAs(first!.token);
    expect(a.requests).toBeGreaterThan(0);
    expect((await searchAs(first!.token)).requests).toBe(0);
    const b = await searchAs(second!.token);
    // The second organisation's search reads the API with its own token, and finds only its parts.
    expect(b.requests).toBeGreaterThan(0);
    expect(api.stats.lastHeaders("listParts")?.authorization).toBe(`Bearer ${second!.token}`);
    const ids = (found: { items: { id: string }[] }) => found.items.map((item) => item.id);
    expect(ids(b.result).some((id) => ids(a.result).includes(id))).toBe(false);
  });

  it("sends each organisation's own token upstream, for that request only", async () => {
    for (const account of api.accounts) {
      const client = await connect(perUser.url, { "x-parts-api-token": account.token });
      try {
        const page = ok<{ items: Part[] }>(
          await call(client, "list_parts", { view: "IP_OWNER", pageSize: 50 }),
        );
        expect(page.items.length).toBeGreaterThan(0);
        for (const part of page.items) expect(part.ipOwnerId).toBe(account.orgId);
        expect(api.stats.lastHeaders("listParts")?.authorization).toBe(`Bearer ${account.token}`);
      } finally {
        await client.close();
      }
    }
  });

  it("reports a token the API refuses as a tool error that names the header", async () => {
    const client = await connect(perUser.url, { "x-parts-api-token": "pat_not_a_real_token_123" });
    try {
      const result = await call(client, "get_part", { id: ownedPart().id });
      expect(result.isError).toBe(true);
      expect(JSON.stringify(result.content)).toMatch(/X-Parts-Api-Token/);
    } finally {
      await client.close();
    }
  });

  it("shows an organisation the customFields of its own parts, and another one [] — also once every cache is warm", async () => {
    const part = ownedPart();
    const [owner, other] = [accountOf(part.ipOwnerId), api.accounts.find((a) => a.orgId !== part.ipOwnerId)!];
    expect(
      api.store.partFor(part.id, other.orgId),
      "the part must be visible to the other organisation",
    ).toBeDefined();

    const a = await connect(perUser.url, { "x-parts-api-token": owner.token });
    const b = await connect(perUser.url, { "x-parts-api-token": other.token });
    try {
      // The owner warms everything: the part, its references, the list, the resource.
      const seenByOwner = ok<Part>(await call(a, "get_part", { id: part.id }));
      expect(seenByOwner.customFields).toEqual(part.customFields);
      expect(seenByOwner.customFields?.length).toBeGreaterThan(0);
      const described = ok<{ part: Part }>(await call(a, "describe_part", { id: part.id }));
      expect(described.part.customFields).toEqual(part.customFields);
      await call(a, "list_parts", { pageSize: 50 });
      const resource = await a.readResource({ uri: `parts://parts/${part.id}` });
      expect(resourceJson(resource).customFields).toEqual(part.customFields);

      // The other organisation, through the same server, right after.
      const seenByOther = ok<Part>(await call(b, "get_part", { id: part.id }));
      expect(seenByOther.id).toBe(part.id);
      expect(seenByOther.customFields).toEqual([]);
      expect(ok<{ part: Part }>(await call(b, "describe_part", { id: part.id })).part.customFields).toEqual(
        [],
      );
      const otherResource = await b.readResource({ uri: `parts://parts/${part.id}` });
      expect(resourceJson(otherResource).customFields).toEqual([]);
      const otherPage = ok<{ items: Part[] }>(await call(b, "list_parts", { pageSize: 50 }));
      for (const item of otherPage.items) {
        if (item.ipOwnerId !== other.orgId) expect(item.customFields ?? []).toEqual([]);
      }

      // And the owner still sees them afterwards.
      expect(ok<Part>(await call(a, "get_part", { id: part.id })).customFields).toEqual(part.customFields);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it("keeps organisations apart under concurrency: 50 clients × 10 calls, all correct", async () => {
    const part = ownedPart();
    const clients = await Promise.all(
      Array.from({ length: 50 }, async (_, i) => {
        const account = api.accounts[i % api.accounts.length]!;
        return { account, client: await connect(perUser.url, { "x-parts-api-token": account.token }) };
      }),
    );
    try {
      const outcomes = await Promise.all(
        clients.map(async ({ account, client }) => {
          const results: boolean[] = [];
          for (let n = 0; n < 10; n++) {
            if (n % 2 === 0) {
              const seen = ok<Part>(await call(client, "get_part", { id: part.id }));
              const expected = account.orgId === part.ipOwnerId ? part.customFields : [];
              results.push(
                seen.id === part.id && JSON.stringify(seen.customFields) === JSON.stringify(expected),
              );
            } else {
              const code = ["cnc-milling", "cnc-turning", "lpbf"][n % 3]!;
              results.push(ok(await call(client, "get_process", { code })).code === code);
            }
          }
          return results;
        }),
      );
      const all = outcomes.flat();
      expect(all).toHaveLength(500);
      expect(all.filter((good) => !good)).toEqual([]);
    } finally {
      await Promise.all(clients.map(({ client }) => client.close()));
    }
  });

  it("never writes a per-user token to its logs", () => {
    expect(perUser.stderr()).toMatch(/"access":"per-user"/);
    for (const account of api.accounts) expect(perUser.stderr()).not.toContain(account.token);
    expect(perUser.stderr()).not.toContain("pat_not_a_real_token_123");
  });
});

describe("shared keys and per-user tokens together (PARTS_MCP_AUTH=shared,per-user)", () => {
  let both: HttpServerProcess;
  beforeAll(async () => {
    both = await spawnHttpServer({
      api,
      args: ["--auth", "shared,per-user"],
      env: { PARTS_MCP_ACCESS_KEYS: KEYS[0]!, PARTS_API_TOKEN: "" },
    });
  });
  afterAll(() => both?.stop());

  it("needs both the key and the token", async () => {
    const token = api.accounts[2]!.token;
    const onlyKey = await raw(both.url, {
      headers: { ...MCP_HEADERS, authorization: `Bearer ${KEYS[0]}` },
      body: initializeBody,
    });
    expect(onlyKey.status).toBe(401);
    const onlyToken = await raw(both.url, {
      headers: { ...MCP_HEADERS, "x-parts-api-token": token },
      body: initializeBody,
    });
    expect(onlyToken.status).toBe(401);

    const client = await connect(both.url, {
      authorization: `Bearer ${KEYS[0]}`,
      "x-parts-api-token": token,
    });
    try {
      ok(await call(client, "list_parts", { pageSize: 1 }));
      expect(api.stats.lastHeaders("listParts")?.authorization).toBe(`Bearer ${token}`);
    } finally {
      await client.close();
    }
  });
});

/** A sample part with custom fields, owned by one organisation and visible to the others. */
function ownedPart(): Part {
  const part = api.store
    .sampleParts()
    .find(
      (p) =>
        (p.customFields?.length ?? 0) > 0 &&
        api.accounts.every((account) => api.store.partFor(p.id, account.orgId) !== undefined),
    );
  if (!part) throw new Error("the sample data has no published part with custom fields");
  return part;
}

function resourceJson(result: ReadResourceResult): Part {
  const content = result.contents[0];
  if (!content || !("text" in content)) throw new Error("expected a text resource");
  return JSON.parse(content.text);
}

function accountOf(orgId: string) {
  const account = api.accounts.find((a) => a.orgId === orgId);
  if (!account) throw new Error(`no demo account for ${orgId}`);
  return account;
}
