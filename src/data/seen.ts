// What each token has been shown: the ids of parts, RFQs, factories and reference records named in
// its tool results, recorded by the tool loop (src/mcp/run-tool.ts) from each tool's declared mentions.
// Completions offer them, and did-you-mean weighs them. Each token's memory is its own (keyed by a
// digest of the token, never the token) and bounded.

import { LRUCache } from "lru-cache";
import type { KnownKind } from "../api/kinds";
import type { CallOptions } from "../client";
import { entriesAtMost } from "./bounded-cache";
import { tokenKey } from "./token-key";

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
    const partition = tokenKey(call.token ?? this.#defaultToken);
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
    return [...(this.#lists.get(tokenKey(call.token ?? this.#defaultToken))?.get(kind) ?? [])];
  }
}
