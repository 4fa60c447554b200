/** The moment by which one tool call's upstream work must be done, shared by all its requests. */
export interface Deadline {
  /** Epoch milliseconds (`Date.now()` clock). */
  readonly at: number;
  /** Milliseconds left, never negative. */
  remaining(): number;
}

class FixedDeadline implements Deadline {
  constructor(readonly at: number) {}

  remaining(): number {
    return Math.max(this.at - Date.now(), 0);
  }
}

/** A deadline `ms` milliseconds from now. */
export function createDeadline(ms: number): Deadline {
  return new FixedDeadline(Date.now() + ms);
}
