// The reference records resolved for the codes on an index's parts (`kind:code`; null: the API
// does not know it), kept as long as the index and within its budget: a repeat search_reference
// costs no request, however many codes there are beyond what the reference cache holds.
import { type Budget, MAP_ENTRY, OBJECT, stringBytes } from "./heap-sizes";
import type { FilterKind } from "./part-columns";

export class ResolvedRecords {
  readonly #records = new Map<string, object | null>();
  readonly #budget: Budget;
  #bytes = 0;

  constructor(budget: Budget) {
    this.#budget = budget;
  }

  get bytes(): number {
    return this.#bytes;
  }

  /** The record resolved for a code; null when the API does not know it, undefined when not resolved yet. */
  recordOf(kind: FilterKind, code: string): object | null | undefined {
    return this.#records.get(`${kind}:${code}`);
  }

  /**
   * Keeps the record resolved for a code (null: unknown to the API), counted in the budget; when
   * the budget has no room it is not kept (the caller has it, and the next call looks it up again).
   */
  keep(kind: FilterKind, code: string, record: object | null): void {
    const key = `${kind}:${code}`;
    if (this.#records.has(key)) return;
    const bytes =
      stringBytes(key) + MAP_ENTRY + (record === null ? 0 : OBJECT + 2 * JSON.stringify(record).length);
    if (!this.#budget.claim(bytes)) return;
    this.#records.set(key, record);
    this.#bytes += bytes;
  }
}
