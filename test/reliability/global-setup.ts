// Runs once before the test files: empties .test-logs/, so that the secret scan, which runs after
// every other test file, reads what this run's servers wrote and nothing older. Files are removed,
// not the folder: a server started by another process writing there keeps its folder.
import { mkdirSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { serverLogDir } from "../support/mcp-server";

export default function clearServerLogs(): void {
  mkdirSync(serverLogDir, { recursive: true });
  for (const name of readdirSync(serverLogDir)) rmSync(join(serverLogDir, name), { force: true });
}
