// The command line of every entry point, parsed by node:util parseArgs from one declaration per
// flag (commands.ts). A flag of `parts-mcp` sets the environment variable it mirrors, so it wins
// over the environment and is checked by the same reader; the parse remembers which flag set
// which variable, so that an error names what the person typed.
import { parseArgs } from "node:util";
import type { Env } from "./env";
import { ConfigError, type SettingName } from "./errors";
import type { SettingGroup } from "./readers";

export interface FlagDeclaration {
  /** As typed: "--port". */
  flag: `--${string}`;
  /** The environment variable it sets; absent for a flag of its own (`parts-mcp api`). */
  variable?: string;
  /** A flag that takes no value sets this ("--http" sets PARTS_MCP_TRANSPORT=http). */
  sets?: string;
  /** Stands for the value in the usage text: "N". */
  placeholder?: string;
  description: string;
  /** Meaningful only when serving over HTTP: refused with stdio. */
  httpOnly?: boolean;
}

/** One entry point: its name, usage lines, flags, and the environment settings it reads. */
export interface Command {
  /** As typed: "parts-mcp" or "parts-mcp api". */
  name: string;
  synopsis: readonly string[];
  flags: readonly FlagDeclaration[];
  settings?: readonly SettingGroup[];
}

export interface CommandLine {
  /** Each value given, under the flag's variable (or under the flag when it has none). */
  values: Env & Record<string, string>;
  /** The flags given, in the order typed, each once. */
  given: readonly FlagDeclaration[];
  help: boolean;
  version: boolean;
  /** Names a setting as the person gave it: the flag that set it, else its variable. */
  name: SettingName;
}

/** The key a flag's value is stored under in `CommandLine.values`. */
function keyOf(declaration: FlagDeclaration): string {
  return declaration.variable ?? declaration.flag;
}

const BUILT_IN = {
  help: { type: "boolean", short: "h" },
  version: { type: "boolean" },
} as const;

/** Parses `argv` for `command`; throws a ConfigError naming a flag that is unknown, lacks its value
 * or takes none. */
export function parseCommandLine(command: Command, argv: readonly string[]): CommandLine {
  const byName = new Map(command.flags.map((declaration) => [declaration.flag.slice(2), declaration]));
  const options = Object.fromEntries([
    ...Object.entries(BUILT_IN),
    ...[...byName].map(([name, declaration]) => [
      name,
      { type: declaration.sets === undefined ? "string" : "boolean" } as const,
    ]),
  ]);
  const { tokens } = parseArgs({
    args: [...argv],
    options,
    strict: false,
    allowPositionals: true,
    tokens: true,
  });

  const values: Record<string, string> = {};
  const given = new Map<string, FlagDeclaration>();
  let help = false;
  let version = false;
  for (const token of tokens) {
    const typed = argv[token.index] as string;
    if (token.kind !== "option") throw unknownArgument(command, typed);
    const builtIn = token.name === "help" || token.name === "version";
    const declaration = byName.get(token.name);
    const long = token.rawName === `--${token.name}`;
    if (!(builtIn || (declaration !== undefined && long))) throw unknownArgument(command, typed);
    const takesValue = declaration !== undefined && declaration.sets === undefined;
    if (!takesValue && token.value !== undefined) {
      throw new ConfigError(
        `${token.rawName} takes no value: remove "${typed.slice(token.rawName.length)}".`,
      );
    }
    if (token.name === "help") help = true;
    else if (token.name === "version") version = true;
    else if (declaration !== undefined) {
      const value = declaration.sets ?? token.value;
      if (value === undefined || value === "" || (!token.inlineValue && value.startsWith("--"))) {
        throw new ConfigError(`${declaration.flag} needs a value: see ${command.name} --help.`);
      }
      values[keyOf(declaration)] = value;
      given.set(declaration.flag, declaration);
    }
  }
  const flagOf = new Map([...given.values()].map((declaration) => [keyOf(declaration), declaration.flag]));
  return {
    values,
    given: [...given.values()],
    help,
    version,
    name: (variable) => flagOf.get(variable) ?? variable,
  };
}

function unknownArgument(command: Command, typed: string): ConfigError {
  return new ConfigError(
    `Unknown argument ${JSON.stringify(typed)}: see ${command.name} --help for the flags.`,
  );
}
