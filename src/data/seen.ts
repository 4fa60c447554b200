// What each token has been shown: the ids of parts, RFQs, factories and reference records named in
// its tool results, recorded by the server loop (src/mcp/server.ts) from each tool's declared mentions.
// Completions offer them, and did-you-mean weighs them. Each token's memory is its own (keyed by a
// digest of the token, never the token) and bounded.

import { LRUCache } from "lru-cache";
import type { CallOptions } from "../client";
import { createHash } from "../lazy-crypto";
import { entriesAtMost } from "./bounded-cache";
import type { ReferenceKind } from "./reference";

export type KnownKind = ReferenceKind | "part" | "rfq" | "factory";

export interface RecordRef {
  kind: KnownKind;
  id: string;
  title?: string;
}

/** The most recent ids kept per token and kind. */
const MAX_PER_KIND = 5_000;

export class SeenRecords {
  readonly #defaultToken: string;
  /** Ids by partition and kind, most recently seen last (8 kinds: as many lists as 10,000 before). */
  readonly #lists = new LRUCache<string, Map<KnownKind, Set<string>>>(entriesAtMost(1_250));

  constructor(defaultToken: string) {
    this.#defaultToken = defaultToken;
  }

  record(refs: Iterable<RecordRef>, call: CallOptions): void {
    const partition = tokenPartition(call.token ?? this.#defaultToken);
    let kinds = this.#lists.get(partition);
    if (!kinds) {
      kinds = new Map();
      this.#lists.set(partition, kinds);
    }
    for (const { kind, id } of refs) {
      let list = kinds.get(kind);
      if (!list) {
        list = new Set();
        kinds.set(kind, list);
      }
      list.delete(id);
      list.add(id);
      if (list.size > MAX_PER_KIND) list.delete(list.values().next().value as string);
    }
  }

  known(kind: KnownKind, call: CallOptions): string[] {
    return [...(this.#lists.get(tokenPartition(call.token ?? this.#defaultToken))?.get(kind) ?? [])];
  }
}

const partitions = new LRUCache<string, string>(entriesAtMost(10_000));

/** A digest of a token that names its share of a cache: the token cannot be read back from it. */
export function tokenPartition(token: string): string {
  let digest = partitions.get(token);
  if (digest === undefined) {
    digest = createHash("sha256").update(token).digest("base64url").slice(0, 22);
    partitions.set(token, digest);
  }
  return digest;
}
