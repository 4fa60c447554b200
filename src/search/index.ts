// Finding things for the model: search_parts, search_reference and did-you-mean hints
// (../shared/spec/decisions.md, "Finding things"). One PartSearch per process, beside the
// reference cache; see service.ts.
export { MAX_CURSOR_LENGTH } from "./cursor";
export { SearchRefusal } from "./errors";
export { rankRecords } from "./match";
export type { Progress } from "./page-reader";
export { PAGE_SIZE } from "./part-index";
export { DEFAULT_LIMIT, MAX_LIMIT, type PartSearchResult } from "./part-search";
export { MAX_FILTER_CODES, namesVersion, type PartSearchArgs, takeVersions } from "./query";
export { PartSearch, type PartSearchOptions } from "./service";
export { compact } from "./text";
