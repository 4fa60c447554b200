// One handler per endpoint of the table. A handler gets the caller's organisation and the
// validated path parameters, query and body, and returns the JSON text of the 200 response or
// throws an ApiError.

import type { EndpointBody, EndpointName, EndpointQuery } from "../api/endpoints";
import { isLoopbackHost } from "../net/hosts";
import type { Org } from "./data/reference";
import { ApiError, quote } from "./errors";
import type { Store } from "./store";

export interface HandlerContext<K extends EndpointName = EndpointName> {
  org: Org;
  params: Readonly<Record<string, string>>;
  query: EndpointQuery<K, "output">;
  body: EndpointBody<K, "output">;
  store: Store;
  /** Base URL of this API, no trailing slash. */
  baseUrl: string;
}

export type Handlers = { [K in EndpointName]: (ctx: HandlerContext<K>) => string };

/** Largest number of entries a batch get accepts (the client sends chunks of 50 by default). */
const BATCH_MAX = 100;

const DEFAULT_PAGE_SIZE = 20;

function param(ctx: HandlerContext, name: string): string {
  return ctx.params[name] as string;
}

/** `{"items":[...]}` from the cached JSON of the records the keys name, in the caller's order. */
function batch(
  field: string,
  keys: readonly string[],
  records: ReadonlyMap<string, { json: string }>,
): string {
  if (keys.length > BATCH_MAX) throw new ApiError(400, `${field}: must have at most ${BATCH_MAX} entries`);
  const seen = new Set<string>();
  const items: string[] = [];
  for (const key of keys) {
    if (seen.has(key)) continue;
    seen.add(key);
    const found = records.get(key);
    if (found !== undefined) items.push(found.json);
  }
  return `{"items":[${items.join(",")}]}`;
}

function one(what: string, key: string, records: ReadonlyMap<string, { json: string }>): string {
  const found = records.get(key);
  if (found === undefined) throw new ApiError(404, `${what} ${quote(key)} not found`);
  return found.json;
}

/**
 * The address of an imported file: an absolute https: URL, or http: on loopback (decisions).
 * Returns it without its query string. Messages never contain the URL: its query string (a SAS
 * token) is a credential.
 */
function checkSasUrl(sasUrl: string): string {
  let url: URL;
  try {
    url = new URL(sasUrl);
  } catch {
    throw new ApiError(400, "sasUrl: must be an absolute https: URL");
  }
  const ok = url.protocol === "https:" || (url.protocol === "http:" && isLoopbackHost(url.hostname));
  if (!ok) throw new ApiError(400, "sasUrl: must be an absolute https: URL (http: only on loopback)");
  if (url.username !== "" || url.password !== "")
    throw new ApiError(400, "sasUrl: must not carry user credentials");
  return `${url.origin}${url.pathname}`;
}

/** A path separator or a control character. */
function forbiddenInFileName(name: string): boolean {
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i);
    if (c < 0x20 || c === 0x7f || c === 0x2f || c === 0x5c) return true;
  }
  return false;
}

function checkFileName(name: string): void {
  if (name.length > 255) throw new ApiError(400, "name: must be at most 255 characters long");
  if (forbiddenInFileName(name) || name === "." || name === "..") {
    throw new ApiError(400, "name: must be a file name, without path separators or control characters");
  }
}

export const handlers: Handlers = {
  createPart(ctx) {
    const part = ctx.store.createPart(ctx.org.id, ctx.body);
    return JSON.stringify({ id: part.id, partUrl: `${ctx.baseUrl}/v1/parts/${encodeURIComponent(part.id)}` });
  },

  getPart(ctx) {
    const id = param(ctx, "id");
    const json = ctx.store.partJsonFor(id, ctx.org.id);
    if (json === undefined) throw new ApiError(404, `part ${quote(id)} not found`);
    return json;
  },

  /**
   * List Parts. Views, for a caller of organisation O:
   * - IP_OWNER: the parts whose IP O owns (ipOwnerId = O), published or not, internal or not.
   * - CONSUMER: the parts of the other organisations that are published and not internal: the
   *   catalogue O can source from. O's own parts are never in it.
   * - no view: everything O may see, which is exactly IP_OWNER ∪ CONSUMER (disjoint).
   * Order: creation time, then id. Defaults: page 1, pageSize 20. A page past the end is empty
   * with hasMore false; hasMore is true exactly when items exist after this page.
   */
  listParts(ctx) {
    const { page = 1, pageSize = DEFAULT_PAGE_SIZE, view } = ctx.query;
    return ctx.store.listPartsJson(ctx.org.id, view, page, pageSize);
  },

  importPartFile(ctx) {
    const partId = param(ctx, "partId");
    checkFileName(ctx.body.name);
    const location = checkSasUrl(ctx.body.sasUrl);
    const file = ctx.store.importFile(ctx.org.id, partId, ctx.body.name, location);
    return JSON.stringify({ fileId: file.fileId });
  },

  /** An RFQ is visible when its part is: the RFQ of a part the caller may not see answers 404. */
  getRfq(ctx) {
    const id = param(ctx, "id");
    const json = ctx.store.rfqJsonFor(id, ctx.org.id);
    if (json === undefined) throw new ApiError(404, `RFQ ${quote(id)} not found`);
    return json;
  },

  /** Factories and reference data are the same for every organisation. */
  getFactory: (ctx) => one("factory", param(ctx, "id"), ctx.store.json.factories),
  getProcess: (ctx) => one("process", param(ctx, "code"), ctx.store.json.processes),
  getMaterial: (ctx) => one("material", param(ctx, "code"), ctx.store.json.materials),
  getStandard: (ctx) => one("standard", param(ctx, "code"), ctx.store.json.standards),
  getCriticality: (ctx) => one("criticality", param(ctx, "id"), ctx.store.json.criticalities),

  /** governingBody matches case-insensitively; materialType exactly (it is an enum). */
  listStandards(ctx) {
    const body = ctx.query.governingBody?.toLowerCase();
    const { materialType } = ctx.query;
    const items: string[] = [];
    for (const { record, json } of ctx.store.json.standards.values()) {
      if (body !== undefined && record.governingBody?.toLowerCase() !== body) continue;
      if (materialType !== undefined && record.materialType !== materialType) continue;
      items.push(json);
    }
    return `{"items":[${items.join(",")}]}`;
  },

  batchGetStandards: (ctx) => batch("codes", ctx.body.codes, ctx.store.json.standards),
  batchGetCriticalities: (ctx) => batch("ids", ctx.body.ids, ctx.store.json.criticalities),
  batchGetCategories: (ctx) => batch("ids", ctx.body.ids, ctx.store.json.categories),
};
