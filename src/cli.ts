// The `parts-mcp` command: the MCP server on stdio by default, over Streamable HTTP with --http;
// `parts-mcp api` runs the embedded Parts API on its own. Flags mirror environment variables
// (config.ts, FLAGS): every setting is read and checked before anything starts.
import {
  ConfigError,
  environment,
  FLAGS,
  inTermsOfFlags,
  loadApiConfig,
  loadCacheConfig,
  loadHttpConfig,
  loadSelectionConfig,
  loadTransport,
  parseFlags,
  USAGE,
} from "./config";

const argv = process.argv.slice(2);

try {
  if (argv[0] === "api") {
    const { runStandaloneApi } = await import("./embedded/standalone");
    await runStandaloneApi(argv.slice(1));
  } else {
    await runServer(argv);
  }
} catch (error) {
  const message =
    error instanceof ConfigError
      ? inTermsOfFlags(error, argv).message
      : error instanceof Error
        ? error.stack
        : String(error);
  process.stderr.write(`parts-mcp: ${message}\n`);
  process.exit(error instanceof ConfigError ? 2 : 1);
}

async function runServer(args: readonly string[]): Promise<void> {
  const { overrides, help } = parseFlags(args);
  if (help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const env = environment(overrides);
  const transport = loadTransport(env);
  const selection = loadSelectionConfig(env);
  const cache = loadCacheConfig(env);
  const [{ tools: allTools }, { selectTools }] = await Promise.all([
    import("../tools"),
    import("./selection"),
  ]);
  const tools = selectTools(allTools, selection);

  if (transport === "http") {
    const http = loadHttpConfig(env);
    const api = loadApiConfig(env, { requireToken: !http.access.perUser });
    const { runHttpServer } = await import("./http");
    await runHttpServer({ api, cache, http, tools, allToolCount: allTools.length });
  } else {
    const httpOnly = Object.keys(FLAGS).filter(
      (name) => FLAGS[name]?.httpOnly && args.some((arg) => arg === name || arg.startsWith(`${name}=`)),
    );
    if (httpOnly.length > 0) {
      throw new ConfigError(`${httpOnly.join(", ")} applies to HTTP serving only: add --http.`);
    }
    const api = loadApiConfig(env);
    const { runStdioServer } = await import("./stdio");
    await runStdioServer(api, cache, tools);
  }
}
