// The `parts-mcp` command: the MCP server on stdio by default; `parts-mcp api` runs the embedded
// Parts API on its own.
import { ConfigError } from "./config";

const [command, ...rest] = process.argv.slice(2);

try {
  if (command === "api") {
    const { runStandaloneApi } = await import("./embedded/standalone");
    await runStandaloneApi(rest);
  } else {
    const { runStdioServer } = await import("./stdio");
    await runStdioServer();
  }
} catch (error) {
  const message = error instanceof ConfigError ? error.message : error instanceof Error ? error.stack : String(error);
  process.stderr.write(`parts-mcp: ${message}\n`);
  process.exit(error instanceof ConfigError ? 2 : 1);
}
