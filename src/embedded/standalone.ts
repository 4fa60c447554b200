// `parts-mcp api`: runs the embedded Parts API on its own, for curl, other clients or a browser
// on the OpenAPI document. Prints the URL, the demo tokens and an example, and stops on SIGINT or
// SIGTERM.
import { type EmbeddedApiOptions, startEmbeddedApi } from "./index";

const USAGE = `usage: parts-mcp api [--port N] [--host H] [--large]
  --port N   port to listen on (default 8787; 0 picks a free one)
  --host H   address to listen on (default 127.0.0.1)
  --large    add a generated catalogue of 100,000 parts to the sample data`;

export const DEFAULT_STANDALONE_PORT = 8787;

/** Parses the flags; throws an Error whose message is fit for the terminal. */
export function parseStandaloneArgs(argv: readonly string[]): EmbeddedApiOptions & { help?: boolean } {
  const options: EmbeddedApiOptions & { help?: boolean } = { port: DEFAULT_STANDALONE_PORT };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    const [flag, inline] = arg.startsWith("--") && arg.includes("=") ? arg.split("=", 2) : [arg, undefined];
    const value = () => {
      const v = inline ?? argv[++i];
      if (v === undefined || v === "") throw new Error(`${flag} needs a value\n${USAGE}`);
      return v;
    };
    switch (flag) {
      case "--port": {
        const v = value();
        const port = Number(v);
        if (!/^\d+$/.test(v) || port > 65535)
          throw new Error(`--port must be 0..65535, got ${JSON.stringify(v)}`);
        options.port = port;
        break;
      }
      case "--host":
        options.host = value();
        break;
      case "--large":
        options.catalogue = "large";
        break;
      case "-h":
      case "--help":
        options.help = true;
        break;
      default:
        throw new Error(`unknown argument ${JSON.stringify(arg)}\n${USAGE}`);
    }
  }
  return options;
}

export async function runStandaloneApi(argv: string[]): Promise<void> {
  const { help, ...options } = parseStandaloneArgs(argv);
  if (help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const api = await startEmbeddedApi(options);
  const width = Math.max(...api.accounts.map((a) => a.orgName.length));
  const lines = [
    `Parts API (embedded, ${options.catalogue === "large" ? "sample data + 100,000 generated parts" : "sample data"}) listening on ${api.url}`,
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
  process.stdout.write(`${lines.join("\n")}\n`);
  await new Promise<void>((resolve) => {
    const stop = () => {
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
      void api.close().then(resolve);
    };
    process.on("SIGINT", stop);
    process.on("SIGTERM", stop);
  });
}
