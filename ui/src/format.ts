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
 * Dimension labels and units, in the order a drawing lists them (a Record, so that a dimension the
 * API adds is a compile error here). The API states no units; the embedded sample data is metric
 * (lengths in mm, mass in g), and so is this table: the one place to change when the real service
 * says otherwise.
 */
export const DIMENSIONS: Record<keyof Dimensions, { label: string; unit: string }> = {
  length: { label: "Length", unit: "mm" },
  width: { label: "Width", unit: "mm" },
  height: { label: "Height", unit: "mm" },
  depth: { label: "Depth", unit: "mm" },
  wallThickness: { label: "Wall thickness", unit: "mm" },
  radius: { label: "Radius", unit: "mm" },
  filletRadius: { label: "Fillet radius", unit: "mm" },
  outerDiameter: { label: "Outer diameter", unit: "mm" },
  innerDiameter: { label: "Inner diameter", unit: "mm" },
  holeDiameter: { label: "Hole diameter", unit: "mm" },
  threadSize: { label: "Thread size", unit: "mm" },
  chamferSize: { label: "Chamfer", unit: "mm" },
  holeChamferSize: { label: "Hole chamfer", unit: "mm" },
  tolerance: { label: "Tolerance", unit: "± mm" },
  angle: { label: "Angle", unit: "°" },
  surfaceArea: { label: "Surface area", unit: "mm²" },
  volume: { label: "Volume", unit: "mm³" },
  weight: { label: "Weight", unit: "g" },
};

export const LENGTH_UNIT = "mm";
