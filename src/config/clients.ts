// `parts-mcp config <client>`: the ready entry of this server for each MCP client's own file or
// command, with absolute paths (a client starts servers from a folder of its own) and the settings
// given as flags or PARTS_* variables. The token is never printed: each entry refers to it the way
// its client keeps secrets, or leaves a placeholder.
import { existsSync, realpathSync } from "node:fs";
import { sep } from "node:path";
import { fileURLToPath } from "node:url";
import { ENV, loadApiConfig } from "./api";
import { SERVER_FLAGS } from "./commands";
import { type Env, environment } from "./env";
import { ConfigError } from "./errors";
import type { Command, CommandLine } from "./flags";
import { loadSelectionConfig, TRANSPORT_ENV } from "./serving";

const CLIENTS = ["claude-desktop", "claude-code", "vscode", "cursor", "http"] as const;
type ClientName = (typeof CLIENTS)[number];

const SERVER_NAME = "parts-mcp";
const TOKEN_PLACEHOLDER = "<your personal access token>";
const DEFAULT_LOCAL_URL = "http://127.0.0.1:8788/mcp";

export const CONFIG_COMMAND: Command = {
  name: "parts-mcp config",
  synopsis: [`parts-mcp config <${CLIENTS.join("|")}> [--url URL] [--npx] [server flags]`],
  flags: [
    {
      flag: "--url",
      placeholder: "URL",
      description: `a remote entry for the /mcp URL of a server run with --http (http: default ${DEFAULT_LOCAL_URL})`,
    },
    {
      flag: "--npx",
      sets: "true",
      description: "start the published package with npx -y parts-mcp instead of this installation",
    },
    ...SERVER_FLAGS.filter((flag) => !flag.httpOnly && flag.flag !== "--http" && flag.flag !== "--stdio"),
  ],
};

/** How the entry starts the server: a command and its arguments, and its environment. */
interface LocalStart {
  command: string;
  args: string[];
  env: Record<string, string>;
  /** Whether the Parts API token belongs in `env` (a remote environment, or a token was set). */
  needsToken: boolean;
}

/** What one client needs: the text for stdout, and where it goes, for stderr. */
interface ClientEntry {
  text: string;
  where: string;
}

/** The `parts-mcp` command (dist/parts-mcp.js) of this installation, as an absolute path without links. */
function launcherPath(): string {
  // In the bundle, import.meta.url is the bundle's own file, dist/parts-mcp.js; from source, src/config/.
  const candidates = ["parts-mcp.js", "../../dist/parts-mcp.js"].map((path) =>
    fileURLToPath(new URL(path, import.meta.url)),
  );
  const found = candidates.find((path) => existsSync(path));
  if (found === undefined) throw new Error(`no launcher at ${candidates.join(" or ")}: run npm run build`);
  return realpathSync(found);
}

/** Where the server runs from, with the PARTS_* settings of `env` and the flags in `flagArgs`. */
function localStart(
  env: Env,
  flags: { args: readonly string[]; variables: readonly string[] },
  npx: boolean,
): LocalStart {
  const settings = Object.entries(env)
    .filter(([name, value]) => name.startsWith("PARTS_") && value?.trim())
    .filter(([name]) => name !== ENV.token && !flags.variables.includes(name))
    .filter(([name]) => name !== TRANSPORT_ENV)
    .sort(([a], [b]) => a.localeCompare(b)) as [string, string][];
  const api = loadApiConfig(env, { requireToken: false });
  const start = npx
    ? { command: "npx", args: ["-y", "parts-mcp", ...flags.args] }
    : { command: process.execPath, args: [launcherPath(), ...flags.args] };
  return {
    ...start,
    env: { [ENV.environment]: api.environment, ...Object.fromEntries(settings) },
    needsToken: api.environment !== "local" || api.token !== undefined,
  };
}

/** The entry for `client`: local (stdio) unless `url` is given. */
function clientEntry(client: ClientName, start: LocalStart, url?: string): ClientEntry {
  return url === undefined ? localEntry(client, start) : remoteEntry(client, url);
}

const json = (value: unknown) => JSON.stringify(value, null, 2);

function localEntry(client: ClientName, start: LocalStart): ClientEntry {
  const { command, args } = start;
  const env = (token: string) => (start.needsToken ? { ...start.env, [ENV.token]: token } : start.env);
  switch (client) {
    case "claude-desktop":
      return {
        text: json({ mcpServers: { [SERVER_NAME]: { command, args, env: env(TOKEN_PLACEHOLDER) } } }),
        where: `${claudeDesktopFile()}${start.needsToken ? ` Replace ${TOKEN_PLACEHOLDER} with your token.` : ""}`,
      };
    case "cursor":
      return {
        text: json({ mcpServers: { [SERVER_NAME]: { command, args, env: env(`\${env:${ENV.token}}`) } } }),
        where: `Add it to ~/.cursor/mcp.json (every project) or .cursor/mcp.json (one project).${start.needsToken ? ` Cursor reads the token from ${ENV.token} in its own environment.` : ""}`,
      };
    case "vscode": {
      const inputs = start.needsToken
        ? [
            {
              type: "promptString",
              id: "parts-api-token",
              description: "Parts API personal access token",
              password: true,
            },
          ]
        : undefined;
      const server = { type: "stdio", command, args, env: env(`\${input:parts-api-token}`) };
      return {
        text: json({ ...(inputs && { inputs }), servers: { [SERVER_NAME]: server } }),
        where: `Put it in .vscode/mcp.json (one workspace) or run "MCP: Open User Configuration" (every workspace).${inputs ? " VS Code asks for the token once and keeps it encrypted." : ""}`,
      };
    }
    case "claude-code": {
      const envArgs = Object.entries(env(`$${ENV.token}`)).flatMap(([name, value]) => [
        "--env",
        name === ENV.token ? `${name}="${value}"` : `${name}=${value}`,
      ]);
      // The name before --env: the option takes every value up to the next flag or "--".
      const words = [
        "claude",
        "mcp",
        "add",
        "--transport",
        "stdio",
        SERVER_NAME,
        ...envArgs,
        "--",
        command,
        ...args,
      ];
      return {
        // The token stays a reference to the shell's variable, expanded when the command runs.
        text: words.map((word) => (word.startsWith(`${ENV.token}=`) ? word : shellWord(word))).join(" "),
        where: `Run it in a shell${start.needsToken ? ` where ${ENV.token} is set` : ""}; add --scope user to use it in every project.`,
      };
    }
    case "http":
      return remoteEntry(client, DEFAULT_LOCAL_URL);
  }
}

function remoteEntry(client: ClientName, url: string): ClientEntry {
  const started = `The server must be running with --http at ${url} (parts-mcp --help lists its HTTP settings).`;
  switch (client) {
    case "claude-desktop":
      throw new ConfigError(
        `Claude Desktop takes remote servers in Settings > Connectors > Add custom connector, not in its file: give it ${url} there, or leave out --url for a local entry.`,
      );
    case "claude-code":
      return {
        text: ["claude", "mcp", "add", "--transport", "http", SERVER_NAME, url].map(shellWord).join(" "),
        where: started,
      };
    case "vscode":
      return { text: json({ servers: { [SERVER_NAME]: { type: "http", url } } }), where: started };
    case "cursor":
    case "http":
      return { text: json({ mcpServers: { [SERVER_NAME]: { type: "http", url } } }), where: started };
  }
}

/** Where Claude Desktop keeps its configuration, on each system (Settings > Developer > Edit Config). */
function claudeDesktopFile(): string {
  const files = {
    darwin: "~/Library/Application Support/Claude/claude_desktop_config.json",
    win32: "%APPDATA%\\Claude\\claude_desktop_config.json",
    linux: "~/.config/Claude/claude_desktop_config.json",
  };
  const here = files[process.platform as keyof typeof files];
  return (
    `Merge it into claude_desktop_config.json${here ? ` (here: ${here})` : ""} and restart Claude Desktop. ` +
    `macOS: ${files.darwin}; Windows: ${files.win32}; Linux builds: ${files.linux}.`
  );
}

/** A word for a POSIX shell: quoted only when it needs to be. */
function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`;
}

/** Runs `parts-mcp config`: the entry on stdout, where it goes on stderr. */
export function writeClientConfig(
  client: string | undefined,
  line: CommandLine,
  output: { stdout(text: string): void; stderr(text: string): void },
): number {
  if (!CLIENTS.includes(client as ClientName)) {
    throw new ConfigError(
      `${client === undefined ? "Name a client" : `Unknown client ${JSON.stringify(client)}`}: parts-mcp config ${CLIENTS.join(", ")}.`,
    );
  }
  const { values, given } = line;
  const env = environment(values);
  loadSelectionConfig(env);
  const url = values["--url"] ?? undefined;
  const remote = url === undefined ? undefined : checkedUrl(url);
  // Flags stay flags in the entry (their variables are not repeated in its env).
  const serverFlags = given.flatMap((flag) => (flag.variable === undefined ? [] : [flag]));
  const args = serverFlags.flatMap((flag) =>
    flag.sets === undefined ? [flag.flag, values[flag.variable as string] as string] : [flag.flag],
  );
  const variables = serverFlags.map((flag) => flag.variable as string);
  // A launcher in npx's cache is gone at its next clean-up: such an entry starts npx itself.
  const npx = values["--npx"] === "true" || launcherPath().includes(`${sep}_npx${sep}`);
  const start = localStart(env, { args, variables }, npx);
  const entry = clientEntry(client as ClientName, start, remote);
  output.stdout(`${entry.text}\n`);
  output.stderr(`${entry.where}\n`);
  return 0;
}

/** The /mcp URL of a running server: absolute http(s), no credentials, query or fragment. */
function checkedUrl(url: string): string {
  const parsed = URL.canParse(url) ? new URL(url) : undefined;
  if (
    parsed === undefined ||
    !["http:", "https:"].includes(parsed.protocol) ||
    parsed.username ||
    parsed.password ||
    parsed.search ||
    parsed.hash
  ) {
    throw new ConfigError(
      "--url must be the absolute http:// or https:// URL of a server's /mcp endpoint, without a user name, query or fragment, such as https://mcp.example.com/mcp.",
    );
  }
  return parsed.href;
}
