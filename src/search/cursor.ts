// Search cursors that any server process can continue: replicas behind a load balancer share
// nothing, so the cursor itself carries where the scan stopped (a position in the listing) and a
// digest of everything the search depends on (token, view, filters, text). A process that gets a
// cursor re-reads from the API whatever its own index lacks. The digest is a hash over the
// token's hash, the search and the position, so a cursor reveals nothing of the token, fits no
// other search, and its position cannot be rewritten.
//
// Layout (21 bytes, base64url): version 3 · position as uint32 big-endian · the matches before it
// as uint32 big-endian (so that any process counts the same) · 12 bytes of digest. A cursor in a
// ranked answer (./part-search.ts) is version 4, one byte longer: after the version, the rank of
// the last part shown; the position is that part's, and the answer goes on with what ranks after
// both, so parts added or removed meanwhile shift nothing.
import { createHash, timingSafeEqual } from "node:crypto";
import { SearchRefusal } from "./errors";
import { MAX_POSITION } from "./part-index";

const LISTED = 3;
const RANKED = 4;
const DIGEST_BYTES = 12;
const BASE64URL = /^[A-Za-z0-9_-]+$/;
/** Longer than any cursor this server makes; bounds the work done on garbage. */
export const MAX_CURSOR_LENGTH = 64;

/** The key of one search, which its cursors' digests are made with: the token's hash and every argument that changes the answer. */
export function searchDigest(tokenHash: string, search: Record<string, unknown>): Buffer {
  return createHash("sha256")
    .update("parts-mcp search cursor\0")
    .update(tokenHash)
    .update("\0")
    .update(JSON.stringify(search))
    .digest();
}

/** The digest of a position in one search. */
function positionDigest(search: Buffer, head: Buffer): Buffer {
  return createHash("sha256").update(search).update(head).digest().subarray(0, DIGEST_BYTES);
}

export interface CursorPlace {
  position: number;
  matchedBefore: number;
  /** In a ranked answer, the rank of the part at `position`, the last one shown. */
  rank?: number;
}

export function encodeCursor(position: number, search: Buffer, matchedBefore = 0, rank?: number): string {
  if (!Number.isInteger(position) || position < 0 || position > MAX_POSITION)
    throw new RangeError(`cursor position ${position} out of range`);
  const ranked = rank === undefined ? 0 : 1;
  const head = 1 + ranked + 8;
  const bytes = Buffer.alloc(head + DIGEST_BYTES);
  bytes[0] = ranked ? RANKED : LISTED;
  if (rank !== undefined) bytes[1] = rank;
  bytes.writeUInt32BE(position, 1 + ranked);
  bytes.writeUInt32BE(Math.min(matchedBefore, 0xffffffff), 5 + ranked);
  positionDigest(search, bytes.subarray(0, head)).copy(bytes, head);
  return bytes.toString("base64url");
}

/** Where a cursor continues from, and the matches before it; a refusal when it is garbage or made for another search. */
export function decodeCursor(cursor: string, search: Buffer): CursorPlace {
  const bytes =
    cursor.length <= MAX_CURSOR_LENGTH && BASE64URL.test(cursor)
      ? Buffer.from(cursor, "base64url")
      : undefined;
  const ranked = bytes?.[0] === RANKED ? 1 : 0;
  const head = 1 + ranked + 8;
  // Compared re-encoded: base64url ignores the bits of a trailing extra character.
  if (
    bytes === undefined ||
    bytes.length !== head + DIGEST_BYTES ||
    (bytes[0] !== LISTED && bytes[0] !== RANKED) ||
    bytes.toString("base64url") !== cursor
  ) {
    throw new SearchRefusal(
      "The cursor is not one this server made (damaged or made up): pass nextCursor exactly as returned, or search again without cursor.",
    );
  }
  if (!timingSafeEqual(bytes.subarray(head), positionDigest(search, bytes.subarray(0, head)))) {
    throw new SearchRefusal(
      "The cursor belongs to another search (other text, filters, view or token) or was altered: repeat that search's arguments with it exactly as returned, or search again without cursor.",
    );
  }
  // Made by this server, so within bounds; checked all the same, as a cursor's position is trusted.
  const place = {
    position: Math.min(bytes.readUInt32BE(1 + ranked), MAX_POSITION),
    matchedBefore: bytes.readUInt32BE(5 + ranked),
  };
  return ranked ? { ...place, rank: bytes[1] as number } : place;
}
