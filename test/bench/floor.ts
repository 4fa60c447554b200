// The start-up floor: the minimal server (minimal-server.mjs) built the way parts-mcp is built,
// one minified CommonJS bundle started by parts-mcp's own launcher with a V8 code cache made by
// warm-up starts. What the SDK alone costs a server that uses every start-up measure parts-mcp
// uses; cold start prints both servers against it (coldstart.ts).
import { mkdirSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { build } from "esbuild";
// @ts-expect-error the build script is plain JavaScript
import { BUNDLE_OPTIONS, writeLauncher } from "../../scripts/build.mjs";
import type { EmbeddedApi } from "../../src/embedded";
import { externalApiEnv, repoRoot, serverCommand } from "./lib";
import { ERAS, RpcSession, type ServerSpec } from "./rpc";

const DIR = join(repoRoot, ".bench/floor");
const BUNDLE = "minimal.bundle.js";

/** Builds the floor server in .bench/floor, warms its code cache, and returns how to start it. */
export async function buildFloor(api: EmbeddedApi, partId: string): Promise<ServerSpec> {
  rmSync(DIR, { recursive: true, force: true });
  mkdirSync(DIR, { recursive: true });
  await build({
    ...BUNDLE_OPTIONS,
    entryPoints: ["test/bench/minimal-floor.mjs"],
    outfile: join(DIR, BUNDLE),
  });
  const launcher: string = await writeLauncher(DIR, BUNDLE);
  // mcp.json's command (no Node flags): the launcher's code cache is made for it, as parts-mcp's is.
  const { command, args, env } = serverCommand();
  const spec: ServerSpec = {
    label: "minimal server, bundled with a code cache",
    command,
    args: [...args.filter((arg) => arg.startsWith("--")), launcher],
    env: { ...env, ...externalApiEnv(api) },
  };
  // One warm-up start per era, as scripts/code-cache.mjs makes parts-mcp's: each writes the cache
  // of everything compiled by its exit, the second on top of the first's.
  for (const era of ERAS) {
    const session = await RpcSession.start(
      { ...spec, env: { ...spec.env, PARTS_MCP_WRITE_CODE_CACHE: "1" } },
      era,
    );
    await session.call("get_part", { id: partId });
    await session.close();
  }
  if (!readdirSync(DIR).some((file) => file.endsWith(".v8cache")))
    throw new Error("floor: the warm-up starts wrote no code cache");
  return spec;
}
