// The 14 endpoints of the API, with the wire decisions of ../shared/spec/decisions.md for what the
// specification leaves open. The embedded API routes by this table, its OpenAPI document is
// generated from it, and the client calls through it: a change here is a change everywhere.
import { z } from "zod";
import {
  Category,
  CreatePartBody,
  CreatePartResult,
  Criticality,
  Factory,
  ImportFileBody,
  ImportFileResult,
  itemsOf,
  Material,
  MaterialType,
  Part,
  PartList,
  PartView,
  Process,
  Rfq,
  Standard,
} from "./schemas";

export const PAGE_SIZE_MAX = 50;
/** The page size the API uses when none is sent (the specification does not say; we decided 20). */
export const PAGE_SIZE_DEFAULT = 20;

const ListPartsQuery = z.object({
  page: z.number().int().min(1).optional(),
  pageSize: z.number().int().min(1).max(PAGE_SIZE_MAX).optional(),
  view: PartView.optional(),
});

export const ListStandardsQuery = z.object({
  governingBody: z.string().min(1).optional(),
  materialType: MaterialType.optional(),
});

const BatchCodesBody = z.object({ codes: z.array(z.string().min(1)) });
const BatchIdsBody = z.object({ ids: z.array(z.string().min(1)) });

export interface Endpoint {
  method: "GET" | "POST";
  /** Path template; `{name}` is one percent-encoded path segment. */
  path: string;
  summary: string;
  /** Whether a retry can never change state: every GET and the read-only `:batch-get` POSTs. */
  idempotent: boolean;
  query?: z.ZodObject;
  body?: z.ZodObject;
  response: z.ZodObject;
}

export const endpoints = {
  createPart: {
    method: "POST",
    path: "/v1/parts",
    summary: "Create a part",
    idempotent: false,
    body: CreatePartBody,
    response: CreatePartResult,
  },
  getPart: { method: "GET", path: "/v1/parts/{id}", summary: "Get a part", idempotent: true, response: Part },
  listParts: {
    method: "GET",
    path: "/v1/parts",
    summary: "List parts, page by page",
    idempotent: true,
    query: ListPartsQuery,
    response: PartList,
  },
  importPartFile: {
    method: "POST",
    path: "/v1/parts/{partId}/import-file",
    summary: "Attach an externally hosted file to a part",
    idempotent: false,
    body: ImportFileBody,
    response: ImportFileResult,
  },
  getRfq: { method: "GET", path: "/v1/rfqs/{id}", summary: "Get an RFQ", idempotent: true, response: Rfq },
  getFactory: {
    method: "GET",
    path: "/v1/factories/{id}",
    summary: "Get a factory",
    idempotent: true,
    response: Factory,
  },
  getProcess: {
    method: "GET",
    path: "/v1/processes/{code}",
    summary: "Get a process",
    idempotent: true,
    response: Process,
  },
  getMaterial: {
    method: "GET",
    path: "/v1/materials/{code}",
    summary: "Get a material",
    idempotent: true,
    response: Material,
  },
  listStandards: {
    method: "GET",
    path: "/v1/standards",
    summary: "List standards",
    idempotent: true,
    query: ListStandardsQuery,
    response: itemsOf(Standard),
  },
  getStandard: {
    method: "GET",
    path: "/v1/standards/{code}",
    summary: "Get a standard",
    idempotent: true,
    response: Standard,
  },
  batchGetStandards: {
    method: "POST",
    path: "/v1/standards:batch-get",
    summary: "Get several standards",
    idempotent: true,
    body: BatchCodesBody,
    response: itemsOf(Standard),
  },
  getCriticality: {
    method: "GET",
    path: "/v1/criticalities/{id}",
    summary: "Get a criticality",
    idempotent: true,
    response: Criticality,
  },
  batchGetCriticalities: {
    method: "POST",
    path: "/v1/criticalities:batch-get",
    summary: "Get several criticalities",
    idempotent: true,
    body: BatchIdsBody,
    response: itemsOf(Criticality),
  },
  batchGetCategories: {
    method: "POST",
    path: "/v1/categories:batch-get",
    summary: "Get several categories",
    idempotent: true,
    body: BatchIdsBody,
    response: itemsOf(Category),
  },
} as const satisfies Record<string, Endpoint>;

export type Endpoints = typeof endpoints;
export type EndpointName = keyof Endpoints;

/** An endpoint's query or body, as a client writes it (`"input"`) or a server reads it (`"output"`). */
export type EndpointQuery<N extends EndpointName, IO extends "input" | "output"> = Endpoints[N] extends {
  query: infer Q extends z.ZodType;
}
  ? IO extends "input"
    ? z.input<Q>
    : z.output<Q>
  : undefined;
export type EndpointBody<N extends EndpointName, IO extends "input" | "output"> = Endpoints[N] extends {
  body: infer B extends z.ZodType;
}
  ? IO extends "input"
    ? z.input<B>
    : z.output<B>
  : undefined;

/** The names of a path template's parameters, in order: `/v1/parts/{partId}/x` gives `["partId"]`. */
export function pathParams(template: string): string[] {
  return [...template.matchAll(/\{(\w+)\}/g)].map((m) => m[1] as string);
}

/**
 * Fills a path template. Each value becomes exactly one path segment: percent-encoded, and a
 * segment of dots is encoded too, so that no id can climb (`..`), add a segment (`/`) or a query.
 */
export function expandPath(template: string, params: Record<string, string>): string {
  const pieces = templatePieces(template);
  let path = pieces[0] as string;
  for (let i = 1; i < pieces.length; i += 2) {
    const name = pieces[i] as string;
    const value = params[name];
    if (value === undefined) throw new Error(`missing path parameter ${name}`);
    const encoded = encodeURIComponent(value);
    path += (/^\.+$/.test(value) ? encoded.replaceAll(".", "%2E") : encoded) + pieces[i + 1];
  }
  return path;
}

/** A template split once: its text and the names between, `["/v1/parts/", "id", ""]`. */
const piecesOf = new Map<string, string[]>();
function templatePieces(template: string): string[] {
  let pieces = piecesOf.get(template);
  if (!pieces) {
    pieces = template.split(/\{(\w+)\}/);
    piecesOf.set(template, pieces);
  }
  return pieces;
}
