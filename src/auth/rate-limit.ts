// Requests per client address per minute, counted in fixed one-minute windows in this process
// (each replica counts its own): past the limit, 429 with Retry-After until the window ends.
import type { IncomingMessage } from "node:http";

const WINDOW_MS = 60_000;
/** Addresses remembered at most; past it the oldest window is forgotten (a flood of addresses
 * cannot grow memory without bound). */
const MAX_ADDRESSES = 50_000;

export class RateLimit {
  readonly #perMinute: number;
  readonly #windows = new Map<string, { start: number; count: number }>();

  constructor(perMinute: number) {
    this.#perMinute = perMinute;
  }

  /** Seconds to wait when `address` is over the limit, else undefined (and the request counts). */
  take(address: string, now = Date.now()): number | undefined {
    let window = this.#windows.get(address);
    if (window === undefined || now - window.start >= WINDOW_MS) {
      this.#windows.delete(address);
      if (this.#windows.size >= MAX_ADDRESSES) {
        const oldest = this.#windows.keys().next().value;
        if (oldest !== undefined) this.#windows.delete(oldest);
      }
      window = { start: now, count: 0 };
      this.#windows.set(address, window);
    }
    if (window.count >= this.#perMinute)
      return Math.max(1, Math.ceil((window.start + WINDOW_MS - now) / 1000));
    window.count++;
    return undefined;
  }
}

/**
 * The address a request came from. Behind the TLS proxy an https public URL implies, that is the
 * last X-Forwarded-For entry (the one the proxy appended; a client can only add entries before
 * it); otherwise the socket's peer.
 */
export function clientAddress(req: IncomingMessage, behindProxy: boolean): string {
  const forwarded = req.headers["x-forwarded-for"];
  if (behindProxy && typeof forwarded === "string") {
    const last = forwarded.split(",").at(-1)?.trim();
    if (last) return last.slice(0, 64);
  }
  return req.socket.remoteAddress ?? "";
}
