// The one per-token key: caches that keep each token's share apart (the reference cache, the
// records each token has been shown) key it by a digest of the token, never by the token, so
// the token cannot be read back from a key.

import { createHash } from "node:crypto";
import { LRUCache } from "lru-cache";
import { entriesAtMost } from "./bounded-cache";

const keys = new LRUCache<string, string>(entriesAtMost(10_000));

/** A digest of a token that names its share of a cache. */
export function tokenKey(token: string): string {
  let digest = keys.get(token);
  if (digest === undefined) {
    digest = createHash("sha256").update(token).digest("base64url").slice(0, 22);
    keys.set(token, digest);
  }
  return digest;
}
