// What a client's request may put into a metric label or a span name, and how long it may be: a
// tool or prompt name the server does not serve is recorded as "_unknown" (one series, one span
// name, however many junk names arrive), a protocol version the SDK does not speak likewise, and
// every other recorded string is cut to MAX_LABEL_CHARS. Metric series and span names then stay
// few and small, so a scrape or an export stays small too.

/** The value recorded for a name this server does not serve. */
const UNKNOWN = "_unknown";

/** The longest string recorded as a label, a span-name part or a span attribute. */
export const MAX_LABEL_CHARS = 128;

/** The names a server instance serves: only those are recorded as they are. */
export interface ServedNames {
  tool(name: string): boolean;
  prompt(name: string): boolean;
}

/** `value` cut to MAX_LABEL_CHARS (never between the two halves of a surrogate pair). */
export function capped(value: string): string {
  if (value.length <= MAX_LABEL_CHARS) return value;
  const cut = value.slice(0, MAX_LABEL_CHARS);
  return /[\uD800-\uDBFF]$/.test(cut) ? cut.slice(0, -1) : cut;
}

/** A client-chosen name as recorded: itself when `serves` knows it, UNKNOWN otherwise. */
export function servedOrUnknown(name: unknown, serves: (name: string) => boolean): string {
  return typeof name === "string" && serves(name) ? capped(name) : UNKNOWN;
}

/** A protocol version as recorded: one of `supported` (the SDK's), or UNKNOWN. */
export function knownVersion(version: string, supported: readonly string[]): string {
  return supported.includes(version) ? version : UNKNOWN;
}
