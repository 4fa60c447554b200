// Draft review (preview_part): the part an assistant is about to create, every code resolved to
// its record or flagged as unknown with its did-you-mean, and a Create button that calls
// create_part through the host only when the person presses it. create_part is not idempotent,
// so the button works once, and the model is told what was created.
import { callTool, tellModel } from "../calls";
import { type Child, h, replace } from "../dom";
import { formatNumber } from "../format";
import type { BoundingBox, CreatedPart, DraftPreview, ReferenceKind } from "../types";
import { badge, chips, facts, named, screenHead, section, show, table } from "../widgets";
import { openPart } from "./open-part";
import { boundingBox } from "./part";

const CODE_FIELDS: [field: string, kind: ReferenceKind, label: string][] = [
  ["processId", "process", "Process"],
  ["materialId", "material", "Material"],
  ["standardIds", "standard", "Standard"],
  ["criticalityIds", "criticality", "Criticality"],
  ["categoryIds", "category", "Category"],
];

/** Draft fields shown elsewhere on the screen (title, description, flags, codes). */
const SHOWN = new Set([
  "title",
  "description",
  "internal",
  "requireSubscription",
  "boundingBox",
  ...CODE_FIELDS.map(([field]) => field),
]);

const LABELS: Record<string, string> = {
  externalRef: "External ref",
  materialType: "Material type",
  unitSystem: "Unit system",
  materialNote: "Material note",
  processNote: "Process note",
  keywords: "Keywords",
  unspscCategoryIds: "UNSPSC categories",
  businessUnitIds: "Business units",
  rapidManufacturingMaterial: "Rapid manufacturing material",
  exemptionsNotes: "Exemptions",
  documentationRequirementNotes: "Documentation requirements",
  otherRequirementNotes: "Other requirements",
  descriptionManufacturer: "Manufacturer description",
  metadata: "Metadata",
  customFields: "Custom fields",
};

export function draftScreen(preview: DraftPreview): HTMLElement {
  const { draft } = preview;
  const title = typeof draft.title === "string" ? draft.title : "Untitled part";
  const rows = referenceRows(preview);
  const blocked = preview.unknown.length > 0;
  const footer = h("div", { class: "create" });
  const screen = h(
    "article",
    { class: "screen draft", "data-view": "draft" },
    screenHead(
      "Draft part · not created yet",
      title,
      h(
        "div",
        { class: "badges" },
        draft.internal === true ? badge("Internal", "info") : null,
        draft.requireSubscription === true ? badge("Subscription required", "warning") : null,
        blocked
          ? badge(
              `${preview.unknown.length} unknown ${preview.unknown.length === 1 ? "code" : "codes"}`,
              "danger",
            )
          : badge("All codes known", "success"),
      ),
    ),
    typeof draft.description === "string" ? h("p", { class: "description" }, draft.description) : null,
    rows.length > 0
      ? section(
          "References",
          table("codes", "Codes in the draft", ["Field", "Resolves to"], h("tbody", null, rows)),
        )
      : null,
    details(draft),
    boundingBox(draft.boundingBox as BoundingBox | undefined)
      ? section("Bounding box", boundingBox(draft.boundingBox as BoundingBox))
      : null,
    footer,
  );

  const create = h("button", { type: "button", class: "button primary", disabled: blocked }, "Create part");
  const status = h("div", { role: "status", "aria-live": "polite" });
  const backHere = () => {
    show(screen, { focus: footer.querySelector("button") });
  };
  create.addEventListener("click", async () => {
    create.disabled = true;
    create.textContent = "Creating…";
    create.setAttribute("aria-busy", "true");
    replace(status);
    try {
      const created = await callTool<CreatedPart>("create_part", draft);
      tellModel(
        `The user pressed Create in the draft review of "${title}": part ${created.id} now exists (${created.partUrl}). Do not call create_part for this draft again.`,
      );
      replace(
        footer,
        h(
          "div",
          { class: "notice tone-success", role: "status" },
          h("p", { class: "notice-title" }, "Part created"),
          h("p", null, "Its id is ", h("code", null, created.id), "."),
          h(
            "button",
            {
              type: "button",
              class: "button",
              onclick: () => void openPart(created.id, { label: "Back to the draft", run: backHere }),
            },
            "Open the part",
          ),
        ),
      );
      footer.querySelector("button")?.focus();
    } catch (error) {
      create.disabled = false;
      create.textContent = "Create part";
      create.removeAttribute("aria-busy");
      replace(
        status,
        h(
          "p",
          { class: "error-text", role: "alert" },
          "Not created: ",
          error instanceof Error ? error.message : String(error),
        ),
      );
    }
  });
  replace(
    footer,
    status,
    h(
      "div",
      { class: "actions" },
      create,
      h(
        "p",
        { class: "muted note" },
        blocked
          ? "Unknown codes must be corrected before the part can be created: ask the assistant to fix them."
          : "Creates the part in your organisation. Each press of the button creates a new part.",
      ),
    ),
  );
  return screen;
}

function referenceRows(preview: DraftPreview): HTMLTableRowElement[] {
  const { draft } = preview;
  const records: Record<ReferenceKind, { key: string; name: string }[]> = {
    process: preview.process ? [{ key: preview.process.code, name: preview.process.name }] : [],
    material: preview.material ? [{ key: preview.material.code, name: preview.material.name }] : [],
    standard: preview.standards.map((record) => ({ key: record.code, name: record.name })),
    criticality: preview.criticalities.map((record) => ({
      key: record.id,
      name: `${record.name} (${record.code})`,
    })),
    category: preview.categories.map((record) => ({ key: record.id, name: record.name })),
  };
  return CODE_FIELDS.flatMap(([field, kind, label]) => {
    const value = draft[field];
    const codes = typeof value === "string" ? [value] : Array.isArray(value) ? value.map(String) : [];
    return codes.map((code) => {
      const record = records[kind].find((candidate) => candidate.key === code);
      const unknown = preview.unknown.find((entry) => entry.kind === kind && entry.id === code);
      const unchecked = preview.unchecked?.find((entry) => entry.kind === kind && entry.id === code);
      let resolution: Child;
      if (record) {
        resolution = h("span", { class: "resolved" }, named(record.name, code));
      } else if (unknown) {
        resolution = h(
          "span",
          { class: "unknown" },
          badge("Unknown", "danger"),
          " ",
          h("code", null, code),
          unknown.didYouMean
            ? h("span", { class: "did-you-mean" }, sentence(unknown.didYouMean))
            : h("span", { class: "did-you-mean muted" }, "No close match is known."),
        );
      } else {
        resolution = h(
          "span",
          { class: "unchecked" },
          badge("Not checked", "warning"),
          " ",
          h("code", null, code),
          unchecked ? h("span", { class: "muted" }, ` ${unchecked.reason}`) : null,
        );
      }
      return h(
        "tr",
        unknown ? { class: "row-unknown" } : null,
        h("th", { scope: "row" }, label),
        h("td", null, resolution),
      );
    });
  });
}

/** "did you mean pa12 (PA12)?" as a sentence. */
function sentence(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function details(draft: Record<string, unknown>): HTMLElement | null {
  const rows: [string, Child][] = Object.entries(draft)
    .filter(([key]) => !SHOWN.has(key))
    .map(([key, value]) => [LABELS[key] ?? key, plain(value)]);
  return rows.length > 0 ? section("Details", facts(rows)) : null;
}

/** Any JSON value as text: arrays of strings as chips, objects as a list of keys and values. */
function plain(value: unknown): Child {
  if (typeof value === "string") return value;
  if (typeof value === "number") return formatNumber(value, 6);
  if (typeof value === "boolean") return value ? "Yes" : "No";
  if (Array.isArray(value)) {
    return value.every((item) => typeof item === "string")
      ? chips(value as string[])
      : h(
          "ul",
          { class: "plain-list" },
          value.map((item) => h("li", null, plain(item))),
        );
  }
  if (value && typeof value === "object") {
    return facts(
      Object.entries(value).map(([key, item]) => [
        key,
        typeof item === "object" ? JSON.stringify(item) : plain(item),
      ]),
      "facts nested",
    );
  }
  return String(value);
}
