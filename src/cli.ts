// The `parts-mcp` command: the MCP server on stdio by default, over Streamable HTTP with --http;
// `parts-mcp stdio` serves stdio whatever PARTS_MCP_TRANSPORT says (the image's command for it);
// `parts-mcp api` runs the embedded Parts API on its own; `parts-mcp config <client>` prints the
// entry for an MCP client's configuration; `parts-mcp healthcheck` asks a running HTTP server.
// Flags mirror environment variables (config/commands.ts): every setting is read and checked
// before anything starts.
import {
  type CommandLine,
  ConfigError,
  environment,
  HEALTHCHECK_COMMAND,
  loadApiConfig,
  loadAppsConfig,
  loadCacheConfig,
  loadConfirmWrites,
  loadHttpConfig,
  loadLimitsConfig,
  loadListenAddress,
  loadSearchConfig,
  loadSelectionConfig,
  loadTelemetryConfig,
  loadTransport,
  processOutput,
  runCommand,
  SERVER_COMMAND,
  TRANSPORT_ENV,
} from "./config";

/** Started by hand on a terminal, the stdio server would otherwise wait in silence. */
const TERMINAL_HINT =
  "parts-mcp: serving MCP on stdin/stdout, for an MCP client to start (see mcp.json). " +
  "Use --http to serve over HTTP, --help for every option; Ctrl+C stops.";

// No top-level await: the build bundles this file as CommonJS, which has none (scripts/build.mjs says why).
void main(process.argv.slice(2));

async function main(argv: string[]): Promise<void> {
  const code =
    argv[0] === "api"
      ? await (await import("./embedded/standalone")).runStandaloneApi(argv.slice(1))
      : argv[0] === "config"
        ? await runConfig(argv.slice(1))
        : argv[0] === "stdio"
          ? await runCommand(SERVER_COMMAND, argv.slice(1), (line) => runServer(onStdio(line)))
          : argv[0] === "healthcheck"
            ? await runHealthcheck(argv.slice(1))
            : await runCommand(SERVER_COMMAND, argv, runServer);
  // A refusal exits at once: something may already be open (the embedded API, a listening socket).
  if (code !== undefined && code !== 0) process.exit(code);
}

async function runConfig(argv: string[]): Promise<number | undefined> {
  const { CONFIG_COMMAND, writeClientConfig } = await import("./config/clients");
  const client = argv[0]?.startsWith("-") ? undefined : argv[0];
  const flags = client === undefined ? argv : argv.slice(1);
  return runCommand(CONFIG_COMMAND, flags, async (line) => writeClientConfig(client, line, processOutput));
}

async function runHealthcheck(argv: string[]): Promise<number | undefined> {
  const { checkHealth } = await import("./app/healthcheck");
  return runCommand(HEALTHCHECK_COMMAND, argv, async ({ values }) =>
    checkHealth(loadListenAddress(environment(values)), processOutput),
  );
}

/** `parts-mcp stdio`'s command line: stdio, whatever PARTS_MCP_TRANSPORT says; --http is refused. */
function onStdio(line: CommandLine): CommandLine {
  if (line.values[TRANSPORT_ENV] === "http") {
    throw new ConfigError(
      "stdio serves MCP on stdin/stdout: remove --http, or run parts-mcp --http to serve over HTTP.",
    );
  }
  return { ...line, values: { ...line.values, [TRANSPORT_ENV]: "stdio" } };
}

async function runServer({ values, given }: CommandLine): Promise<undefined> {
  const env = environment(values);
  const transport = loadTransport(env);
  const selection = loadSelectionConfig(env);
  const cache = loadCacheConfig(env);
  const limits = loadLimitsConfig(env);
  const search = loadSearchConfig(env);
  const telemetry = loadTelemetryConfig(env);
  const confirmWrites = loadConfirmWrites(env);
  const [{ tools: allTools }, { selectTools }, { buildCatalogue }] = await Promise.all([
    import("../tools"),
    import("./mcp/selection"),
    import("./mcp/catalogue"),
  ]);
  const catalogue = buildCatalogue(selectTools(allTools, selection), { views: loadAppsConfig(env).enabled });

  if (transport === "http") {
    const http = loadHttpConfig(env);
    const api = loadApiConfig(env, { requireToken: !http.access.perUser && !http.access.oauth });
    const { runHttpServer } = await import("./http");
    await runHttpServer({ api, cache, search, limits, catalogue, http, telemetry, confirmWrites });
  } else {
    const httpOnly = given.filter((flag) => flag.httpOnly).map((flag) => flag.flag);
    if (httpOnly.length > 0) {
      throw new ConfigError(`${httpOnly.join(", ")} applies to HTTP serving only: add --http.`);
    }
    const api = loadApiConfig(env);
    if (process.stdin.isTTY) process.stderr.write(`${TERMINAL_HINT}\n`);
    const { runStdioServer } = await import("./stdio/serve");
    await runStdioServer({
      api,
      cache,
      search,
      limits,
      catalogue,
      checkUpstream: true,
      telemetry,
      confirmWrites,
    });
  }
  return undefined;
}
