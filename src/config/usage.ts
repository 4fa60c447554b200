// The --help text of an entry point, generated from its declarations (commands.ts): every flag
// with the variable it sets, then every environment setting with its default.
import type { Command, FlagDeclaration } from "./flags";
import type { Setting } from "./readers";

const HELP_LINES: readonly [string, string][] = [
  ["-h, --help", "this text"],
  ["--version", "print the version and exit"],
];

export function usage(command: Command): string {
  const [first, ...rest] = command.synopsis;
  const flags: [string, string][] = [...command.flags.map(flagLine), ...HELP_LINES];
  const width = Math.max(...flags.map(([left]) => left.length)) + 2;
  const lines = [
    `usage: ${first}`,
    ...rest.map((line) => `       ${line}`),
    "",
    "Flags:",
    ...flags.map(([left, right]) => `  ${left.padEnd(width)}${right}`),
  ];
  if (command.settings !== undefined) {
    lines.push("", "Settings (environment variables; a flag wins over the variable it sets):");
    for (const group of command.settings) {
      lines.push("", `${group.title}:`, ...group.settings.flatMap(settingLines));
    }
  }
  return lines.join("\n");
}

function flagLine(declaration: FlagDeclaration): [string, string] {
  const left = declaration.placeholder ? `${declaration.flag} ${declaration.placeholder}` : declaration.flag;
  if (declaration.variable === undefined) return [left, declaration.description];
  const sets =
    declaration.sets === undefined ? declaration.variable : `${declaration.variable}=${declaration.sets}`;
  const scope = declaration.httpOnly ? "; with --http only" : "";
  return [left, `${declaration.description} (${sets}${scope})`];
}

function settingLines(setting: Setting): string[] {
  const fallback = setting.defaultText === undefined ? "" : ` (default ${setting.defaultText})`;
  return [`  ${setting.variable}${fallback}`, `      ${setting.description}`];
}
