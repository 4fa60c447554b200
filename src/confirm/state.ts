// The sealed `requestState` of a write waiting for a person's answer: the SDK's HMAC-SHA256 codec
// (`createRequestStateCodec`), bound to a digest of the caller's upstream token, its payload the
// tool, a keyed digest of the arguments and a one-time id; it expires after ten minutes. The
// codec signs and does not encrypt, so the payload holds nothing secret: the arguments (a SAS
// URL among them) enter only through a keyed digest, and the token only through the codec's
// binding tag. Every replica that may see the state again must have the same key: the oauth mode
// keeps one in its store; the other modes serve from one process and draw one at random.
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import {
  createRequestStateCodec,
  type RequestStateCodec,
  type ServerContext,
} from "@modelcontextprotocol/server";
import type { OnceLedger } from "./ledger";

/** How long a person has to answer: the state expires after it. */
const CONFIRM_TTL_SECONDS = 600;

/** What a state carries back, readable by the client, unforgeable. */
export interface ConfirmState {
  /** The tool the person was asked about. */
  tool: string;
  /** A keyed digest of that call's arguments. */
  args: string;
  /** Names the state in the ledger, which lets it be used once. */
  id: string;
}

/** What every server instance of the process shares: the key and the ledger. */
export interface ConfirmSecrets {
  /** At least 32 bytes; the same on every replica that may see a state again. Read on first use. */
  key(): Uint8Array;
  ledger: OnceLedger;
}

/** A process's own key, drawn on first use, for the modes served from one process. */
export function randomKey(): () => Uint8Array {
  let key: Uint8Array | undefined;
  return () => {
    key ??= randomBytes(32);
    return key;
  };
}

/** Seals and opens the states of one caller (one upstream token). */
export class CallerStates {
  readonly #secrets: ConfirmSecrets;
  readonly #binding: string;
  #codec: RequestStateCodec<ConfirmState> | undefined;

  /** `binding` names the caller: a digest of its upstream token, never the token. */
  constructor(secrets: ConfirmSecrets, binding: string) {
    this.#secrets = secrets;
    this.#binding = binding;
  }

  // Made on first use: the codec reaches for Web Crypto as it is made.
  get #sealer(): RequestStateCodec<ConfirmState> {
    const binding = this.#binding;
    this.#codec ??= createRequestStateCodec<ConfirmState>({
      key: this.#secrets.key(),
      ttlSeconds: CONFIRM_TTL_SECONDS,
      bind: () => binding,
    });
    return this.#codec;
  }

  /** A new state for a call of `tool` with `args`. */
  seal(tool: string, args: unknown, ctx: ServerContext): Promise<string> {
    const id = randomBytes(16).toString("base64url");
    return this.#sealer.mint({ tool, args: this.argsDigest(tool, args), id }, ctx);
  }

  /** The payload of a state this caller was given, unexpired; throws otherwise (the SDK answers -32602). */
  open = (state: string, ctx: ServerContext): Promise<ConfirmState> => this.#sealer.verify(state, ctx);

  /** Whether `state` was made for this very call: the same tool with the same arguments. */
  fits(state: ConfirmState, tool: string, args: unknown): boolean {
    if (typeof state?.tool !== "string" || typeof state.args !== "string") return false;
    const expected = Buffer.from(this.argsDigest(tool, args));
    const given = Buffer.from(state.args);
    return state.tool === tool && given.length === expected.length && timingSafeEqual(given, expected);
  }

  /** True the first time a state is presented; false for a replay. */
  use(state: ConfirmState): Promise<boolean> {
    if (typeof state?.id !== "string" || state.id.length > 64) return Promise.resolve(false);
    return this.#secrets.ledger.claim(state.id, Date.now() + CONFIRM_TTL_SECONDS * 1000);
  }

  argsDigest(tool: string, args: unknown): string {
    return createHmac("sha256", this.#secrets.key())
      .update(`parts-mcp confirm\0${tool}\0${canonicalJson(args ?? {})}`)
      .digest("base64url")
      .slice(0, 32);
  }
}

/** JSON with every object's keys sorted: the same arguments give the same text, in any key order. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, item]) => item !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}
