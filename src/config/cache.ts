// What the server keeps in memory and how much it reads to fill it: the reference cache shared
// by tools, resources and describe_part, and the per-token search indexes of search_parts.
import { SEARCH_DEFAULTS } from "../search/service";
import { type Env, processEnv } from "./env";
import { integerSetting, readIntegerSetting, type SettingGroup } from "./readers";

/** The reference cache shared by tools, resources and describe_part. */
export interface CacheConfig {
  /** How long a reference record is served from memory; 0 turns the cache off. */
  ttlMs: number;
  maxEntries: number;
}

const CACHE_ENV = {
  ttlMs: "PARTS_MCP_CACHE_TTL_MS",
  maxEntries: "PARTS_MCP_CACHE_MAX_ENTRIES",
} as const;

const CACHE = {
  ttlMs: integerSetting(
    CACHE_ENV.ttlMs,
    "how long a reference record (and a search index) is served from memory; 0 turns the cache off",
    { defaultValue: 300_000, min: 0, max: 86_400_000, unit: "milliseconds" },
  ),
  maxEntries: integerSetting(CACHE_ENV.maxEntries, "most reference records kept", {
    defaultValue: 5_000,
    min: 1,
    max: 1_000_000,
  }),
};

export function loadCacheConfig(env: Env = processEnv()): CacheConfig {
  return {
    ttlMs: readIntegerSetting(env, CACHE.ttlMs),
    maxEntries: readIntegerSetting(env, CACHE.maxEntries),
  };
}

/** How search_parts reads list_parts and how much it may keep (decisions.md, "Finding things"). */
export interface SearchConfig {
  /** Pages of list_parts one search call may read before it answers with a cursor. */
  pagesPerCall: number;
  /** Memory for the search indexes of all tokens together; the least recently used goes first. */
  indexBudgetBytes: number;
}

const SEARCH_ENV = {
  pagesPerCall: "PARTS_MCP_SEARCH_PAGES_PER_CALL",
  indexMb: "PARTS_MCP_SEARCH_INDEX_MB",
} as const;

const MIB = 1024 * 1024;

const SEARCH = {
  pagesPerCall: integerSetting(SEARCH_ENV.pagesPerCall, "pages of list_parts one search call may read", {
    defaultValue: SEARCH_DEFAULTS.pagesPerCall,
    min: 1,
    max: 1_000,
  }),
  indexMb: integerSetting(SEARCH_ENV.indexMb, "memory for the search indexes of all tokens, in MiB", {
    defaultValue: SEARCH_DEFAULTS.maxBytes / MIB,
    min: 1,
    max: 65_536,
    unit: "MiB",
  }),
};

export function loadSearchConfig(env: Env = processEnv()): SearchConfig {
  return {
    pagesPerCall: readIntegerSetting(env, SEARCH.pagesPerCall),
    indexBudgetBytes: readIntegerSetting(env, SEARCH.indexMb) * MIB,
  };
}

export const CACHE_SETTINGS: SettingGroup = {
  title: "Cache and search",
  settings: [...Object.values(CACHE), ...Object.values(SEARCH)],
};
