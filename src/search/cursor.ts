// Search cursors that any server process can continue: replicas behind a load balancer share
// nothing, so the cursor itself carries where the scan stopped (a position in the listing) and a
// digest of everything the search depends on (token, view, filters, text). A process that gets a
// cursor re-reads from the API whatever its own index lacks. The digest is a hash over the
// token's hash and the search, so a cursor reveals nothing of the token and fits no other search.
//
// Layout (17 bytes, base64url): version 1 · position as uint32 big-endian · 12 bytes of digest.
import { createHash, timingSafeEqual } from "../lazy-crypto";
import { SearchRefusal } from "./errors";

const VERSION = 1;
const DIGEST_BYTES = 12;
const CURSOR_BYTES = 1 + 4 + DIGEST_BYTES;
const BASE64URL = /^[A-Za-z0-9_-]+$/;
/** Longer than any cursor this server makes; bounds the work done on garbage. */
export const MAX_CURSOR_LENGTH = 64;

/** The digest of one search: the token's hash and every argument that changes the answer. */
export function searchDigest(tokenHash: string, search: Record<string, unknown>): Buffer {
  return createHash("sha256")
    .update("parts-mcp search cursor\0")
    .update(tokenHash)
    .update("\0")
    .update(JSON.stringify(search))
    .digest()
    .subarray(0, DIGEST_BYTES);
}

export function encodeCursor(position: number, digest: Buffer): string {
  const bytes = Buffer.alloc(CURSOR_BYTES);
  bytes[0] = VERSION;
  bytes.writeUInt32BE(position, 1);
  digest.copy(bytes, 5, 0, DIGEST_BYTES);
  return bytes.toString("base64url");
}

/** The position a cursor continues from; a refusal when it is garbage or made for another search. */
export function decodeCursor(cursor: string, digest: Buffer): number {
  const bytes =
    cursor.length <= MAX_CURSOR_LENGTH && BASE64URL.test(cursor)
      ? Buffer.from(cursor, "base64url")
      : undefined;
  if (bytes === undefined || bytes.length !== CURSOR_BYTES || bytes[0] !== VERSION) {
    throw new SearchRefusal(
      "The cursor is not one this server made (damaged or made up): pass nextCursor exactly as returned, or search again without cursor.",
    );
  }
  if (!timingSafeEqual(bytes.subarray(5), digest)) {
    throw new SearchRefusal(
      "The cursor belongs to another search (other text, filters, view or token): repeat that search's arguments with it, or search again without cursor.",
    );
  }
  return bytes.readUInt32BE(1);
}
