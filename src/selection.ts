// Which tools this server offers, for both transports: `--read-only` keeps the tools whose
// annotations say readOnlyHint, `--tools` keeps the named tools and groups. Computed once at
// start-up; catalogue.ts turns the result into what every server instance serves.
import type { ToolDefinition } from "../tools/define";
import { TOOL_GROUPS } from "../tools/define";
import { ConfigError, SELECTION_ENV, type SelectionConfig } from "./config";

/**
 * The tools of `all` that `selection` keeps, in registry order. Unknown names, or a selection
 * that keeps nothing, are a ConfigError that lists what is valid.
 */
export function selectTools(
  all: readonly ToolDefinition[],
  selection: SelectionConfig,
): readonly ToolDefinition[] {
  let kept = all;
  if (selection.tools !== undefined) {
    const names = new Set(all.map((tool) => tool.name));
    const groups = new Set<string>(TOOL_GROUPS);
    const wanted = selection.tools.map((item) => item.toLowerCase());
    const unknown = wanted.filter((item) => !names.has(item) && !groups.has(item));
    if (unknown.length > 0) {
      throw new ConfigError(
        (name) =>
          `${name(SELECTION_ENV.tools)} names ${unknown.length === 1 ? "an unknown tool or group" : "unknown tools or groups"} (${unknown.join(", ")}): use tool names (${[...names].join(", ")}) or groups (${TOOL_GROUPS.join(", ")}), separated by commas.`,
        SELECTION_ENV.tools,
      );
    }
    const chosen = new Set(wanted);
    kept = kept.filter((tool) => chosen.has(tool.name) || chosen.has(tool.group));
  }
  if (selection.readOnly) kept = kept.filter((tool) => tool.annotations.readOnlyHint);
  const keptNames = new Set(kept.map((tool) => tool.name));
  kept = kept.filter((tool) => (tool.requires ?? []).every((name) => keptNames.has(name)));
  if (kept.length === 0) {
    throw new ConfigError(
      (name) =>
        `${name(SELECTION_ENV.tools)} names only tools that change data, which ${name(SELECTION_ENV.readOnly)} removes, so no tool is left: name at least one read-only tool or group.`,
      SELECTION_ENV.tools,
    );
  }
  return kept.length === all.length ? all : kept;
}
