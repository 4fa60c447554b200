// Reading the catalogue before a list is resolved, so that every line is matched against the same
// parts and ranked as search_parts ranks a complete answer. It goes through search_parts' own
// service (same per-token index, progress, memory budget, pages per call, deadline), which reads
// as far as one call may and says whether it reached the end, with a cursor that continues the
// reading on any server process. A resolve_parts cursor is that cursor bound to the list it was
// given for.

import { createHash } from "node:crypto";
import type { PART_VIEWS } from "../api/schemas";
import type { CallOptions } from "../client";
import { MAX_CURSOR_LENGTH, type PartSearch, type Progress, SearchRefusal } from "../search";

/** The share of the call's time the reading may take; the lines get the rest. */
const READING_SHARE = 0.5;
const SEPARATOR = "~";

export interface Reading {
  complete: boolean;
  /** Where a later call continues reading (absent when the reading cannot go further: the hint says why). */
  cursor?: string;
  /** Why the catalogue could not be read to the end, when the search says. */
  hint?: string;
}

/**
 * Reads the catalogue for `lines` from where `cursor` stopped, a call's worth of pages at a time,
 * until the end or until half the call's time is gone.
 */
export async function readCatalogue(
  search: PartSearch,
  lines: readonly string[],
  view: (typeof PART_VIEWS)[number] | undefined,
  cursor: string | undefined,
  call: CallOptions,
  progress?: Progress,
): Promise<Reading> {
  const list = listDigest(lines, view);
  let at = cursor === undefined ? undefined : positionOf(cursor, list);
  const timeAtStart = call.deadline?.remaining() ?? Number.POSITIVE_INFINITY;
  for (;;) {
    const { complete, nextCursor, hint } = await search.readCatalogue(view ?? "ALL", at, call, progress);
    if (complete) return { complete };
    if (nextCursor === undefined) return { complete, ...(hint && { hint }) };
    at = nextCursor;
    const left = call.deadline?.remaining() ?? Number.POSITIVE_INFINITY;
    if (left < timeAtStart * READING_SHARE) return { complete, cursor: `${list}${SEPARATOR}${at}` };
  }
}

/** The search cursor inside a resolve_parts cursor, once it is known to be this list's. */
function positionOf(cursor: string, list: string): string {
  const [digest, position] = cursor.split(SEPARATOR);
  if (position === undefined || digest === undefined || digest !== list) {
    throw new SearchRefusal(
      "This cursor was made for another list (other lines or view) or altered: send the same lines and view with it, or resolve without cursor.",
    );
  }
  return position;
}

/** Binds a cursor to the lines and view it was given for (they are the caller's own: no secret). */
function listDigest(lines: readonly string[], view: string | undefined): string {
  return createHash("sha256")
    .update(JSON.stringify([view ?? "", lines]))
    .digest("base64url")
    .slice(0, 16);
}

/** Longest cursor this module makes: the digest, the separator and a search cursor. */
export const MAX_RESOLVE_CURSOR = 16 + SEPARATOR.length + MAX_CURSOR_LENGTH;
