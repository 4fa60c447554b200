// The reference records a token knows of: standards from list_standards; processes, materials,
// criticalities and categories (which the API cannot list) are the codes on the parts read so far
// and those the token was shown, resolved to full records through the reference cache and kept
// with the token's index (./records.ts), categories with every category above them.

import type { ReferenceRecords } from "../api/kinds";
import { REFERENCE_KINDS, type ReferenceKind } from "../api/kinds";
import type { Category } from "../api/schemas";
import { type CallOptions, PartsApiError } from "../client";
import { MAX_CATEGORY_DEPTH } from "./categories";
import type { SearchContext } from "./context";
import type { Known } from "./kinds";
import type { Progress } from "./page-reader";
import type { FilterKind } from "./part-columns";
import { VIEW_KEYS } from "./part-indexes";
import { resolveCodes } from "./records";

/** Time a search keeps for looking up the records its parts name; with less, it uses the cached ones. */
const LOOKUP_MARGIN_MS = 1_000;

export class KnownRecords {
  readonly #context: SearchContext;

  constructor(context: SearchContext) {
    this.#context = context;
  }

  async records<K extends ReferenceKind>(
    kind: K,
    call: CallOptions,
    progress?: Progress,
    pages = this.#context.settings.pagesPerCall,
  ): Promise<{ records: ReferenceRecords[K][]; complete: boolean }> {
    if (kind === "standard") {
      return {
        records: (await this.#context.reference.standards({}, call)) as ReferenceRecords[K][],
        complete: true,
      };
    }
    const tokenHash = this.#context.tokenHash(call);
    const all = this.#context.indexes.held(tokenHash, "ALL");
    if (all.index.pageCount === 0 && all.index.total === undefined) {
      await this.#context.read(all, tokenHash, "ALL", 0, call, progress, () => false, pages);
    }
    const total = all.index.total;
    const complete = total !== undefined && all.index.coveredFrom(0) >= total;
    const resolved = await this.#resolve(kind, this.#knownCodes(kind, call), call);
    return { records: resolved.records as ReferenceRecords[K][], complete: complete && resolved.complete };
  }

  /**
   * Every record this token's parts name, and every parent of their categories, for matching a
   * search's words. A kind the API fails to give is matched with what the cache already has.
   */
  async knownRecords(call: CallOptions): Promise<Known> {
    // Pages read until the deadline was near leave no time to look records up: what the cache has.
    const cachedOnly = (call.deadline?.remaining() ?? Number.POSITIVE_INFINITY) < LOOKUP_MARGIN_MS;
    const kinds = await Promise.all(
      REFERENCE_KINDS.map(async (kind) => {
        if (cachedOnly) return this.#cached(kind, call);
        try {
          return kind === "standard"
            ? await this.#context.reference.standards({}, call)
            : (await this.#resolve(kind, this.#knownCodes(kind, call), call)).records;
        } catch (error) {
          if (error instanceof PartsApiError && error.kind === "cancelled") throw error;
          return this.#cached(kind, call);
        }
      }),
    );
    return Object.fromEntries(REFERENCE_KINDS.map((kind, k) => [kind, kinds[k]])) as Known;
  }

  /** The records of a kind this token's parts name that the reference cache already has: no request. */
  async #cached(kind: ReferenceKind, call: CallOptions): Promise<unknown[]> {
    if (kind === "standard") return this.#context.reference.cachedStandards(call);
    const codes = kind === "category" ? await this.knownCodes(kind, call) : this.#knownCodes(kind, call);
    const found = await Promise.all(
      codes.map((code) => this.#context.reference.cachedRecord(kind, code, call)),
    );
    return found.filter((record) => record !== undefined);
  }

  /**
   * The codes of a kind this token knows without a request (for completion): on the parts read
   * so far and shown, and for categories every parent the reference cache already holds.
   */
  async knownCodes(kind: Exclude<ReferenceKind, "standard">, call: CallOptions): Promise<string[]> {
    const known = new Set(this.#knownCodes(kind, call));
    let frontier = [...known];
    for (let depth = 0; kind === "category" && frontier.length > 0 && depth < MAX_CATEGORY_DEPTH; depth++) {
      const cached = await Promise.all(
        frontier.map((id) => this.#context.reference.cachedRecord("category", id, call)),
      );
      frontier = cached
        .map((category) => (category as Category | undefined)?.parentId)
        .filter((id): id is string => id !== undefined && !known.has(id));
      for (const id of frontier) known.add(id);
    }
    return [...known];
  }

  /** The codes of a kind this token has met: on the parts read so far, in any view, and shown. */
  #knownCodes(kind: Exclude<ReferenceKind, "standard">, call: CallOptions): string[] {
    const tokenHash = this.#context.tokenHash(call);
    const codes = new Set(this.#context.seen.known(kind, call));
    for (const view of VIEW_KEYS) {
      for (const code of this.#context.indexes.peek(tokenHash, view)?.index.codesOf(kind as FilterKind) ??
        []) {
        codes.add(code);
      }
    }
    return [...codes];
  }

  /**
   * Full records for codes, resolved through the reference cache and kept with the token's index
   * (./records.ts: a bounded number of new codes a call, so `complete` may be false); codes the
   * API does not know are left out. Categories come with every category above them.
   */
  async #resolve(
    kind: Exclude<ReferenceKind, "standard">,
    codes: readonly string[],
    call: CallOptions,
  ): Promise<{ records: unknown[]; complete: boolean }> {
    if (codes.length === 0) return { records: [], complete: true };
    const tokenHash = this.#context.tokenHash(call);
    const all = this.#context.indexes.held(tokenHash, "ALL");
    const resolve = (wanted: readonly string[]) =>
      this.#context.indexes.reading(tokenHash, "ALL", all, () =>
        resolveCodes(this.#context.reference, all.index, kind, wanted, call),
      );
    const resolved = await resolve(codes);
    if (kind !== "category") return resolved;
    const found = new Map((resolved.records as Category[]).map((category) => [category.id, category]));
    let complete = resolved.complete;
    for (let depth = 0; depth < MAX_CATEGORY_DEPTH; depth++) {
      const parents = [...found.values()]
        .map((category) => category.parentId)
        .filter((id): id is string => id !== undefined && !found.has(id));
      if (parents.length === 0) break;
      const above = await resolve([...new Set(parents)]);
      complete &&= above.complete;
      if (above.records.length === 0) break;
      for (const category of above.records as Category[]) found.set(category.id, category);
    }
    return { records: [...found.values()], complete };
  }
}
