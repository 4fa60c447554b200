// Rate limits of the authorization server, counted in the store so that they hold across
// replicas: per client address for each kind of request, and per client_id for its
// authorization, sign-in and token requests together, in fixed one-minute windows (each starts
// at its key's first request). Past a limit, how long until the window ends (429 Retry-After).
import { createHash } from "node:crypto";
import type { IncomingMessage } from "node:http";
import type { OAuthConfig } from "../config";
import { type OAuthStore, RATE_WINDOW_MS, StoreUnavailable } from "./store";

export type LimitKind = "signIn" | "register" | "token" | "authorize";

export class RateLimits {
  readonly #store: OAuthStore;
  readonly #perMinute: OAuthConfig["perMinute"];
  /**
   * Keys this replica saw over their limit, and when their window ends: until then a flood is
   * refused without asking the store (the store still decides when a key is under its limit).
   */
  readonly #blocked = new Map<string, number>();

  constructor(store: OAuthStore, perMinute: OAuthConfig["perMinute"]) {
    this.#store = store;
    this.#perMinute = perMinute;
  }

  /**
   * Seconds to wait when `address` is over its limit for `kind`, else undefined; the request
   * counts. Throws StoreUnavailable when the store does not answer.
   */
  take(kind: LimitKind, address: string): Promise<number | undefined> {
    return this.#count(`${kind}:${digest(address)}`, this.#perMinute[kind]);
  }

  /**
   * The same for a client_id (its authorization, sign-in and token requests count together).
   * Asked only for requests their address's limit let through, so that one address cannot spend
   * a published client's allowance for everyone.
   */
  client(clientId: string | undefined): Promise<number | undefined> {
    if (clientId === undefined || clientId === "") return Promise.resolve(undefined);
    return this.#count(`client:${digest(clientId)}`, this.#perMinute.client);
  }

  async #count(key: string, limit: number): Promise<number | undefined> {
    const now = Date.now();
    const until = this.#blocked.get(key);
    if (until !== undefined && until > now) return Math.max(1, Math.ceil((until - now) / 1000));
    const window = await this.#store.countRequest(key, now).catch((error: unknown) => {
      throw new StoreUnavailable(error instanceof Error ? error.message : String(error));
    });
    if (window.count <= limit) return undefined;
    this.#block(key, window.start + RATE_WINDOW_MS, now);
    return Math.max(1, Math.ceil((window.start + RATE_WINDOW_MS - now) / 1000));
  }

  #block(key: string, until: number, now: number): void {
    if (this.#blocked.size >= MAX_BLOCKED) {
      for (const [blocked, end] of this.#blocked) if (end <= now) this.#blocked.delete(blocked);
      if (this.#blocked.size >= MAX_BLOCKED) this.#blocked.clear();
    }
    this.#blocked.set(key, until);
  }
}

/** Keys remembered as blocked at most (a flood of addresses cannot grow memory without bound). */
const MAX_BLOCKED = 10_000;

/** Keys of one length whatever the address or client_id (a CIMD client_id is a whole URL). */
const digest = (value: string) => createHash("sha256").update(value).digest("base64url").slice(0, 22);

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
