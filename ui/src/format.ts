// Numbers, dates and units as the person reading them writes them: in the host's locale and time
// zone (host context), times also relative to now, with past ones marked as past.
import type { Dimensions } from "./types";

let locale: string | undefined;
let timeZone: string | undefined;

/** Set from the host context; undefined keeps the browser's own. */
export function setLocale(next: { locale?: string; timeZone?: string }): void {
  if (next.locale !== undefined) locale = supported(next.locale) ? next.locale : undefined;
  if (next.timeZone !== undefined) timeZone = supportedZone(next.timeZone) ? next.timeZone : undefined;
}

function supported(tag: string): boolean {
  try {
    return Intl.NumberFormat.supportedLocalesOf([tag]).length > 0;
  } catch {
    return false;
  }
}

function supportedZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat("en", { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

export function formatNumber(value: number, maximumFractionDigits = 2): string {
  return new Intl.NumberFormat(locale, { maximumFractionDigits }).format(value);
}

/** "8 Mar 2024, 09:15" in the host's time zone, or the raw text when it is not a date. */
export function formatDate(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return new Intl.DateTimeFormat(locale, { dateStyle: "medium", timeStyle: "short", timeZone }).format(date);
}

const DAY_MS = 86_400_000;
const STEPS: [Intl.RelativeTimeFormatUnit, number, number][] = [
  // unit, its length, used while the distance is below this many of the unit's length
  ["minute", 60_000, 60],
  ["hour", 3_600_000, 24],
  ["day", DAY_MS, 45],
  ["month", 30.44 * DAY_MS, 18],
  ["year", 365.25 * DAY_MS, Number.POSITIVE_INFINITY],
];

/** "in 3 days", "5 months ago"; `past` tells which. */
export function relativeTime(iso: string, now = Date.now()): { text: string; past: boolean } | undefined {
  const time = new Date(iso).getTime();
  if (Number.isNaN(time)) return undefined;
  const distance = time - now;
  const format = new Intl.RelativeTimeFormat(locale, { numeric: "auto" });
  for (const [unit, length, below] of STEPS) {
    if (Math.abs(distance) < length * below) {
      return { text: format.format(Math.round(distance / length), unit), past: distance < 0 };
    }
  }
  return undefined;
}

/**
 * Dimension labels, in the order a drawing lists them (a Record, so that a dimension the API adds
 * is a compile error here). The API states no units for dimensions or the bounding box, so the
 * views show none: plain numbers, said to be the API's own.
 */
export const DIMENSIONS: Record<keyof Dimensions, string> = {
  length: "Length",
  width: "Width",
  height: "Height",
  depth: "Depth",
  wallThickness: "Wall thickness",
  radius: "Radius",
  filletRadius: "Fillet radius",
  outerDiameter: "Outer diameter",
  innerDiameter: "Inner diameter",
  holeDiameter: "Hole diameter",
  threadSize: "Thread size",
  chamferSize: "Chamfer",
  holeChamferSize: "Hole chamfer",
  tolerance: "Tolerance",
  angle: "Angle",
  surfaceArea: "Surface area",
  volume: "Volume",
  weight: "Weight",
};

/** What the views say of numbers the API gives without a unit. */
export const NO_UNITS = "As the Parts API gives them: it states no units.";
