// RFQ status (get_rfq): its state among the seven the API defines (which moves lead where is
// not published, so they are shown as a set, not a sequence), quantity, maximum lead time,
// deadline and expiry relative to now, and the title of its part, which the view reads with
// get_part because the RFQ carries only the part's id.
import { callTool } from "../calls";
import { type Child, h, replace } from "../dom";
import { formatDate, formatNumber, relativeTime } from "../format";
import type { Part, Rfq } from "../types";
import { badge, facts, screenHead, show } from "../widgets";
import { openPart } from "./open-part";

const STATES: Record<
  Rfq["state"],
  { label: string; tone: "neutral" | "info" | "success" | "warning" | "danger" }
> = {
  DRAFT: { label: "Draft", tone: "neutral" },
  ONGOING: { label: "Ongoing", tone: "info" },
  RESPONDED: { label: "Responded", tone: "info" },
  REVIEW: { label: "In review", tone: "warning" },
  UNFULFILLED: { label: "Unfulfilled", tone: "danger" },
  SUCCESSFUL: { label: "Successful", tone: "success" },
  QUOTE_RECEIVED: { label: "Quote received", tone: "info" },
};

export function rfqScreen(rfq: Rfq): HTMLElement {
  const current = STATES[rfq.state] ?? { label: rfq.state, tone: "neutral" as const };
  const partLine = h("div", { class: "rfq-part" });
  const screen = h(
    "article",
    { class: "screen rfq", "data-view": "rfq" },
    screenHead(
      "Request for quotation",
      h("code", { class: "title-code" }, rfq.id),
      h("div", { class: "badges" }, badge(current.label, current.tone)),
    ),
    partLine,
    h(
      "ul",
      { class: "states", "aria-label": "RFQ states" },
      (Object.keys(STATES) as Rfq["state"][]).map((state) =>
        h(
          "li",
          state === rfq.state
            ? { class: `state-step current tone-${STATES[state].tone}`, "aria-current": "true" }
            : { class: "state-step" },
          STATES[state].label,
        ),
      ),
    ),
    facts([
      ["Quantity", rfq.quantity === undefined ? notSet() : formatNumber(rfq.quantity)],
      [
        "Max lead time",
        rfq.maxLeadTime === undefined
          ? notSet()
          : `${formatNumber(rfq.maxLeadTime)} ${rfq.maxLeadTime === 1 ? "day" : "days"}`,
      ],
      ["Offer deadline", when(rfq.deadlineTime, "closed", "closes")],
      ["Expires", when(rfq.expireTime, "expired", "expires")],
    ]),
  );

  const back = () => {
    show(screen, { focus: partLine.querySelector("button") });
  };
  const showPart = (title: Child, note?: string) => {
    replace(
      partLine,
      h("span", { class: "label" }, "Part"),
      h(
        "button",
        {
          type: "button",
          class: "row-open",
          onclick: () => void openPart(rfq.partId, { label: "Back to RFQ", run: back }),
        },
        title,
      ),
      h("code", { class: "muted" }, rfq.partId),
      note ? h("span", { class: "muted note" }, note) : null,
    );
  };
  replace(
    partLine,
    h("span", { class: "label" }, "Part"),
    h("span", { class: "muted", role: "status" }, "Loading the part's title…"),
    h("code", { class: "muted" }, rfq.partId),
  );
  callTool<Part>("get_part", { id: rfq.partId }).then(
    (part) => showPart(part.title),
    (error: unknown) =>
      showPart("Open part", `Title unavailable: ${error instanceof Error ? error.message : String(error)}`),
  );
  return screen;
}

function notSet(): HTMLElement {
  return h("span", { class: "muted" }, "Not set");
}

/** A time with its distance from now; a past one is marked as past in words and in style. */
function when(iso: string | undefined, pastWord: string, futureWord: string): Child {
  if (iso === undefined) return notSet();
  const relative = relativeTime(iso);
  return h(
    "span",
    { class: relative?.past ? "time past" : "time" },
    h("span", null, formatDate(iso)),
    relative
      ? h(
          "span",
          { class: "relative" },
          relative.past ? ` · ${pastWord} ${relative.text}` : ` · ${futureWord} ${relative.text}`,
        )
      : null,
  );
}
