// The part card (describe_part): who the part is, how it is made and to which standards, its
// dimensions as a table and its bounding box drawn to scale, in the API's numbers (it gives no
// units, so none is shown).
import { type Child, h, s } from "../dom";
import { DIMENSIONS, formatDate, formatNumber, NO_UNITS } from "../format";
import type { BoundingBox, DescribedPart, Part, Resolved } from "../types";
import { backButton, badge, chips, facts, named, section, table } from "../widgets";

export interface Back {
  label: string;
  run: () => void;
}

/** The card, and the heading to focus when it is opened from another screen. */
export function partCard(data: DescribedPart, back?: Back): { node: HTMLElement; focus: HTMLElement } {
  const { part } = data;
  const title = h("h1", { tabindex: "-1" }, part.title);
  const node = h(
    "article",
    { class: "screen part-card", "data-view": "part" },
    back ? backButton(back.label, back.run) : null,
    h(
      "header",
      { class: "head" },
      h("p", { class: "eyebrow" }, "Part", part.versionName ? ` · ${part.versionName}` : null),
      title,
      h("div", { class: "badges" }, partBadges(part)),
    ),
    part.description ? h("p", { class: "description" }, part.description) : null,
    facts(
      [
        ["Part id", h("code", null, part.id)],
        ["Serial", h("code", null, part.serialId)],
        ["External ref", part.externalRef ? h("code", null, part.externalRef) : undefined],
        ["Version of", part.parentId ? h("code", null, part.parentId) : undefined],
        ["IP owner", h("code", null, part.ipOwnerId)],
        ["Created", formatDate(part.createdTime)],
        ["Modified", formatDate(part.modifiedTime)],
      ],
      "meta",
    ),
    section("Manufacturing", references(data, part)),
    geometry(part),
    customFields(part),
    part.keywords.length > 0 ? section("Keywords", chips(part.keywords, "Keywords")) : null,
    data.unresolved?.length
      ? h(
          "div",
          { class: "notice tone-warning", role: "note" },
          h("p", { class: "notice-title" }, "References that could not be resolved"),
          h(
            "ul",
            null,
            data.unresolved.map((entry) =>
              h("li", null, `${entry.kind} `, h("code", null, entry.id), `: ${entry.reason}`),
            ),
          ),
        )
      : null,
  );
  return { node, focus: title };
}

function partBadges(part: Pick<Part, "published" | "internal" | "requireSubscription">): Child[] {
  return [
    part.published ? badge("Published", "success") : badge("Unpublished", "neutral"),
    part.internal ? badge("Internal", "info") : null,
    part.requireSubscription ? badge("Subscription required", "warning") : null,
  ];
}

/** Process, material, standards, criticalities and categories by name with their codes. */
function references(resolved: Resolved, codes?: Pick<Part, "processId" | "materialId">): HTMLElement {
  const process = resolved.process
    ? named(resolved.process.name, resolved.process.code)
    : codes?.processId
      ? h("code", null, codes.processId)
      : undefined;
  const material = resolved.material
    ? h(
        "span",
        null,
        named(resolved.material.name, resolved.material.code),
        resolved.material.type ? h("span", { class: "muted" }, ` · ${resolved.material.type}`) : null,
      )
    : codes?.materialId
      ? h("code", null, codes.materialId)
      : undefined;
  return facts([
    ["Process", process ?? h("span", { class: "muted" }, "Not chosen")],
    ["Material", material ?? h("span", { class: "muted" }, "Not chosen")],
    [
      "Standards",
      resolved.standards.length > 0
        ? chips(
            resolved.standards.map((standard) => named(standard.name, standard.code)),
            "Standards",
          )
        : undefined,
    ],
    [
      "Criticalities",
      resolved.criticalities.length > 0
        ? chips(
            resolved.criticalities.map((criticality) => named(criticality.name, criticality.code)),
            "Criticalities",
          )
        : undefined,
    ],
    [
      "Categories",
      resolved.categories.length > 0
        ? chips(
            resolved.categories.map((category) => named(category.name, category.id)),
            "Categories",
          )
        : undefined,
    ],
  ]);
}

function geometry(part: Part): HTMLElement | null {
  const rows = Object.entries(DIMENSIONS).flatMap(([name, label]) => {
    const value = part.dimensions?.[name as keyof typeof DIMENSIONS];
    return value === undefined ? [] : [{ label, value }];
  });
  const box = boundingBox(part.boundingBox);
  if (rows.length === 0 && !box) return null;
  return section(
    "Geometry",
    h(
      "div",
      { class: "geometry" },
      rows.length > 0
        ? table(
            "dimensions",
            "Dimensions",
            ["Dimension", { head: "Value", class: "num" }],
            h(
              "tbody",
              null,
              rows.map(({ label, value }) =>
                h(
                  "tr",
                  null,
                  h("th", { scope: "row" }, label),
                  h("td", { class: "num" }, formatNumber(value)),
                ),
              ),
            ),
          )
        : null,
      box,
    ),
    h("p", { class: "muted units-note" }, NO_UNITS),
  );
}

/** The box drawn in cabinet projection to scale: x across, z up, y receding at 30° at half scale. */
export function boundingBox(box: BoundingBox | undefined): HTMLElement | null {
  if (!box) return null;
  const { x, y, z } = box;
  const sizes = [x, y, z];
  if (!sizes.every((size): size is number => typeof size === "number" && size > 0)) {
    const known = (["x", "y", "z"] as const).filter((axis) => box[axis] !== undefined);
    if (known.length === 0) return null;
    return h(
      "figure",
      { class: "bbox" },
      facts(known.map((axis) => [axis, formatNumber(box[axis] as number)])),
      h("figcaption", null, "Bounding box"),
    );
  }
  const [bx, by, bz] = sizes as [number, number, number];
  const cos = Math.cos(Math.PI / 6) * 0.5;
  const sin = Math.sin(Math.PI / 6) * 0.5;
  // The drawing fits 240 × 150 user units (px at full size); the view box then wraps it and its labels.
  const scale = Math.min(240 / (bx + by * cos), 150 / (bz + by * sin));
  const at = (ax: number, ay: number, az: number): Point => [
    (ax + ay * cos) * scale,
    -(az + ay * sin) * scale,
  ];
  const mid = (a: Point, b: Point): Point => [(a[0] + b[0]) / 2, (a[1] + b[1]) / 2];
  const faces: [string, Point[]][] = [
    ["bbox-top", [at(0, 0, bz), at(bx, 0, bz), at(bx, by, bz), at(0, by, bz)]],
    ["bbox-side", [at(bx, 0, 0), at(bx, by, 0), at(bx, by, bz), at(bx, 0, bz)]],
    ["bbox-front", [at(0, 0, 0), at(bx, 0, 0), at(bx, 0, bz), at(0, 0, bz)]],
  ];
  const length = (axis: string, value: number) => `${axis} ${formatNumber(value)}`;
  const labels: Label[] = [
    { text: length("x", bx), at: mid(at(0, 0, 0), at(bx, 0, 0)), anchor: "middle", dx: 0, dy: 15 },
    { text: length("y", by), at: mid(at(bx, 0, 0), at(bx, by, 0)), anchor: "start", dx: 8, dy: 5 },
    { text: length("z", bz), at: mid(at(0, 0, 0), at(0, 0, bz)), anchor: "end", dx: -8, dy: 0 },
  ];
  // What the drawing and its labels cover (label widths estimated for a 12 px sans font).
  const xs: number[] = [];
  const ys: number[] = [];
  for (const [, corners] of faces) {
    for (const [px, py] of corners) {
      xs.push(px);
      ys.push(py);
    }
  }
  for (const label of labels) {
    const width = label.text.length * 6.8;
    const left =
      label.at[0] + label.dx - (label.anchor === "start" ? 0 : label.anchor === "middle" ? width / 2 : width);
    xs.push(left, left + width);
    ys.push(label.at[1] + label.dy - 8, label.at[1] + label.dy + 8);
  }
  const pad = 4;
  const minX = Math.min(...xs) - pad;
  const minY = Math.min(...ys) - pad;
  const width = Math.max(...xs) + pad - minX;
  const height = Math.max(...ys) + pad - minY;
  const fixed = (n: number) => n.toFixed(1);
  const summary = `Bounding box ${formatNumber(bx)} × ${formatNumber(by)} × ${formatNumber(bz)} (x × y × z, the API's numbers, no unit stated), drawn to scale`;
  return h(
    "figure",
    { class: "bbox" },
    s(
      "svg",
      {
        viewBox: [minX, minY, width, height].map(fixed).join(" "),
        width: fixed(width),
        height: fixed(height),
        role: "img",
        "aria-label": summary,
      },
      s("title", null, summary),
      faces.map(([className, corners]) =>
        s("polygon", {
          class: className,
          points: corners.map((corner) => corner.map(fixed).join(",")).join(" "),
        }),
      ),
      labels.map((label) =>
        s(
          "text",
          {
            x: fixed(label.at[0] + label.dx),
            y: fixed(label.at[1] + label.dy),
            "text-anchor": label.anchor,
            "dominant-baseline": "middle",
          },
          label.text,
        ),
      ),
    ),
    h("figcaption", null, "Bounding box, to scale"),
  );
}

type Point = [number, number];

interface Label {
  text: string;
  at: Point;
  anchor: "start" | "middle" | "end";
  dx: number;
  dy: number;
}

function customFields(part: Part): HTMLElement | null {
  if (part.customFields.length === 0) return null;
  return section(
    "Custom fields",
    facts(
      part.customFields.map((field) => [
        field.dropdownLabel,
        field.selectedOptions.length > 0
          ? field.selectedOptions.map((option) => option.label).join(", ")
          : h("span", { class: "muted" }, "None selected"),
      ]),
    ),
  );
}
