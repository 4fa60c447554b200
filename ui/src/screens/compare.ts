// Parts side by side (compare_parts): a column per part, a row per field, differences marked and
// unknown values (a part lacks the field) shown as such, never as equal; then the standards,
// criticalities and categories the parts share and what each adds.
import { type Child, h } from "../dom";
import { formatNumber } from "../format";
import type { Comparison, Shared } from "../types";
import { badge, chips, screenHead, section, table } from "../widgets";

const STATUS = {
  same: { label: "Same", tone: "neutral" },
  different: { label: "Different", tone: "warning" },
  unknown: { label: "Unknown", tone: "info" },
} as const;

function value(value: Comparison["fields"][number]["values"][number]): Child {
  if (value === null) return h("span", { class: "absent" }, "not given");
  if (Array.isArray(value)) return value.join(", ");
  if (typeof value === "number") return formatNumber(value);
  if (typeof value === "boolean") return value ? "yes" : "no";
  return value;
}

function shared(title: string, lists: Shared, parts: Comparison["parts"]): HTMLElement | null {
  const added = parts.filter((part) => (lists.byPart[part.id] ?? []).length > 0);
  if (lists.common.length === 0 && added.length === 0) return null;
  return section(
    title,
    lists.common.length > 0
      ? h("div", { class: "shared" }, h("p", { class: "muted" }, "All parts"), chips(lists.common))
      : null,
    added.map((part) =>
      h(
        "div",
        { class: "shared", "data-part": part.id },
        h("p", { class: "muted" }, `Only ${part.title}${part.versionName ? ` · ${part.versionName}` : ""}`),
        chips(lists.byPart[part.id] ?? []),
      ),
    ),
  );
}

export function compareScreen(comparison: Comparison): HTMLElement {
  const { parts, fields } = comparison;
  const differing = fields.filter((field) => field.status === "different").length;
  return h(
    "section",
    { class: "screen compare", "data-view": "compare" },
    screenHead("Comparison", `${formatNumber(parts.length)} parts`),
    h(
      "p",
      { class: "summary", role: "status" },
      `${formatNumber(differing)} of ${formatNumber(fields.length)} fields differ`,
    ),
    h(
      "div",
      { class: "scroll" },
      table(
        "comparison",
        "Each field of the parts, side by side",
        [
          "Field",
          ...parts.map((part) => ({
            head: [
              part.title,
              part.versionName ? h("span", { class: "version" }, ` · ${part.versionName}`) : null,
              h("span", { class: "sub-id" }, h("code", null, part.id)),
            ],
          })),
          "",
        ],
        h(
          "tbody",
          null,
          fields.map((field) =>
            h(
              "tr",
              { "data-status": field.status, class: field.status === "different" ? "differs" : null },
              h("th", { scope: "row" }, h("code", null, field.field)),
              field.values.map((each) => h("td", null, value(each))),
              h("td", null, badge(STATUS[field.status].label, STATUS[field.status].tone)),
            ),
          ),
        ),
      ),
    ),
    shared("Standards", comparison.standards, parts),
    shared("Criticalities", comparison.criticalities, parts),
    shared("Categories", comparison.categories, parts),
  );
}
