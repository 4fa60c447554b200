// The tables of tools in README.md (in brief) and docs/tools.md (with every input), generated from
// the registry so that they cannot drift: `npm run docs` rewrites both, and a test fails when
// either is stale.
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { tools } from "../tools";

type Style = "brief" | "full";

/** Each generated file, the style of its table, and the markers around it. */
export const GENERATED = [
  { file: "README.md", style: "brief", start: "<!-- tools:start -->", end: "<!-- tools:end -->" },
  {
    file: "docs/tools.md",
    style: "full",
    start: "<!-- tools-full:start -->",
    end: "<!-- tools-full:end -->",
  },
] as const;

function kindOf(tool: (typeof tools)[number]): string {
  return tool.annotations.readOnlyHint ? "read" : "creates";
}

export function toolsTable(style: Style): string {
  if (style === "brief") {
    return [
      "| Tool | Kind | What it does |",
      "|---|---|---|",
      ...tools.map((tool) => `| \`${tool.name}\` | ${kindOf(tool)} | ${tool.description} |`),
    ].join("\n");
  }
  const rows = tools.map((tool) => {
    const inputs = Object.entries(tool.input.shape)
      .map(([name, schema]) => (schema.safeParse(undefined).success ? name : `**${name}**`))
      .join(", ");
    return `| \`${tool.name}\` | ${tool.group} | ${kindOf(tool)} | ${inputs || "—"} | ${tool.description} |`;
  });
  return [
    "| Tool | Group | Kind | Inputs (**required**) | What it does |",
    "|---|---|---|---|---|",
    ...rows,
  ].join("\n");
}

/** `text` with the table between its markers regenerated. */
export function withToolsTable(text: string, which: (typeof GENERATED)[number]): string {
  const start = text.indexOf(which.start);
  const end = text.indexOf(which.end);
  if (start < 0 || end < start)
    throw new Error(`${which.file} needs ${which.start} and ${which.end} markers`);
  return `${text.slice(0, start + which.start.length)}\n${toolsTable(which.style)}\n${text.slice(end)}`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const which of GENERATED) {
    const path = new URL(`../${which.file}`, import.meta.url);
    writeFileSync(path, withToolsTable(readFileSync(path, "utf8"), which));
  }
}
