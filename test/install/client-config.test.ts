// `parts-mcp config <client>`: each client's entry has absolute paths, carries the settings given,
// never prints a token, and the entry a client would run starts the server from any folder.
import { readFileSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import { describe, expect, it } from "vitest";
import { repoRoot } from "../support/mcp-server";
import { clientEnv, configOutput, elsewhere, launcher, startAsClient } from "./support";

interface StdioEntry {
  type?: string;
  command: string;
  args: string[];
  env: Record<string, string>;
}

const TOKEN = "pat_secret_token_never_printed_42";
const SANDBOX = {
  PARTS_API_ENV: "sandbox",
  PARTS_API_SANDBOX_URL: "https://sandbox.parts.example.com",
  PARTS_API_TOKEN: TOKEN,
};

function entryOf(client: string, args: string[] = [], env: Record<string, string> = {}) {
  const output = configOutput([client, ...args], env);
  expect(output.status, output.stderr).toBe(0);
  expect(output.stdout + output.stderr).not.toContain(TOKEN);
  return output;
}

describe("parts-mcp config", () => {
  it("claude-desktop: an mcpServers entry with absolute paths that starts the server from any folder", async () => {
    const { stdout, stderr } = entryOf("claude-desktop", ["--read-only"]);
    const entry = JSON.parse(stdout).mcpServers["parts-mcp"] as StdioEntry;
    expect(isAbsolute(entry.command)).toBe(true);
    expect(entry.args).toEqual([launcher, "--read-only"]);
    expect(entry.env).toMatchObject({ PARTS_API_ENV: "local" });
    expect(entry.env).not.toHaveProperty("PARTS_MCP_READ_ONLY");
    // Where the file lives, on each system.
    expect(stderr).toContain("~/Library/Application Support/Claude/claude_desktop_config.json");
    expect(stderr).toContain("%APPDATA%\\Claude\\claude_desktop_config.json");

    const server = await startAsClient(entry.command, entry.args, clientEnv(entry.env), elsewhere());
    try {
      const { tools } = await server.client.listTools();
      expect(tools.map((tool) => tool.name)).toContain("get_part");
      expect(tools.map((tool) => tool.name)).not.toContain("create_part");
    } finally {
      await server.close();
    }
  });

  it("mcp.json is the claude-desktop entry of this checkout (npm run build writes it)", () => {
    const mcpJson = JSON.parse(readFileSync(join(repoRoot, "mcp.json"), "utf8"));
    const entry = JSON.parse(entryOf("claude-desktop").stdout);
    expect(mcpJson).toEqual(entry);
    expect(mcpJson.mcpServers["parts-mcp"].args.some((arg: string) => arg.startsWith("--max"))).toBe(false);
  });

  it("carries PARTS_* settings from the environment, and puts a placeholder where the token goes", () => {
    const entry = JSON.parse(entryOf("claude-desktop", ["--tools", "reference"], SANDBOX).stdout).mcpServers[
      "parts-mcp"
    ] as StdioEntry;
    expect(entry.args.slice(1)).toEqual(["--tools", "reference"]);
    expect(entry.env).toMatchObject({
      PARTS_API_ENV: "sandbox",
      PARTS_API_SANDBOX_URL: "https://sandbox.parts.example.com",
      PARTS_API_TOKEN: "<your personal access token>",
    });
  });

  it("claude-code: a claude mcp add command whose token stays the shell's variable", () => {
    const { stdout } = entryOf("claude-code", [], SANDBOX);
    expect(stdout.trim()).toBe(
      `claude mcp add --transport stdio parts-mcp --env PARTS_API_ENV=sandbox --env PARTS_API_SANDBOX_URL=https://sandbox.parts.example.com --env PARTS_API_TOKEN="$PARTS_API_TOKEN" -- ${process.execPath} ${launcher}`,
    );
  });

  it("vscode: a servers entry with its type, the token asked once and kept by VS Code", () => {
    const config = JSON.parse(entryOf("vscode", [], SANDBOX).stdout);
    const entry = config.servers["parts-mcp"] as StdioEntry;
    expect(entry.type).toBe("stdio");
    expect(entry.args).toEqual([launcher]);
    expect(entry.env.PARTS_API_TOKEN).toBe(`\${input:parts-api-token}`);
    expect(config.inputs).toEqual([expect.objectContaining({ id: "parts-api-token", password: true })]);
    expect(config).not.toHaveProperty("mcpServers");
  });

  it("cursor: an mcpServers entry that reads the token from Cursor's environment", () => {
    const entry = JSON.parse(entryOf("cursor", [], SANDBOX).stdout).mcpServers["parts-mcp"] as StdioEntry;
    expect(entry.args).toEqual([launcher]);
    expect(entry.env.PARTS_API_TOKEN).toBe(`\${env:PARTS_API_TOKEN}`);
  });

  it("a remote URL entry for a server run with --http, for each client that takes one", () => {
    const url = "https://mcp.example.com/mcp";
    expect(JSON.parse(entryOf("http").stdout)).toEqual({
      mcpServers: { "parts-mcp": { type: "http", url: "http://127.0.0.1:8788/mcp" } },
    });
    expect(JSON.parse(entryOf("vscode", ["--url", url]).stdout)).toEqual({
      servers: { "parts-mcp": { type: "http", url } },
    });
    expect(JSON.parse(entryOf("cursor", ["--url", url]).stdout).mcpServers["parts-mcp"]).toEqual({
      type: "http",
      url,
    });
    expect(entryOf("claude-code", ["--url", url]).stdout.trim()).toBe(
      `claude mcp add --transport http parts-mcp ${url}`,
    );
    const desktop = configOutput(["claude-desktop", "--url", url]);
    expect(desktop.status).toBe(2);
    expect(desktop.stderr).toContain("Settings > Connectors");
  });

  it("the published form with --npx", () => {
    const entry = JSON.parse(entryOf("cursor", ["--npx"]).stdout).mcpServers["parts-mcp"] as StdioEntry;
    expect([entry.command, ...entry.args]).toEqual(["npx", "-y", "parts-mcp"]);
  });

  it("refuses what would not start: an unknown client, a bad setting, a flag for HTTP only", () => {
    for (const [args, env, message] of [
      [["nope"], {}, /Unknown client "nope"/],
      [[], {}, /Name a client/],
      [
        ["cursor"],
        { PARTS_API_ENV: "sandbox", PARTS_API_SANDBOX_URL: "ftp://x" },
        /PARTS_API_SANDBOX_URL must/,
      ],
      [["cursor", "--port", "9"], {}, /Unknown argument "--port"/],
      [["cursor", "--url", "mcp.example.com"], {}, /--url must be/],
    ] as const) {
      const output = configOutput([...args], env);
      expect(output.status).toBe(2);
      expect(output.stderr).toMatch(message);
      expect(output.stdout).toBe("");
    }
  });
});
