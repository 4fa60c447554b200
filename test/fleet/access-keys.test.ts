// Three replicas of the image behind nginx with a shared access key and no database: both protocol
// eras served by all three, refusals without the key, and a search cursor continued elsewhere.
import { randomBytes } from "node:crypto";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApi, type TestApi } from "../../src/embedded/testing";
import { freePort } from "../auth/support";
import { podman } from "../deploy/podman";
import { call, initializeBody, MCP_HEADERS, ok, raw } from "../http/support";
import {
  type Balancer,
  buildImage,
  expectEveryReplicaInBothEras,
  image,
  newReplicas,
  notingFetch,
  type Replica,
  removeReplica,
  startBalancer,
  startReplica,
} from "./fleet";

const accessKey = `pmk_fleet_${randomBytes(16).toString("hex")}`;
let api: TestApi;
let balancer: Balancer;
let replicas: Replica[] = [];
let mcpUrl: string;

beforeAll(async () => {
  let publicPort: number;
  [api, publicPort, replicas] = await Promise.all([startTestApi(), freePort(), newReplicas(3), buildImage()]);
  mcpUrl = `http://127.0.0.1:${publicPort}/mcp`;
  const env = {
    PARTS_API_ENV: "local",
    PARTS_API_BASE_URL: api.url,
    PARTS_API_TOKEN: api.demoToken,
    PARTS_MCP_ACCESS_KEYS: accessKey,
  };
  await Promise.all(replicas.map((replica) => startReplica(replica, env)));
  balancer = await startBalancer(publicPort, replicas);
}, 180_000);

afterAll(async () => {
  await balancer?.stop();
  await Promise.all(replicas.map(removeReplica));
  await podman(["rmi", "--force", image]).catch(() => {});
  await api?.close();
}, 60_000);

const replicaOf = (address: string) => replicas.findIndex((r) => r.address === address);

async function connectWithKey(era: "2025" | "2026", seen: string[]): Promise<Client> {
  const client = new Client(
    { name: "parts-mcp-fleet-test", version: "1.0.0" },
    era === "2026" ? { versionNegotiation: { mode: { pin: "2026-07-28" } } } : {},
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL(mcpUrl), {
      requestInit: { headers: { Authorization: `Bearer ${accessKey}` } },
      fetch: notingFetch(seen),
    }),
  );
  return client;
}

describe("a fleet of three behind nginx, with access keys", () => {
  it("serves both eras from all three replicas, and refuses a request without the key", async () => {
    await expectEveryReplicaInBothEras(replicas, connectWithKey, async (client) => {
      expect(ok<{ code: string }>(await call(client, "get_process", { code: "lpbf" })).code).toBe("lpbf");
    });
    const refused = await raw(mcpUrl, { headers: MCP_HEADERS, body: initializeBody });
    expect(refused.status).toBe(401);
    expect(refused.headers["www-authenticate"]).toMatch(/^Bearer/);
  });

  it("continues a search with its cursor on the other replicas", async () => {
    const seen: string[] = [];
    const client = await connectWithKey("2026", seen);
    const answeredBy: number[] = [];
    const ids: string[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 3; page++) {
      const found = ok<{ items: { id: string }[]; nextCursor?: string }>(
        await call(client, "search_parts", { text: "bracket", limit: 2, ...(cursor && { cursor }) }),
      );
      answeredBy.push(replicaOf(seen.at(-1) ?? ""));
      ids.push(...found.items.map((item) => item.id));
      cursor = found.nextCursor;
      expect(cursor, `page ${page + 1} has a cursor`).toBeDefined();
    }
    await client.close();
    expect(new Set(answeredBy)).toEqual(new Set([0, 1, 2]));
    expect(ids).toHaveLength(6);
    expect(new Set(ids).size).toBe(6);
  });
});
