// `npm run bundle`: parts-mcp.mcpb, the MCP Bundle that Claude Desktop installs in one click. The
// manifest's tools and prompts are what the built server lists (asked over stdio, so they cannot
// drift from the code); the bundle holds only the files the server runs (package.json `files`).
// `mcpb pack` zips its folder as it is, so the folder is staged fresh each time.
//
// The bundle's SHA-256 goes into a copy of server.json written beside it (the MCP Registry requires
// the digest of an .mcpb): the tracked server.json is never written, so a build leaves git clean.
//
//   npm run bundle            (builds first; writes dist/parts-mcp.mcpb and dist/server.json)
//   npx tsx scripts/mcpb.ts [--out dist/parts-mcp.mcpb]
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import type { McpbManifestAny } from "@anthropic-ai/mcpb";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const packageJson = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
  version: string;
  description: string;
  license: string;
  keywords: string[];
  engines: { node: string };
  files: string[];
};
const MCPB_CLI = join(root, "node_modules", "@anthropic-ai", "mcpb", "dist", "cli", "cli.js");
/** Where `npm run bundle` writes the bundle; its server.json goes beside it. */
export const DEFAULT_OUT = join(root, "dist", "parts-mcp.mcpb");

/** What the person installing the bundle is asked; the server reads each as its variable. */
const USER_CONFIG = {
  environment: {
    type: "string",
    title: "Environment",
    description:
      "local (built-in sample data, no account needed), lab, sandbox or production. A remote environment needs the base URL and a token.",
    default: "local",
    required: false,
  },
  base_url: {
    type: "string",
    title: "Base URL",
    description: "The https:// base URL of the Parts API environment, without /v1. Leave empty for local.",
    default: "",
    required: false,
  },
  token: {
    type: "string",
    title: "Personal access token",
    description: "Your Parts API personal access token (kept in the system keychain). Leave empty for local.",
    sensitive: true,
    default: "",
    required: false,
  },
} as const;

/** How Claude Desktop starts the server: `${__dirname}` is where it unpacked the bundle. */
const MCP_CONFIG = {
  command: "node",
  args: [`\${__dirname}/dist/parts-mcp.js`],
  env: {
    PARTS_API_ENV: `\${user_config.environment}`,
    PARTS_API_BASE_URL: `\${user_config.base_url}`,
    PARTS_API_TOKEN: `\${user_config.token}`,
  },
};

interface Listed {
  tools: { name: string; description?: string }[];
  prompts: { name: string; title?: string; description?: string; arguments?: { name: string }[] }[];
}

/** The tools and prompts the built server lists, started as a client starts it. */
async function listSurface(): Promise<Listed> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [join(root, "dist", "parts-mcp.js")],
    env: { PATH: process.env.PATH ?? "", PARTS_API_ENV: "local", PARTS_MCP_LOG_LEVEL: "warn" },
    cwd: dirname(root),
    stderr: "inherit",
  });
  const client = new Client({ name: "parts-mcp-bundle", version: packageJson.version });
  await client.connect(transport);
  try {
    const { tools } = await client.listTools();
    const { prompts } = await client.listPrompts();
    return { tools, prompts };
  } finally {
    await client.close();
  }
}

/** The bundle's manifest.json (MCPB manifest 0.3). */
function manifest({ tools, prompts }: Listed): McpbManifestAny {
  return {
    manifest_version: "0.3",
    name: "parts-mcp",
    display_name: "Parts and Sourcing",
    version: packageJson.version,
    description: packageJson.description,
    long_description:
      "Ask about manufacturing parts, their processes, materials, standards, criticalities and categories, factories and RFQs, and draft new parts. Starts with built-in sample data; set an environment, its base URL and your token to use the real Parts API.",
    author: { name: "The parts-mcp authors" },
    license: packageJson.license,
    keywords: packageJson.keywords,
    icon: "icon.png",
    server: { type: "node", entry_point: "dist/parts-mcp.js", mcp_config: MCP_CONFIG },
    tools: tools.map(({ name, description }) => ({ name, description: description ?? name })),
    tools_generated: false,
    prompts: prompts.map(({ name, title, description, arguments: args = [] }) => ({
      name,
      description: description ?? title ?? name,
      arguments: args.map((arg) => arg.name),
      text: [title ?? name, ...args.map((arg) => `${arg.name}: \${arguments.${arg.name}}`)].join("\n"),
    })),
    prompts_generated: false,
    compatibility: {
      platforms: ["darwin", "win32", "linux"],
      runtimes: { node: packageJson.engines.node },
    },
    user_config: USER_CONFIG,
  };
}

/** Files only the remote `oauth` mode runs (Claude Desktop starts the server on stdio): left out. */
const REMOTE_ONLY = ["parts-mcp.oauth.js"];

/** Stages the runtime files and the manifest in `stage`, validates and packs them into `out`. */
async function buildBundle(out = DEFAULT_OUT, stage = join(root, ".mcpb")): Promise<string> {
  rmSync(stage, { recursive: true, force: true });
  mkdirSync(stage, { recursive: true });
  for (const pattern of packageJson.files) {
    for (const file of filesOf(pattern)) {
      if (REMOTE_ONLY.some((name) => file.endsWith(name))) continue;
      mkdirSync(dirname(join(stage, file)), { recursive: true });
      cpSync(join(root, file), join(stage, file));
    }
  }
  cpSync(join(root, "LICENSE"), join(stage, "LICENSE"));
  cpSync(join(root, "mcpb", "icon.png"), join(stage, "icon.png"));
  writeFileSync(join(stage, "manifest.json"), `${JSON.stringify(manifest(await listSurface()), null, 2)}\n`);
  mcpb("validate", join(stage, "manifest.json"));
  rmSync(out, { force: true });
  mcpb("pack", stage, out);
  return out;
}

/** The files of one `files` entry of package.json: a path, or `dir/*.ext` (Node 20 has no glob). */
function filesOf(pattern: string): string[] {
  if (!pattern.includes("*")) return existsSync(join(root, pattern)) ? [pattern] : [];
  const dir = dirname(pattern);
  const name = new RegExp(
    `^${pattern
      .slice(dir.length + 1)
      .replaceAll(".", "\\.")
      .replaceAll("*", "[^/]*")}$`,
  );
  return readdirSync(join(root, dir))
    .filter((file) => name.test(file))
    .map((file) => `${dir}/${file}`);
}

/** Runs the mcpb command line of the dev dependency; throws with its output when it fails. */
export function mcpb(...args: string[]): string {
  return execFileSync(process.execPath, [MCPB_CLI, ...args], { encoding: "utf8", stdio: "pipe" });
}

/**
 * Writes server.json with the bundle's SHA-256 in its mcpb package beside the bundle, keeping the
 * tracked file's formatting; the tracked file itself is only read.
 */
function writeServerJson(bundle: string): { path: string; digest: string } {
  const digest = createHash("sha256").update(readFileSync(bundle)).digest("hex");
  const text = readFileSync(join(root, "server.json"), "utf8");
  const pattern = /("registryType": "mcpb",[^}]*?"fileSha256": ")[a-f0-9]{64}(")/;
  if (!pattern.test(text)) throw new Error("server.json has no mcpb package with a fileSha256 to update");
  const path = join(dirname(bundle), "server.json");
  writeFileSync(path, text.replace(pattern, `$1${digest}$2`));
  return { path, digest };
}

/** The bundle and its server.json, as `npm run bundle` makes them. */
export async function release(
  out = DEFAULT_OUT,
  stage?: string,
): Promise<{ bundle: string; serverJson: string; digest: string }> {
  const bundle = await buildBundle(out, stage);
  const { path, digest } = writeServerJson(bundle);
  return { bundle, serverJson: path, digest };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({ options: { out: { type: "string", default: DEFAULT_OUT } } });
  const { bundle, serverJson, digest } = await release(resolve(root, values.out));
  console.log(`${bundle}: built; ${serverJson}: its sha256 ${digest}`);
}
