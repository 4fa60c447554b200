// The README's table of tools, generated from the registry so that it cannot drift:
// `npm run docs` rewrites it, and a test fails when the README is stale.
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { tools } from "../tools";

const START = "<!-- tools:start -->";
const END = "<!-- tools:end -->";

export function toolsTable(): string {
  const rows = tools.map((tool) => {
    const inputs = Object.entries(tool.input.shape)
      .map(([name, schema]) => (schema.safeParse(undefined).success ? name : `**${name}**`))
      .join(", ");
    const kind = tool.annotations.readOnlyHint ? "read" : "creates";
    return `| \`${tool.name}\` | ${tool.group} | ${kind} | ${inputs || "—"} | ${tool.description} |`;
  });
  return [
    "| Tool | Group | Kind | Inputs (**required**) | What it does |",
    "|---|---|---|---|---|",
    ...rows,
  ].join("\n");
}

export function withToolsTable(readme: string): string {
  const start = readme.indexOf(START);
  const end = readme.indexOf(END);
  if (start < 0 || end < start) throw new Error(`README.md needs ${START} and ${END} markers`);
  return `${readme.slice(0, start + START.length)}\n${toolsTable()}\n${readme.slice(end)}`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const path = new URL("../README.md", import.meta.url);
  writeFileSync(path, withToolsTable(readFileSync(path, "utf8")));
}
