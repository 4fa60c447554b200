// Running an entry point from its command line: parse the flags, answer --help and --version,
// then start. Every failure before the start is complete ends as one line on stderr, in the
// words the person used (a flag's name when a flag set the value), and an exit code.
import { VERSION } from "../app/version";
import { byVariable, ConfigError, type SettingName } from "./errors";
import { type Command, type CommandLine, parseCommandLine } from "./flags";
import { usage } from "./usage";

/** Where an entry point writes; the process's streams, or a capture in tests. */
export interface Output {
  stdout(text: string): void;
  stderr(text: string): void;
}

export const processOutput: Output = {
  stdout: (text) => void process.stdout.write(text),
  stderr: (text) => void process.stderr.write(text),
};

/** Exit code of a refused configuration (a usage error), as the shell's own tools use it. */
const EXIT_CONFIG = 2;

/**
 * Runs `command` with `argv`. A ConfigError from parsing or from `start` gives one line and exit
 * code 2; any other error its stack and 1. Resolves to the exit code, or to undefined when `start`
 * left something running (a server that stops on a signal).
 */
export async function runCommand(
  command: Command,
  argv: readonly string[],
  start: (line: CommandLine) => Promise<number | undefined>,
  output: Output = processOutput,
): Promise<number | undefined> {
  let name: SettingName = byVariable;
  try {
    const line = parseCommandLine(command, argv);
    name = line.name;
    if (line.help) {
      output.stdout(`${usage(command)}\n`);
      return 0;
    }
    if (line.version) {
      output.stdout(`parts-mcp ${VERSION}\n`);
      return 0;
    }
    return await start(line);
  } catch (error) {
    if (error instanceof ConfigError) {
      output.stderr(`${command.name}: ${error.describe(name)}\n`);
      return EXIT_CONFIG;
    }
    output.stderr(`${command.name}: ${error instanceof Error ? error.stack : String(error)}\n`);
    return 1;
  }
}
