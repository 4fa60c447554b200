// Three replicas of the image behind nginx (deploy/nginx.conf, round-robin, no stickiness) on one
// PostgreSQL, in the `oauth` mode, reached only through the balancer's public URL: both protocol
// eras, a sign-in whose steps land on different replicas, a search cursor continued elsewhere, a
// replica killed mid-call, a rolling restart under load, and the database restarted under load.
import { randomBytes } from "node:crypto";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { Agent, fetch as undiciFetch } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO_ACCOUNTS, startTestApi, type TestApi } from "../../src/embedded/testing";
import { startPostgres, type TestPostgres } from "../auth/postgres";
import { connectWithSignIn, freePort, Person, TestHost } from "../auth/support";
import { podman, waitFor } from "../deploy/podman";
import { call, ok } from "../http/support";
import { textOf } from "../support/mcp-server";
import {
  type Balancer,
  buildImage,
  expectEveryReplicaInBothEras,
  image,
  newReplicas,
  notingFetch,
  type Replica,
  removeReplica,
  replicaLogs,
  startBalancer,
  startReplica,
} from "./fleet";

const [alice] = DEMO_ACCOUNTS.map((account) => account.token) as [string];

let api: TestApi;
let db: TestPostgres;
let balancer: Balancer;
let replicas: Replica[] = [];
let env: Record<string, string>;
let mcpUrl: string;

beforeAll(async () => {
  let publicPort: number;
  [api, db, publicPort, replicas] = await Promise.all([
    startTestApi({ catalogue: "large" }),
    startPostgres(),
    freePort(),
    newReplicas(3),
    buildImage(),
  ]);
  mcpUrl = `http://127.0.0.1:${publicPort}/mcp`;
  env = {
    PARTS_API_ENV: "local",
    PARTS_API_BASE_URL: api.url,
    PARTS_MCP_AUTH: "oauth",
    PARTS_MCP_PUBLIC_URL: mcpUrl,
    PARTS_MCP_OAUTH_KEYS: `k1:${randomBytes(32).toString("base64")}`,
    PARTS_MCP_DATABASE_URL: db.url,
    PARTS_MCP_LOG_LEVEL: "debug",
  };
  // Started together: the migrations run once, under PostgreSQL's advisory lock.
  await Promise.all(replicas.map((replica) => startReplica(replica, env)));
  balancer = await startBalancer(publicPort, replicas);
}, 180_000);

afterAll(async () => {
  await balancer?.stop();
  await Promise.all(replicas.map(removeReplica));
  await podman(["rmi", "--force", image]).catch(() => {});
  await Promise.all([api?.close(), db?.stop(), noKeepAlive.close()]);
}, 60_000);

/** Who answered: the replica named by nginx's X-Upstream, as an index into `replicas`. */
const replicaOf = (address: string) => replicas.findIndex((r) => r.address === address);

/** A client on `host`'s tokens in one era, noting which replica answered each request. */
async function connectAs(
  host: TestHost,
  era: "2025" | "2026",
  seen: string[] = [],
  fetch: typeof globalThis.fetch = globalThis.fetch,
): Promise<Client> {
  const client = new Client(
    { name: "parts-mcp-fleet-test", version: "1.0.0" },
    era === "2026" ? { versionNegotiation: { mode: { pin: "2026-07-28" } } } : {},
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL(mcpUrl), {
      authProvider: host,
      fetch: notingFetch(seen, fetch),
    }),
  );
  return client;
}

/**
 * fetch on a new connection per request. A reload of nginx closes its idle client connections,
 * and a POST a client sends on one at that instant fails before reaching any replica (undici
 * sends no POST again): the rolling restart's load uses no idle connection, so that what it
 * counts is what the fleet lost.
 */
const freshConnectionFetch = ((input: string | URL | Request, init?: RequestInit) =>
  undiciFetch(
    input as never,
    { ...(init as object), dispatcher: noKeepAlive } as never,
  )) as unknown as typeof fetch;
const noKeepAlive = new Agent({ pipelining: 0 });

/** A host signed in as alice with parts:read and parts:write, the second sign-in being the step-up. */
async function writerHost(): Promise<TestHost> {
  const host = new TestHost("Fleet Writer");
  const client = await connectWithSignIn(mcpUrl, host, new Person(alice));
  await expect(call(client, "create_part", { title: "Step-up probe" })).rejects.toThrow();
  await client.close();
  const transport = new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: host });
  await transport.finishAuth(await new Person(alice).signIn(host.authorizationUrl));
  expect(host.saved?.scope?.split(" ").sort()).toEqual(["parts:read", "parts:write"]);
  return host;
}

interface Outcome {
  ok: boolean;
  error?: string;
  at: number;
}

/** Steady load: `workers` clients (both eras) calling get_part in a loop until stopped; every outcome kept. */
function steadyLoad(host: TestHost, partId: string, fetch: typeof globalThis.fetch, workers = 4) {
  let running = true;
  const outcomes: Outcome[] = [];
  const loops = Array.from({ length: workers }, async (_, i) => {
    const client = await connectAs(host, i % 2 === 0 ? "2025" : "2026", [], fetch);
    while (running) {
      try {
        const result = await call(client, "get_part", { id: partId });
        outcomes.push({
          ok: !result.isError,
          ...(result.isError && { error: textOf(result) }),
          at: Date.now(),
        });
      } catch (error) {
        outcomes.push({ ok: false, error: String(error), at: Date.now() });
      }
    }
    await client.close();
  });
  return {
    outcomes,
    failures: () => outcomes.filter((outcome) => !outcome.ok),
    stop: async () => {
      running = false;
      await Promise.all(loops);
    },
  };
}

/** The id of one of alice's parts, read through the fleet. */
async function somePartId(host: TestHost): Promise<string> {
  const client = await connectAs(host, "2026");
  const listed = ok<{ items: { id: string }[] }>(await call(client, "list_parts", { pageSize: 1 }));
  await client.close();
  return listed.items[0]?.id as string;
}

let reader: TestHost | undefined;

/** The host the first test signed in (or, when run alone, one signed in now). */
async function readerHost(): Promise<TestHost> {
  if (reader === undefined) {
    reader = new TestHost("Fleet Host");
    await (await connectWithSignIn(mcpUrl, reader, new Person(alice))).close();
  }
  return reader;
}

describe("a fleet of three behind nginx, in the oauth mode", () => {
  it("signs a person in with steps on different replicas, then serves both eras from all three", async () => {
    const host = new TestHost("Fleet Host");
    const hostSeen: string[] = [];
    const personSeen: string[] = [];
    const person = new Person(alice);
    const first = await connectWithSignIn(
      mcpUrl,
      host,
      person,
      notingFetch(hostSeen),
      notingFetch(personSeen),
    );
    await first.close();
    reader = host;
    // The person's browser (authorize, sign-in page, form post) and the host (discovery,
    // registration, token) each met more than one replica: the flow's state is in PostgreSQL.
    expect(new Set(personSeen.map(replicaOf)).size, personSeen.join(" ")).toBeGreaterThan(1);
    expect(new Set([...hostSeen, ...personSeen].map(replicaOf))).toEqual(new Set([0, 1, 2]));
    expect([...hostSeen, ...personSeen].map(replicaOf)).not.toContain(-1);

    await expectEveryReplicaInBothEras(
      replicas,
      (era, seen) => connectAs(host, era, seen),
      async (client) => {
        expect(ok<{ code: string }>(await call(client, "get_material", { code: "ti64" })).code).toBe("ti64");
      },
    );
    // Each replica's own log shows it served tools/call for this person.
    for (const replica of replicas) expect(await replicaLogs(replica)).toContain("get_material");
  }, 60_000);
  it("continues a search of the 100,000-part catalogue with its cursor on the other replicas", async () => {
    interface Found {
      items: { id: string }[];
      scanned: number;
      nextCursor?: string;
    }
    const args = { text: "gyroid", materialId: "in625", limit: 5 };
    /** Three pages, each call's answering replica, on a client of `url`. */
    const threePages = async (url: string) => {
      const seen: string[] = [];
      const client = new Client(
        { name: "parts-mcp-fleet-test", version: "1.0.0" },
        { versionNegotiation: { mode: { pin: "2026-07-28" } } },
      );
      await client.connect(
        new StreamableHTTPClientTransport(new URL(url), { authProvider: host, fetch: notingFetch(seen) }),
      );
      const pages: Found[] = [];
      const answeredBy: number[] = [];
      let cursor: string | undefined;
      for (let page = 0; page < 3; page++) {
        const found = ok<Found>(await call(client, "search_parts", { ...args, ...(cursor && { cursor }) }));
        answeredBy.push(replicaOf(seen.at(-1) ?? ""));
        pages.push(found);
        cursor = found.nextCursor;
        expect(cursor, `page ${page + 1} has a cursor`).toBeDefined();
      }
      await client.close();
      return { pages, answeredBy };
    };
    const host = await readerHost();
    const balanced = await threePages(mcpUrl);
    // Each page from another replica, the second and third from a cursor another one made.
    expect(new Set(balanced.answeredBy)).toEqual(new Set([0, 1, 2]));
    const ids = balanced.pages.flatMap((page) => page.items.map((item) => item.id));
    expect(ids).toHaveLength(15);
    expect(new Set(ids).size).toBe(15);
    expect(balanced.pages[2]?.scanned).toBeGreaterThan(balanced.pages[0]?.scanned ?? 0);
    // The same pages as one replica alone gives, asked on its own port.
    const alone = await threePages(`http://${replicas[0]?.address}/mcp`);
    expect(alone.answeredBy).toEqual([-1, -1, -1]);
    expect(alone.pages.map((page) => page.items)).toEqual(balanced.pages.map((page) => page.items));
  }, 60_000);
  it("loses the calls in flight on a replica killed with SIGKILL, runs none twice, and answers every later call", async () => {
    const writer = await writerHost();
    const victim = replicas[1] as Replica;
    const clients = await Promise.all(
      Array.from({ length: 6 }, async (_, i) => {
        const seen: string[] = [];
        return { seen, client: await connectAs(writer, i % 2 === 0 ? "2025" : "2026", seen) };
      }),
    );
    const tag = randomBytes(4).toString("hex");
    const createsBefore = api.stats.requests("createPart");
    // Each create_part waits 3 s at the API: all six are in flight, two on each replica, when one dies.
    api.faults.add({ endpoint: "createPart", action: { kind: "latency", ms: 3_000 } });
    const settling = Promise.allSettled(
      clients.map(({ client }, i) =>
        call(client, "create_part", { title: `Fleet kill bracket ${tag} ${i}` }),
      ),
    );
    await waitFor("six create_part calls at the API", 10_000, async () => {
      return api.stats.requests("createPart") - createsBefore === 6;
    });
    await podman(["kill", "--signal=KILL", victim.name]);
    const settled = await settling;
    api.faults.clear();

    let failedOnVictim = 0;
    settled.forEach((outcome, i) => {
      const by = clients[i]?.seen.at(-1);
      const title = `Fleet kill bracket ${tag} ${i}`;
      if (by === victim.address) {
        failedOnVictim++;
        // nginx answers 502 for the call it could not finish, and passes it on to no other replica.
        expect(outcome.status, `call ${i} on the killed replica`).toBe("rejected");
        const reason = (outcome as PromiseRejectedResult).reason as { status?: number; message?: string };
        expect(reason.status).toBe(502);
        expect(reason.message).toContain("No replica answered this request");
        expect(reason.message).toContain("Whether it took effect is unknown");
        expect(api.store.countPartsWithTitle(title)).toBeLessThanOrEqual(1);
      } else {
        expect(
          outcome.status,
          `call ${i} on ${by}: ${String((outcome as PromiseRejectedResult).reason)}`,
        ).toBe("fulfilled");
        ok(outcome.status === "fulfilled" ? outcome.value : ({} as never));
        expect(api.store.countPartsWithTitle(title)).toBe(1);
      }
    });
    expect(failedOnVictim).toBe(2);
    // No create_part reached the API twice: nginx sent none of them on to another replica.
    expect(api.stats.requests("createPart") - createsBefore).toBe(6);

    // Every later call succeeds: the dead replica refuses connections, and nginx passes a request
    // it could not send at all to the next one.
    const { seen, client } = clients[0] as (typeof clients)[number];
    const from = seen.length;
    for (let i = 0; i < 9; i++) {
      const title = `Fleet after-kill bracket ${tag} ${i}`;
      ok(await call(client, "create_part", { title }));
      expect(api.store.countPartsWithTitle(title)).toBe(1);
    }
    expect(seen.slice(from)).not.toContain(victim.address);
    await Promise.all(clients.map(({ client }) => client.close()));

    // Back for the next scenarios.
    await podman(["rm", "--force", "--volumes", victim.name]);
    await startReplica(victim, env);
  }, 60_000);
  it("loses no call in a rolling restart (SIGTERM, one replica at a time) under steady load", async () => {
    const host = await readerHost();
    const partId = await somePartId(host);
    // Each get_part waits 100 ms at the API, so calls are in flight on every replica when it is stopped.
    api.faults.add({ endpoint: "getPart", action: { kind: "latency", ms: 100 } });
    const load = steadyLoad(host, partId, freshConnectionFetch);
    try {
      // As an orchestrator does it: out of the balancer, SIGTERM (the calls it has finish), start, back in.
      for (const replica of replicas) {
        await new Promise((resolve) => setTimeout(resolve, 1_000));
        await balancer.reload([replica]);
        await podman(["stop", "--time=30", replica.name]);
        expect(await podman(["inspect", "--format={{.State.ExitCode}}", replica.name])).toBe("0");
        await startReplica(replica, env, true);
        await balancer.reload([]);
      }
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    } finally {
      await load.stop();
      api.faults.clear();
    }
    expect(load.failures(), JSON.stringify(load.failures().slice(0, 3))).toEqual([]);
    expect(load.outcomes.length).toBeGreaterThan(100);
    for (const replica of replicas) {
      expect(await replicaLogs(replica)).toMatch(/"msg":"stopped","reason":"SIGTERM"/);
    }
  }, 90_000);
  it("fails the calls that need the database clearly while it is down, then recovers", async () => {
    const host = await readerHost();
    const partId = await somePartId(host);
    const load = steadyLoad(host, partId, freshConnectionFetch);
    let stoppedAt = 0;
    let startedAt = 0;
    const health: number[] = [];
    try {
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      stoppedAt = Date.now();
      await db.pause();
      await new Promise((resolve) => setTimeout(resolve, 4_000));
      for (const replica of replicas) health.push((await fetch(`http://${replica.address}/healthz`)).status);
      await db.resume();
      startedAt = Date.now();
      await new Promise((resolve) => setTimeout(resolve, 6_000));
    } finally {
      await load.stop();
    }
    // While it was down every replica said so at /healthz, and each call whose grant was not in a
    // replica's 2-second cache failed with a 503 saying what happened and what to do.
    expect(health).toEqual([503, 503, 503]);
    const failures = load.failures();
    expect(failures.length).toBeGreaterThan(0);
    for (const failure of failures) {
      expect(failure.error).toContain("The sign-in store (the database) does not answer");
      expect(failure.error).toContain("send the request again in a few seconds");
      expect(failure.at).toBeGreaterThanOrEqual(stoppedAt);
    }
    // Back within 2 s of its restart (the pool opens new connections), every call succeeding after.
    const afterRestart = load.outcomes.filter((outcome) => outcome.at > startedAt + 2_000);
    expect(afterRestart.length).toBeGreaterThan(50);
    expect(afterRestart.filter((outcome) => !outcome.ok)).toEqual([]);
    for (const replica of replicas) {
      expect((await fetch(`http://${replica.address}/healthz`)).status).toBe(200);
    }
  }, 60_000);
});
