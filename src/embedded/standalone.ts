// `parts-mcp api`: runs the embedded Parts API on its own, for curl, other clients or a browser
// on the OpenAPI document. Prints the URL, the demo tokens and an example, and stops on SIGINT or
// SIGTERM. Its flags are declared with the server's (config/commands.ts) and parsed by the same
// parser; a start-up failure is one line on stderr and a non-zero exit code.
import {
  API_COMMAND,
  type CommandLine,
  ConfigError,
  DEFAULT_STANDALONE_PORT,
  type Output,
  processOutput,
  readHost,
  readInteger,
  runCommand,
} from "../config";
import { explainListenError } from "../net/hosts";
import { type EmbeddedApi, type EmbeddedApiOptions, startEmbeddedApi } from "./index";

export { DEFAULT_STANDALONE_PORT };

type StandaloneOptions = Required<Pick<EmbeddedApiOptions, "port" | "host">> &
  Pick<EmbeddedApiOptions, "catalogue">;

/** The options of `parts-mcp api` from its parsed flags; throws a ConfigError naming the flag. */
function optionsFrom({ values }: CommandLine): StandaloneOptions {
  return {
    port: readInteger(values, "--port", { defaultValue: DEFAULT_STANDALONE_PORT, min: 0, max: 65_535 }),
    host: readHost(values, "--host", "127.0.0.1"),
    ...(values["--large"] !== undefined && { catalogue: "large" as const }),
  };
}

/**
 * Runs `parts-mcp api` until SIGINT or SIGTERM. Resolves to the exit code: 0 after a stop by
 * signal or after --help, 2 for a flag or an address that cannot be used, 1 for any other failure
 * to start. Everything it says goes to `output`.
 */
export async function runStandaloneApi(
  argv: readonly string[],
  output: Output = processOutput,
): Promise<number> {
  const code = await runCommand(API_COMMAND, argv, (line) => serve(optionsFrom(line), output), output);
  return code ?? 0;
}

async function serve(options: StandaloneOptions, output: Output): Promise<number> {
  let api: EmbeddedApi;
  try {
    api = await startEmbeddedApi(options);
  } catch (error) {
    const failure = explainListenError(error, options.host, options.port);
    if (failure !== undefined) {
      throw new ConfigError(`${failure.reason}; choose another with --${failure.change}.`);
    }
    output.stderr(
      `${API_COMMAND.name}: could not start: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    return 1;
  }
  output.stdout(`${greeting(api, options).join("\n")}\n`);
  await stopOnSignal(api);
  return 0;
}

function greeting(api: EmbeddedApi, options: StandaloneOptions): string[] {
  const width = Math.max(...api.accounts.map((a) => a.orgName.length));
  const data = options.catalogue === "large" ? "sample data + 100,000 generated parts" : "sample data";
  return [
    `Parts API (embedded, ${data}) listening on ${api.url}`,
    `OpenAPI document: ${api.url}/openapi.json`,
    "",
    "Demo tokens (Authorization: Bearer <token>):",
    ...api.accounts.map((a) => `  ${a.orgName.padEnd(width)}  ${a.orgId.padEnd(20)}  ${a.token}`),
    "",
    "Try:",
    `  curl -H "Authorization: Bearer ${api.demoToken}" "${api.url}/v1/parts?pageSize=2&view=IP_OWNER"`,
    `  curl -H "Authorization: Bearer ${api.demoToken}" "${api.url}/v1/standards/ASTM%20F3001"`,
    "",
    "Press Ctrl+C to stop.",
  ];
}

function stopOnSignal(api: EmbeddedApi): Promise<void> {
  return new Promise<void>((resolve) => {
    const stop = () => {
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
      void api.close().then(resolve);
    };
    process.on("SIGINT", stop);
    process.on("SIGTERM", stop);
  });
}
