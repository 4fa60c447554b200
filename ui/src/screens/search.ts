// Search results (search_parts): a compact table whose rows open the part's card in place, "More
// results" continuing `nextCursor`, how far the search got (parts scanned, complete or not), and
// the server's word on it: how the text was read, through which record a row matched, why nothing did.
import { callTool } from "../calls";
import { h, replace } from "../dom";
import { formatNumber } from "../format";
import type { PartSummary, SearchResult } from "../types";
import { badge, chips, empty, screenHead, show, table } from "../widgets";
import { openPart } from "./open-part";

const FILTERS: [key: string, label: string][] = [
  ["materialId", "material"],
  ["processId", "process"],
  ["standardId", "standard"],
  ["criticalityId", "criticality"],
  ["categoryId", "category"],
  ["view", "view"],
];

export function searchScreen(first: SearchResult, args: Record<string, unknown>): HTMLElement {
  const state = { ...first, items: [...first.items] };
  const text = typeof args.text === "string" && args.text.trim() !== "" ? args.text : undefined;
  const filters = FILTERS.flatMap(([key, label]) => {
    const codes = [args[key]].flat().filter((code): code is string => typeof code === "string");
    return codes.length > 0 ? [h("span", null, `${label} `, h("code", null, codes.join(", ")))] : [];
  });
  const said = h("p", { class: "sub hint", hidden: true });
  const summary = h("p", { class: "summary", role: "status" });
  const body = h("tbody");
  const results = table(
    "results",
    "Matching parts",
    [
      "Part",
      { head: "Serial", class: "wide" },
      { head: "Process", class: "wide" },
      { head: "Material", class: "wide" },
      "Status",
    ],
    body,
  );
  const more = h("div", { class: "more" });
  const emptyState = h("div", { hidden: true });
  const screen = h(
    "section",
    { class: "screen search", "data-view": "search" },
    screenHead(
      "Part search",
      text ? `“${text}”` : "All parts",
      filters.length > 0 ? chips(filters, "Filters") : null,
    ),
    summary,
    said,
    emptyState,
    results,
    more,
  );

  const returnHere = (opener: HTMLElement) => () => {
    show(screen, { focus: opener });
  };

  const row = (item: PartSummary): HTMLTableRowElement => {
    const open: HTMLButtonElement = h(
      "button",
      {
        type: "button",
        class: "row-open",
        onclick: () => void openPart(item.id, { label: "Back to results", run: returnHere(open) }),
      },
      item.title,
    );
    return h(
      "tr",
      null,
      h(
        "td",
        { class: "part" },
        open,
        item.versionName ? h("span", { class: "version" }, ` · ${item.versionName}`) : null,
        item.serialId ? h("span", { class: "sub" }, h("code", null, item.serialId)) : null,
        item.matched ? h("span", { class: "sub matched" }, `by its ${item.matched}`) : null,
      ),
      h("td", { class: "wide" }, item.serialId ? h("code", null, item.serialId) : null),
      h("td", { class: "wide" }, item.processId ? h("code", null, item.processId) : "—"),
      h("td", { class: "wide" }, item.materialId ? h("code", null, item.materialId) : "—"),
      h(
        "td",
        null,
        item.published === undefined
          ? null
          : badge(item.published ? "Published" : "Unpublished", item.published ? "success" : "neutral"),
      ),
    );
  };

  const update = () => {
    const count = state.items.length;
    replace(
      summary,
      `${formatNumber(count)} ${count === 1 ? "part" : "parts"}`,
      ` · ${formatNumber(state.scanned)} scanned · `,
      state.complete ? "search complete" : "more parts to search",
    );
    results.hidden = count === 0;
    emptyState.hidden = count > 0;
    said.hidden = state.hint === undefined || count === 0;
    replace(said, count > 0 ? (state.hint ?? null) : null);
    replace(
      emptyState,
      count === 0
        ? empty(
            "No parts match",
            state.hint ??
              (state.complete
                ? "Every part visible to you was examined."
                : "Not every part has been examined yet: search further for more."),
          )
        : null,
    );
    replace(more, state.nextCursor ? moreButton() : null);
    more.hidden = !state.nextCursor;
  };

  const moreButton = (problem?: string) => {
    const button = h(
      "button",
      { type: "button", class: "button", onclick: () => void loadMore(button) },
      "More results",
    );
    return [problem ? h("p", { class: "error-text", role: "alert" }, problem) : null, button];
  };

  const loadMore = async (button: HTMLButtonElement) => {
    button.disabled = true;
    button.textContent = "Searching…";
    button.setAttribute("aria-busy", "true");
    try {
      const next = await callTool<SearchResult>("search_parts", { ...args, cursor: state.nextCursor });
      const rows = next.items.map(row);
      body.append(...rows);
      state.items.push(...next.items);
      state.scanned = next.scanned;
      state.complete = next.complete;
      state.nextCursor = next.nextCursor;
      state.hint = next.hint;
      update();
      const focusTarget = rows[0]?.querySelector("button") ?? more.querySelector("button");
      focusTarget?.focus();
    } catch (error) {
      replace(more, moreButton(error instanceof Error ? error.message : String(error)));
      more.querySelector("button")?.focus();
    }
  };

  body.append(...state.items.map(row));
  update();
  return screen;
}
