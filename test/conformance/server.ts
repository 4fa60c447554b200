// Starts `parts-mcp --http` for the conformance suite the way an operator does: mcp.json's command
// and environment, port 0, the URL read back from the ready line on stderr, and an embedded API
// that the caller owns. Its stderr also lands in .test-logs/ for the suite-wide secret scan.
import { spawn } from "node:child_process";
import { appendFileSync, mkdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), "../..");
const logDir = join(repoRoot, ".test-logs");

interface McpJson {
  mcpServers: Record<string, { command: string; args: string[]; env: Record<string, string> }>;
}

export interface ConformanceServer {
  /** The MCP endpoint, http://127.0.0.1:<port>/mcp. */
  url: string;
  stderr(): string;
  /** SIGTERM, then the exit code. */
  stop(): Promise<number | null>;
}

/**
 * `node <mcp.json's script> --http --port 0` against `api`. PARTS_CONFORMANCE_SCRIPT names
 * another bundle to test instead (a build of work in progress, without touching dist/).
 */
export async function startHttpServer(api: { url: string; demoToken: string }): Promise<ConformanceServer> {
  const mcpJson = JSON.parse(readFileSync(join(repoRoot, "mcp.json"), "utf8")) as McpJson;
  const entry = mcpJson.mcpServers["parts-mcp"];
  if (!entry) throw new Error("mcp.json has no parts-mcp server");
  const script = process.env.PARTS_CONFORMANCE_SCRIPT;
  const args = script ? [...entry.args.filter((arg) => arg.startsWith("--")), script] : entry.args;
  const child = spawn(
    entry.command === "node" ? process.execPath : entry.command,
    [...args, "--http", "--port", "0"],
    {
      cwd: repoRoot,
      env: {
        PATH: process.env.PATH ?? "",
        ...entry.env,
        PARTS_API_BASE_URL: api.url,
        PARTS_API_TOKEN: api.demoToken,
        PARTS_MCP_LOG_LEVEL: "debug",
      },
      stdio: ["ignore", "ignore", "pipe"],
    },
  );
  mkdirSync(logDir, { recursive: true });
  const logFile = join(logDir, `conformance-${process.pid}-${Date.now()}.log`);
  let stderr = "";
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
      appendFileSync(logFile, chunk);
      const match = /"url":"(http:\/\/[^"]+)"/.exec(stderr);
      if (match) resolve(match[1] as string);
    });
    void exited.then((code) =>
      reject(new Error(`the server exited (${code}) before it was ready:\n${stderr}`)),
    );
  });
  return {
    url,
    stderr: () => stderr,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      return exited;
    },
  };
}
