// The npm package as users get it: `npm pack`, installed offline from the tarball into a folder of
// its own (so it needs nothing from the registry: no runtime dependencies), started from yet another
// folder as `npx --package=<tarball> parts-mcp` does, and listing its tools over stdio.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { repoRoot } from "../support/mcp-server";
import { clientEnv, elsewhere, startAsClient } from "./support";

const packageJson = JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8"));
const npm = (args: string[], cwd: string) =>
  execFileSync("npm", [...args, "--no-audit", "--no-fund", "--loglevel=error"], {
    cwd,
    encoding: "utf8",
    env: { ...process.env, npm_config_update_notifier: "false" },
  });

/** npm's own settings (its cache) for an npx started with a client's bare environment. */
function npmCacheEnv(): Record<string, string> {
  return Object.fromEntries(
    Object.entries(process.env).filter(([name]) => /^npm_config_cache$/i.test(name)) as [string, string][],
  );
}

let tarball: string;
let installed: string;

beforeAll(() => {
  const packed = elsewhere("parts-mcp-pack-");
  // The build already ran (npm test builds first); --ignore-scripts packs what it made.
  const [entry] = JSON.parse(
    npm(["pack", "--json", "--ignore-scripts", "--pack-destination", packed], repoRoot),
  );
  tarball = join(packed, entry.filename);
  installed = elsewhere("parts-mcp-install-");
  npm(["init", "-y"], installed);
  npm(["install", "--offline", tarball], installed);
}, 120_000);

describe("the npm package", () => {
  it("is publishable: not private, named for the MCP Registry, with a LICENSE", () => {
    expect(packageJson.private).toBeUndefined();
    expect(packageJson.mcpName).toBe("io.github.parts-mcp/parts-mcp");
    expect(packageJson.license).toBe("MIT");
    expect(readFileSync(join(repoRoot, "LICENSE"), "utf8")).toMatch(/^MIT License/);
  });

  it("holds what runs and nothing else, and depends on nothing", () => {
    const root = join(installed, "node_modules", "parts-mcp");
    const files = readdirSync(root, { recursive: true, encoding: "utf8" })
      .filter((file) => statSync(join(root, file)).isFile())
      .sort();
    expect(files).toEqual([
      "LICENSE",
      "README.md",
      "dist/package.json",
      "dist/parts-mcp.js",
      "dist/parts-mcp.oauth.js",
      "dist/parts-mcp.telemetry.js",
      "dist/ui/parts-view.html",
      "package.json",
    ]);
    expect(packageJson.dependencies).toBeUndefined();
    expect(readdirSync(join(installed, "node_modules")).filter((name) => !name.startsWith("."))).toEqual([
      "parts-mcp",
    ]);
  });

  it("is a light download: the tarball is at most 2 MB, the oauth mode's embedded store left out", () => {
    expect(statSync(tarball).size).toBeLessThanOrEqual(2_000_000);
    expect(packageJson.peerDependenciesMeta["@electric-sql/pglite"]).toEqual({ optional: true });
  });

  it("names the package to install when the oauth mode needs the embedded store, in one line, exit 2", () => {
    const bin = join(installed, "node_modules", ".bin", "parts-mcp");
    const env = {
      ...clientEnv(),
      PARTS_MCP_AUTH: "oauth",
      PARTS_MCP_PUBLIC_URL: "https://mcp.example.com/mcp",
      PARTS_MCP_ALLOWED_HOSTS: "mcp.example.com",
      PARTS_MCP_OAUTH_KEYS: `k1:${Buffer.alloc(32, 7).toString("base64")}`,
      PARTS_MCP_DATA_DIR: join(elsewhere(), "data"),
    };
    const run = spawnSync(bin, ["--http", "--port", "0"], {
      env,
      cwd: elsewhere(),
      encoding: "utf8",
      timeout: 30_000,
    });
    expect(run.status, run.stderr).toBe(2);
    expect(run.stderr).toMatch(/npm install @electric-sql\/pglite.*PARTS_MCP_DATABASE_URL/);
    expect(run.stderr).not.toMatch(/\n\s+at /);
  });

  it("starts from another folder as its bin and lists its tools over stdio, in about a second", async () => {
    const bin = join(installed, "node_modules", ".bin", "parts-mcp");
    expect(existsSync(bin)).toBe(true);
    const server = await startAsClient(bin, [], clientEnv(), elsewhere());
    try {
      const { tools } = await server.client.listTools();
      expect(tools.map((tool) => tool.name)).toContain("search_parts");
      expect(server.openedInMs).toBeLessThan(3_000);
      expect(server.stderr()).toContain("ready on stdio");
    } finally {
      await server.close();
    }
  });

  it("runs as npx --package=<tarball> parts-mcp from any folder, offline, and serves stdio", async () => {
    const cwd = elsewhere();
    const version = execFileSync(
      "npx",
      ["--yes", "--offline", `--package=${tarball}`, "parts-mcp", "--version"],
      {
        cwd,
        encoding: "utf8",
      },
    );
    expect(version.trim()).toBe(`parts-mcp ${packageJson.version}`);
    const npx = ["--yes", "--offline", `--package=${tarball}`, "parts-mcp"];
    const server = await startAsClient("npx", npx, { ...clientEnv(), ...npmCacheEnv() }, cwd);
    try {
      expect((await server.client.listTools()).tools.length).toBeGreaterThan(10);
      // About a second on a quiet machine (npx's own start included); generous for a busy one.
      expect(server.openedInMs).toBeLessThan(5_000);
    } finally {
      await server.close();
    }
  });
});
