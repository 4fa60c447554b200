// The pieces every screen shares: the one region the screens take turns in, the loading, empty
// and error states, screen headers, badges, chips, fact lists and tables. Screens compose these;
// none of them sets markup.
import { type Child, h, replace } from "./dom";

type Tone = "neutral" | "info" | "success" | "warning" | "danger";

/** Where the screens are shown, and the way back from the one shown now (Escape or its button). */
const root = (): HTMLElement => document.getElementById("app") as HTMLElement;
let back: (() => void) | undefined;
let shown = 0;

document.addEventListener("keydown", (event) => {
  if (event.key === "Escape" && back) {
    event.preventDefault();
    back();
  }
});

/** Shows a screen; `goBack` is what Escape does while it is shown; `focus` gets the focus. */
export function show(
  screen: Node,
  options: { goBack?: () => void; focus?: HTMLElement | null } = {},
): number {
  back = options.goBack;
  shown += 1;
  replace(root(), screen);
  if (options.focus) options.focus.focus({ preventScroll: true });
  window.scrollTo({ top: 0 });
  return shown;
}

/** Whether the screen `show` returned `ticket` for is still the one shown (a late answer is dropped). */
export function stillShown(ticket: number): boolean {
  return ticket === shown;
}

export function loading(message: string): HTMLElement {
  return h(
    "div",
    { class: "state", role: "status", "aria-live": "polite", "data-state": "loading" },
    h("span", { class: "spinner", "aria-hidden": "true" }),
    h("p", null, message),
  );
}

export function empty(title: string, detail?: Child): HTMLElement {
  return h(
    "div",
    { class: "state", role: "status", "data-state": "empty" },
    h("p", { class: "state-title" }, title),
    detail ? h("p", { class: "muted" }, detail) : null,
  );
}

/** A failure a person can act on: what failed, the server's own words, and what to do next. */
export function failure(
  title: string,
  message: string,
  actions: { label: string; run: () => void; primary?: boolean }[] = [],
): HTMLElement {
  return h(
    "div",
    { class: "state state-error", role: "alert", "data-state": "error" },
    h("p", { class: "state-title" }, title),
    message ? h("p", { class: "error-text" }, message) : null,
    actions.length > 0
      ? h(
          "div",
          { class: "actions" },
          actions.map(({ label, run, primary }) =>
            h(
              "button",
              { type: "button", class: primary ? "button primary" : "button", onclick: run },
              label,
            ),
          ),
        )
      : null,
  );
}

export function badge(text: string, tone: Tone = "neutral"): HTMLElement {
  return h("span", { class: `badge tone-${tone}` }, text);
}

export function chips(items: readonly Child[], label?: string): HTMLElement {
  return h(
    "ul",
    { class: "chips", ...(label && { "aria-label": label }) },
    items.map((item) => h("li", { class: "chip" }, item)),
  );
}

/** A name with its code beside it, in the code font: "Ti-6Al-4V  ti64". */
export function named(name: string, code: string): HTMLElement {
  return h("span", { class: "named" }, h("span", null, name), " ", h("code", null, code));
}

/** A definition list of label/value rows; rows without a value are left out. */
export function facts(rows: readonly [string, Child][], className = "facts"): HTMLElement {
  return h(
    "dl",
    { class: className },
    rows
      .filter(([, value]) => value !== undefined && value !== null && value !== false && value !== "")
      .map(([label, value]) => h("div", { class: "fact" }, h("dt", null, label), h("dd", null, value))),
  );
}

/** A screen's header: a small line saying what it shows, its title (focused on show), then more. */
export function screenHead(eyebrow: Child, title: Child, ...more: Child[]): HTMLElement {
  return h(
    "header",
    { class: "head" },
    h("p", { class: "eyebrow" }, eyebrow),
    h("h1", { tabindex: "-1" }, title),
    ...more,
  );
}

/** A column's head: its text, or its content with the class of the column ("num", "wide"). */
type Column = string | { head: Child; class?: string };

/** A table with a caption for screen readers only, one row of column heads, then its body. */
export function table(
  className: string,
  caption: string,
  columns: readonly Column[],
  body: Child,
): HTMLElement {
  const head = (column: Column) =>
    typeof column === "string"
      ? h("th", { scope: "col" }, column)
      : h("th", { scope: "col", class: column.class ?? null }, column.head);
  return h(
    "table",
    { class: `table ${className}` },
    h("caption", { class: "visually-hidden" }, caption),
    h("thead", null, h("tr", null, columns.map(head))),
    body,
  );
}

export function section(title: string, ...children: Child[]): HTMLElement {
  return h("section", { class: "section" }, h("h2", null, title), ...children);
}

export function backButton(label: string, run: () => void): HTMLButtonElement {
  return h("button", { type: "button", class: "button link back", onclick: run }, `← ${label}`);
}
