// Reference data (processes, materials, standards, criticalities, categories) changes rarely and
// is looked up again and again, by tools, resources, describe_part and completions. This is their
// one way to it: an LRU cache with a TTL whose entries are promises, so concurrent lookups of the
// same record share one upstream request, and whose keys start with the token's digest, so that
// nothing fetched with one token is ever served to another.
import { LRUCache } from "lru-cache";
import type { z } from "zod";
import type { ListStandardsQuery } from "../api/endpoints";
import {
  type BatchKind,
  KINDS,
  keyOf,
  type ReferenceRecords as Records,
  type ReferenceKind,
} from "../api/kinds";
import type { Category, Criticality, Material, Process, Standard } from "../api/schemas";
import type { CallOptions, PartsApiClient } from "../client";
import { telemetry } from "../telemetry";
import { entriesAtMost } from "./bounded-cache";
import { tokenKey } from "./token-key";

export interface ReferenceCacheOptions {
  /** How long a record is served from memory; 0 turns the cache off. */
  ttlMs: number;
  maxEntries: number;
}

/** The reference fields of a part or of a create_part draft. */
export interface References {
  processId?: string;
  materialId?: string;
  standardIds?: string[];
  criticalityIds?: string[];
  categoryIds?: string[];
}

/** The records a part (or a draft) names, as describe_part returns them and the views draw them. */
export interface ResolvedRecords {
  process?: Process;
  material?: Material;
  standards: Standard[];
  criticalities: Criticality[];
  categories: Category[];
}

export interface Resolved extends ResolvedRecords {
  missing: { kind: ReferenceKind; id: string }[];
  failed: { kind: ReferenceKind; id: string; error: unknown }[];
}

interface Deferred<T> {
  promise: Promise<T>;
  resolve(value: T): void;
  reject(error: unknown): void;
}

function deferred<T>(): Deferred<T> {
  const parts: Partial<Deferred<T>> = {};
  parts.promise = new Promise<T>((resolve, reject) => Object.assign(parts, { resolve, reject }));
  return parts as Deferred<T>;
}

const isNotFound = (error: unknown) => (error as { status?: number } | undefined)?.status === 404;

/** A failure of the caller that made the shared request (its cancel, its deadline), not of the record. */
const endedForItsCaller = (error: unknown) => {
  const kind = (error as { kind?: string } | undefined)?.kind;
  return kind === "cancelled" || kind === "timeout";
};

/** Marks a batch entry the API did not return: resolved, not an error, and never cached. */
const MISSING: unique symbol = Symbol("missing");

const standardsKey = (filter: z.input<typeof ListStandardsQuery>) =>
  `standards?${filter.governingBody ?? ""}&${filter.materialType ?? ""}`;

/** What Promise.race gives for a promise that has not settled yet. */
const NOT_YET = Symbol("not yet");

export class ReferenceData {
  readonly #api: PartsApiClient;
  readonly #defaultToken: string;
  readonly #cache: LRUCache<string, Promise<unknown>> | undefined;
  /** Lookups on their way, by the same keys: as many as requests in flight, whatever the cache holds. */
  readonly #inFlight = new Map<string, Promise<unknown>>();

  constructor(api: PartsApiClient, defaultToken: string, options: ReferenceCacheOptions) {
    this.#api = api;
    this.#defaultToken = defaultToken;
    this.#cache =
      options.ttlMs > 0
        ? new LRUCache({ ...entriesAtMost(options.maxEntries), ttl: options.ttlMs })
        : undefined;
  }

  process(code: string, call: CallOptions): Promise<Process> {
    return this.#record("process", code, call, () =>
      this.#api.call("getProcess", { params: { code } }, call),
    );
  }

  material(code: string, call: CallOptions): Promise<Material> {
    return this.#record("material", code, call, () =>
      this.#api.call("getMaterial", { params: { code } }, call),
    );
  }

  standard(code: string, call: CallOptions): Promise<Standard> {
    return this.#record("standard", code, call, () =>
      this.#api.call("getStandard", { params: { code } }, call),
    );
  }

  criticality(id: string, call: CallOptions): Promise<Criticality> {
    return this.#record("criticality", id, call, () =>
      this.#api.call("getCriticality", { params: { id } }, call),
    );
  }

  /**
   * Every record a part (or a draft) names, resolved: through the cache, one batch request per
   * kind. A code the API does not know is `missing`; one that could not be looked up (the API
   * failed) is `failed`, with the error. A cancelled call is not answered in part: it throws.
   */
  async resolve(refs: References, call: CallOptions): Promise<Resolved> {
    const missing: { kind: ReferenceKind; id: string }[] = [];
    const failed: { kind: ReferenceKind; id: string; error: unknown }[] = [];
    const fail = (kind: ReferenceKind, id: string, error: unknown) => {
      if (call.signal?.aborted) throw error;
      if (isNotFound(error)) missing.push({ kind, id });
      else failed.push({ kind, id, error });
    };
    const one = async <T>(
      kind: "process" | "material",
      code: string | undefined,
      load: (code: string) => Promise<T>,
    ) => {
      if (code === undefined) return undefined;
      try {
        return await load(code);
      } catch (error) {
        fail(kind, code, error);
        return undefined;
      }
    };
    const many = async <K extends BatchKind>(kind: K, keys: string[] | undefined): Promise<Records[K][]> => {
      if (!keys?.length) return [];
      try {
        const { items, missing: absent } = await this.batch(kind, keys, call);
        for (const id of absent) missing.push({ kind, id });
        return items;
      } catch (error) {
        for (const id of new Set(keys)) fail(kind, id, error);
        return [];
      }
    };
    const [process, material, standards, criticalities, categories] = await Promise.all([
      one("process", refs.processId, (code) => this.process(code, call)),
      one("material", refs.materialId, (code) => this.material(code, call)),
      many("standard", refs.standardIds),
      many("criticality", refs.criticalityIds),
      many("category", refs.categoryIds),
    ]);
    return {
      ...(process && { process }),
      ...(material && { material }),
      standards,
      criticalities,
      categories,
      missing,
      failed,
    };
  }

  standards(filter: z.input<typeof ListStandardsQuery>, call: CallOptions): Promise<Standard[]> {
    return this.#shared(call, standardsKey(filter), async () => {
      const { items } = await this.#api.call("listStandards", { query: filter }, call);
      return items;
    });
  }

  /**
   * Several records of one kind: cached ones from memory, the rest in one batch request (chunked
   * by the client). Each requested key is claimed in the cache before the request goes out, so a
   * concurrent lookup of the same key waits for this request instead of making its own.
   */
  async batch<K extends BatchKind>(
    kind: K,
    keys: string[],
    call: CallOptions,
  ): Promise<{ items: Records[K][]; missing: string[] }> {
    const unique = [...new Set(keys)];
    const pending = new Map<string, Deferred<Records[K] | typeof MISSING>>();
    const lookups = unique.map((key) =>
      this.#shared(
        call,
        `${kind}:${key}`,
        () => {
          const entry = deferred<Records[K] | typeof MISSING>();
          pending.set(key, entry);
          return entry.promise;
        },
        false,
      ).catch(async (error: unknown): Promise<Records[K] | typeof MISSING> => {
        if (isNotFound(error)) return MISSING;
        // Another caller's shared request was cancelled or ran out of time: ask for this key ourselves.
        if (endedForItsCaller(error) && !pending.has(key) && !call.signal?.aborted) {
          const { items } = await this.#api.batchGet(KINDS[kind].batch, [key], call);
          return (items[0] as Records[K] | undefined) ?? MISSING;
        }
        throw error;
      }),
    );
    if (pending.size > 0) {
      this.#api.batchGet(KINDS[kind].batch, [...pending.keys()], call).then(
        ({ items }) => {
          for (const item of items as Records[K][]) pending.get(keyOf(kind, item))?.resolve(item);
          for (const entry of pending.values()) entry.resolve(MISSING);
        },
        (error: unknown) => {
          for (const entry of pending.values()) entry.reject(error);
        },
      );
    }
    const results = await Promise.all(lookups);
    const items: Records[K][] = [];
    const missing: string[] = [];
    results.forEach((result, index) => {
      if (result === MISSING) missing.push(unique[index] as string);
      else items.push(result);
    });
    return { items, missing };
  }

  /** A record this token already has (see #cached), without asking the API. */
  cachedRecord(kind: ReferenceKind, id: string, call: CallOptions): Promise<unknown> {
    return this.#cached(call, `${kind}:${id}`);
  }

  /** The unfiltered standards list, if this token already has it, without asking the API. */
  async cachedStandards(call: CallOptions): Promise<Standard[]> {
    return ((await this.#cached(call, standardsKey({}))) as Standard[] | undefined) ?? [];
  }

  /** The value cached under `key` for this token once it has arrived; undefined otherwise. */
  async #cached(call: CallOptions, key: string): Promise<unknown> {
    const entry = this.#cache?.peek(`${tokenKey(call.token ?? this.#defaultToken)}/${key}`);
    if (entry === undefined) return undefined;
    // A lookup still on its way is another call's: not waited for.
    const value = await Promise.race([entry, NOT_YET]).catch(() => undefined);
    return value === NOT_YET || value === MISSING ? undefined : value;
  }

  #record<T>(kind: ReferenceKind, id: string, call: CallOptions, load: () => Promise<T>): Promise<T> {
    return this.#shared(call, `${kind}:${id}`, load);
  }

  /**
   * Shares one promise per key and token; a failed or missing lookup is dropped, never cached.
   * The shared request runs with the signal and deadline of the caller that started it: when it
   * ends for that caller's reasons (cancelled, out of time), a caller still waiting makes its own
   * (`rejoin`; a batch's claims cannot, their loader runs once, so batch re-requests what it misses).
   */
  #shared<T>(call: CallOptions, key: string, load: () => Promise<T>, rejoin = true): Promise<T> {
    const cache = this.#cache;
    if (!cache) return load();
    const fullKey = `${tokenKey(call.token ?? this.#defaultToken)}/${key}`;
    // A lookup on its way is shared even when the cache had to let it go (more keys than it holds).
    const hit = (cache.get(fullKey) ?? this.#inFlight.get(fullKey)) as Promise<T> | undefined;
    telemetry.cacheLookup(key, hit !== undefined);
    if (hit) {
      if (!rejoin) return hit;
      return hit.catch((error: unknown) => {
        if (!endedForItsCaller(error) || call.signal?.aborted) throw error;
        return this.#shared(call, key, load);
      });
    }
    const loading = load();
    cache.set(fullKey, loading);
    this.#inFlight.set(fullKey, loading);
    const landed = () => {
      if (this.#inFlight.get(fullKey) === loading) this.#inFlight.delete(fullKey);
    };
    const forget = () => {
      landed();
      if (cache.get(fullKey) === loading) cache.delete(fullKey);
    };
    loading.then((value) => (value === MISSING ? forget() : landed()), forget);
    return loading;
  }
}
