// What the installation tests share: the built launcher, a folder of their own to start from (never
// this checkout), and an SDK client over stdio for a command as a client's configuration gives it.
import { spawnSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { repoRoot } from "../support/mcp-server";

export const launcher = join(repoRoot, "dist", "parts-mcp.js");

/** A new empty folder outside the checkout. */
export function elsewhere(prefix = "parts-mcp-elsewhere-"): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** The environment a client gives a server: PATH and what its entry says, nothing of ours. */
export function clientEnv(env: Record<string, string> = {}): Record<string, string> {
  return { PATH: process.env.PATH ?? "", ...(process.env.HOME && { HOME: process.env.HOME }), ...env };
}

/** `parts-mcp config …` of the built launcher, run from a folder elsewhere. */
export function configOutput(
  args: string[],
  env: Record<string, string> = {},
): { stdout: string; stderr: string; status: number | null } {
  const { stdout, stderr, status } = spawnSync(process.execPath, [launcher, "config", ...args], {
    cwd: elsewhere(),
    env: clientEnv(env),
    encoding: "utf8",
  });
  return { stdout, stderr, status };
}

export interface Started {
  client: Client;
  stderr(): string;
  /** Milliseconds from spawn to the answer of the opening exchange. */
  openedInMs: number;
  close(): Promise<void>;
}

/** Starts `command args` as an MCP client does, from `cwd`, and opens a session. */
export async function startAsClient(
  command: string,
  args: string[],
  env: Record<string, string>,
  cwd: string,
): Promise<Started> {
  const transport = new StdioClientTransport({ command, args, env, cwd, stderr: "pipe" });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const client = new Client({ name: "parts-mcp-install-tests", version: "1.0.0" });
  const started = performance.now();
  await client.connect(transport);
  const openedInMs = performance.now() - started;
  return { client, stderr: () => stderr, openedInMs, close: () => client.close() };
}
