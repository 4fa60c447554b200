// The MCP Bundle (`npm run bundle`): a manifest `mcpb validate` accepts, with the tools and prompts
// the server serves, only runtime files, and a server that starts exactly as Claude Desktop starts
// it: the manifest's mcp_config with `${__dirname}` and the user's settings substituted. The build
// writes its server.json beside the bundle and leaves the tracked one as it was.
import { createHash } from "node:crypto";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_OUT, mcpb, release } from "../../scripts/mcpb";
import { startTestApi, type TestApi } from "../../src/embedded/testing";
import { tools } from "../../tools";
import { repoRoot } from "../support/mcp-server";
import { clientEnv, elsewhere, startAsClient } from "./support";

interface Manifest {
  name: string;
  display_name: string;
  icon: string;
  version: string;
  server: { mcp_config: { command: string; args: string[]; env: Record<string, string> } };
  tools: { name: string; description: string }[];
  prompts: { name: string; text: string }[];
  compatibility: { runtimes: { node: string } };
  user_config: Record<string, { default?: string; sensitive?: boolean }>;
}

let unpacked: string;
let manifest: Manifest;
let api: TestApi;
let built: Awaited<ReturnType<typeof release>>;
const trackedServerJson = readFileSync(join(repoRoot, "server.json"), "utf8");

beforeAll(async () => {
  const dir = elsewhere("parts-mcp-mcpb-");
  built = await release(join(dir, "parts-mcp.mcpb"), join(dir, "stage"));
  const file = built.bundle;
  unpacked = join(dir, "unpacked");
  mcpb("unpack", file, unpacked);
  manifest = JSON.parse(readFileSync(join(unpacked, "manifest.json"), "utf8"));
  api = await startTestApi();
}, 60_000);
afterAll(() => api?.close());

/** Every file of `dir`, relative to it. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .filter((path) => statSync(join(dir, path)).isFile())
    .map((path) => relative(dir, join(dir, path)))
    .sort();
}

/** The mcp_config as Claude Desktop runs it: `${__dirname}` and `${user_config.*}` substituted. */
function substituted(settings: Record<string, string>) {
  const fill = (text: string) =>
    text
      .replaceAll(`\${__dirname}`, unpacked)
      .replace(
        /\$\{user_config\.(\w+)\}/g,
        (_, key: string) => settings[key] ?? manifest.user_config[key]?.default ?? "",
      );
  const { command, args, env } = manifest.server.mcp_config;
  return {
    command: command === "node" ? process.execPath : command,
    args: args.map(fill),
    env: Object.fromEntries(Object.entries(env).map(([name, value]) => [name, fill(value)])),
  };
}

describe("parts-mcp.mcpb", () => {
  it("writes server.json with the bundle's digest beside the bundle, never the tracked server.json", () => {
    expect(readFileSync(join(repoRoot, "server.json"), "utf8")).toBe(trackedServerJson);
    const digest = createHash("sha256").update(readFileSync(built.bundle)).digest("hex");
    expect(built.digest).toBe(digest);
    const mcpbOf = (serverJson: { packages: { registryType: string; fileSha256?: string }[] }) =>
      serverJson.packages.find((entry) => entry.registryType === "mcpb");
    const written = JSON.parse(readFileSync(built.serverJson, "utf8"));
    const tracked = JSON.parse(trackedServerJson);
    expect(mcpbOf(written)?.fileSha256).toBe(digest);
    // Apart from the digest, the written file is the tracked one.
    Object.assign(mcpbOf(written) ?? {}, { fileSha256: mcpbOf(tracked)?.fileSha256 });
    expect(written).toEqual(tracked);
    // `npm run bundle` itself writes under dist/, which git ignores.
    expect(relative(repoRoot, DEFAULT_OUT)).toBe(join("dist", "parts-mcp.mcpb"));
    expect(readFileSync(join(repoRoot, ".gitignore"), "utf8")).toMatch(/^dist\/$/m);
  });

  it("passes mcpb validate and names itself, its icon and Node >= 20", () => {
    expect(mcpb("validate", join(unpacked, "manifest.json"))).toMatch(/valid/i);
    expect(manifest).toMatchObject({
      name: "parts-mcp",
      display_name: "Parts and Sourcing",
      icon: "icon.png",
    });
    expect(manifest.version).toBe(JSON.parse(readFileSync("package.json", "utf8")).version);
    expect(readFileSync(join(unpacked, "icon.png")).subarray(1, 4).toString()).toBe("PNG");
    expect(manifest.compatibility.runtimes.node).toMatch(/^>=20/);
  });

  it("lists every tool of the registry and the prompts, generated, not written by hand", () => {
    expect(manifest.tools.map((tool) => tool.name).sort()).toEqual(tools.map((tool) => tool.name).sort());
    for (const tool of manifest.tools) {
      expect(tool.description).toBe(tools.find((t) => t.name === tool.name)?.description);
    }
    expect(manifest.prompts.map((prompt) => prompt.name).sort()).toEqual([
      "draft_part",
      "find_standard",
      "rfq_status",
    ]);
    expect(manifest.prompts.every((prompt) => prompt.text.length > 0)).toBe(true);
  });

  it("asks for the environment, base URL and token, the token kept as a secret", () => {
    expect(Object.keys(manifest.user_config).sort()).toEqual(["base_url", "environment", "token"]);
    expect(manifest.user_config.token?.sensitive).toBe(true);
    expect(manifest.user_config.environment?.default).toBe("local");
  });

  it("holds only the files the server runs", () => {
    const files = filesUnder(unpacked);
    expect(files).toEqual([
      "LICENSE",
      "dist/package.json",
      "dist/parts-mcp.js",
      "dist/parts-mcp.telemetry.js",
      "dist/ui/parts-view.html",
      "icon.png",
      "manifest.json",
    ]);
  });

  it("starts as Claude Desktop starts it with the defaults, from another folder, and lists its tools", async () => {
    const { command, args, env } = substituted({});
    const server = await startAsClient(command, args, clientEnv(env), elsewhere());
    try {
      const listed = await server.client.listTools();
      expect(listed.tools.map((tool) => tool.name)).toEqual(manifest.tools.map((tool) => tool.name));
    } finally {
      await server.close();
    }
  });

  it("uses the environment, base URL and token the user gave", async () => {
    const { command, args, env } = substituted({
      environment: "sandbox",
      base_url: api.url,
      token: api.demoToken,
    });
    const server = await startAsClient(command, args, clientEnv(env), elsewhere());
    try {
      const result = await server.client.callTool({ name: "list_parts", arguments: { pageSize: 1 } });
      expect(result.isError).toBeFalsy();
      expect(server.stderr()).toContain('"environment":"sandbox"');
      expect(server.stderr()).not.toContain(api.demoToken);
    } finally {
      await server.close();
    }
  });
});
