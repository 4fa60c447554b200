// Which tools this server offers, for both transports: `--read-only` keeps the tools whose
// annotations say readOnlyHint, `--tools` keeps the named tools and groups. Computed once at
// start-up; catalogue.ts turns the result into what every server instance serves.
import type { ToolDefinition } from "../../tools/define";
import { TOOL_GROUPS } from "../../tools/define";
import { ConfigError, SELECTION_ENV, type SelectionConfig } from "../config";

/**
 * The tools of `all` that `selection` keeps, in registry order. Unknown names, or a selection
 * that keeps nothing, are a ConfigError that lists what is valid.
 */
export function selectTools(
  all: readonly ToolDefinition[],
  selection: SelectionConfig,
): readonly ToolDefinition[] {
  let kept = all;
  const wanted = selection.tools?.map((item) => item.toLowerCase());
  if (wanted !== undefined) {
    const names = new Set(all.map((tool) => tool.name));
    const groups = new Set<string>(TOOL_GROUPS);
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
  const missing = (tool: ToolDefinition) => (tool.requires ?? []).filter((name) => !keptNames.has(name));
  // A tool that came with its group goes quietly with the tools it needs; one named on its own is a refusal.
  const named = kept.find((tool) => missing(tool).length > 0 && wanted?.includes(tool.name));
  if (named) {
    const needs = missing(named).join(", ");
    throw new ConfigError(
      (name) =>
        selection.readOnly
          ? `${name(SELECTION_ENV.tools)} names ${named.name}, which serves only beside ${needs}, and ${name(SELECTION_ENV.readOnly)} removes that: drop ${named.name}, or serve without ${name(SELECTION_ENV.readOnly)}.`
          : `${name(SELECTION_ENV.tools)} names ${named.name}, which serves only beside ${needs}: add ${needs}, or drop ${named.name}.`,
      SELECTION_ENV.tools,
    );
  }
  kept = kept.filter((tool) => missing(tool).length === 0);
  if (kept.length === 0) {
    throw new ConfigError(
      (name) =>
        `${name(SELECTION_ENV.tools)} names only tools that change data, which ${name(SELECTION_ENV.readOnly)} removes, so no tool is left: name at least one read-only tool or group.`,
      SELECTION_ENV.tools,
    );
  }
  return kept.length === all.length ? all : kept;
}
