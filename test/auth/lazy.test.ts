// The `oauth` mode's libraries load in that mode only: an HTTP server in per-user mode, having
// served a call, has loaded neither the build's oauth file (dist/parts-mcp.oauth.js, where
// oidc-provider, PGlite, pg and jose are bundled) nor any of them from node_modules; the same
// server in the oauth mode has (the control that shows the probe sees it).
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startTestApi, type TestApi } from "../../src/embedded/testing";
import { call, connect, spawnHttpServer } from "../http/support";
import { repoRoot } from "../support/mcp-server";
import { startOAuthServer } from "./support";

const PROBE = { NODE_OPTIONS: `-r ${join(repoRoot, "test/support/modules-at-exit.cjs")}` };
const OAUTH_MODULES = ["parts-mcp.oauth.js", "oidc-provider", "koa", "@electric-sql/pglite", "pg", "jose"];

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(async () => {
  await api?.close();
});

const loaded = (stderr: string) =>
  new Set(/modules-at-exit: (.*)/.exec(stderr)?.[1]?.split(" ").filter(Boolean) ?? []);

it("per-user mode loads none of the oauth mode's libraries", async () => {
  const server = await spawnHttpServer({ api, env: { PARTS_MCP_AUTH: "per-user", ...PROBE } });
  const client = await connect(server.url, { "x-parts-api-token": api.demoToken });
  expect((await call(client, "list_standards")).isError).toBeFalsy();
  await client.close();
  await server.stop();
  expect(server.stderr(), "the probe reported").toMatch(/modules-at-exit:/);
  const modules = loaded(server.stderr());
  for (const name of OAUTH_MODULES) expect(modules.has(name), name).toBe(false);
});

it("oauth mode loads them (the probe sees them)", async () => {
  const server = await startOAuthServer({ api, env: PROBE });
  await server.stop();
  const modules = loaded(server.stderr());
  expect(modules.has("parts-mcp.oauth.js")).toBe(true);
});
