// A resolved list (resolve_parts): one row per pasted line with its quantity, its status (match,
// ambiguous, none), the part or the alternatives (each opens its card in place), how it was
// matched and the server's reason, under a count of each status and whether the whole catalogue
// was read.
import { h } from "../dom";
import { formatNumber } from "../format";
import type { NamedPart, ResolvedLine, ResolvedList } from "../types";
import { badge, empty, screenHead, show, table } from "../widgets";
import { openPart } from "./open-part";

const STATUS: Record<ResolvedLine["status"], { label: string; tone: "success" | "warning" | "danger" }> = {
  match: { label: "Match", tone: "success" },
  ambiguous: { label: "Ambiguous", tone: "warning" },
  none: { label: "No match", tone: "danger" },
};

export function resolveScreen(list: ResolvedList): HTMLElement {
  const count = (status: ResolvedLine["status"]) =>
    list.items.filter((item) => item.status === status).length;
  const body = h("tbody");
  const screen = h(
    "section",
    { class: "screen resolve", "data-view": "resolve" },
    screenHead(
      "Pasted list",
      `${formatNumber(list.items.length)} ${list.items.length === 1 ? "line" : "lines"}`,
    ),
    h(
      "p",
      { class: "summary", role: "status" },
      `${formatNumber(count("match"))} matched · ${formatNumber(count("ambiguous"))} ambiguous · ${formatNumber(count("none"))} not found`,
      list.complete ? null : " · not every part read yet",
    ),
    list.complete
      ? null
      : h("p", { class: "sub hint" }, list.hint ?? "Ask again to read the rest of the catalogue."),
    list.items.length === 0
      ? empty("No lines")
      : table(
          "lines",
          "Each pasted line and the part it names",
          [{ head: "#", class: "num" }, "Line", { head: "Qty", class: "num" }, "Status", "Part"],
          body,
        ),
  );
  const back = (opener: HTMLElement) => ({
    label: "Back to the list",
    run: () => show(screen, { focus: opener }),
  });
  const partButton = (part: NamedPart): HTMLElement => {
    const open: HTMLButtonElement = h(
      "button",
      { type: "button", class: "row-open", onclick: () => void openPart(part.id, back(open)) },
      part.title,
    );
    return h(
      "span",
      { class: "named-part" },
      open,
      part.versionName ? h("span", { class: "version" }, ` · ${part.versionName}`) : null,
      part.serialId ? h("span", { class: "serial" }, " ", h("code", null, part.serialId)) : null,
    );
  };
  list.items.forEach((item, i) => {
    const { label, tone } = STATUS[item.status];
    const found = item.part ? [item.part] : (item.alternatives ?? []);
    body.append(
      h(
        "tr",
        { "data-status": item.status },
        h("td", { class: "num" }, i + 1),
        h("td", { class: "line" }, item.line),
        h("td", { class: "num" }, item.quantity === undefined ? "—" : formatNumber(item.quantity)),
        h(
          "td",
          null,
          badge(label, tone),
          item.matchedBy ? h("span", { class: "sub by" }, `by ${item.matchedBy} · ${item.confidence}`) : null,
        ),
        h(
          "td",
          { class: "part" },
          found.length > 0
            ? h(
                "ul",
                { class: "found" },
                found.map((part) => h("li", null, partButton(part))),
              )
            : null,
          item.why ? h("p", { class: "why" }, item.why) : null,
        ),
      ),
    );
  });
  return screen;
}
