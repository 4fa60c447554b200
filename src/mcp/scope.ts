// What one server instance is given (ServerOptions) and what its tools, resources and prompts
// share for a request (RequestScope): the client, the caches, a fresh deadline per call, the words
// for a failure and the did-you-mean of an unknown code. The tool loop itself is run-tool.ts.
import { setMaxListeners } from "node:events";
import type { ServerContext } from "@modelcontextprotocol/server";
import type { ResourceRef } from "../../tools/define";
import type { KnownKind, ReferenceKind } from "../api/kinds";
import { type CallOptions, createDeadline, type PartsApiClient } from "../client";
import type { ConfirmSecrets } from "../confirm/state";
import type { ReferenceData } from "../data/reference";
import type { SeenRecords } from "../data/seen";
import type { Logger } from "../log/logger";
import type { PartSearch } from "../search";
import type { Catalogue, CatalogueEntry } from "./catalogue";
import { findPartAdvice, type ServingMode, toolErrorMessage } from "./messages";

export interface Connection {
  environment: string;
  baseUrl: string;
  /** True when the upstream is the embedded sample API, not a real service. */
  embedded: boolean;
  /** The setting the base URL came from, to name in advice (PARTS_API_SANDBOX_URL, say). */
  urlSetting?: string;
}

export interface ServerOptions {
  api: PartsApiClient;
  reference: ReferenceData;
  search: PartSearch;
  seen: SeenRecords;
  catalogue: Catalogue;
  connection: Connection;
  timeoutMs: number;
  /** How long reference records are kept (the reference cache's TTL): what resources say of caching. */
  cacheTtlMs: number;
  logger: Logger;
  /** The upstream token of this server's requests, when it is not the client's own (per-user HTTP). */
  token?: string;
  /** How the server is reached, which decides where its upstream token comes from (for messages). */
  mode: ServingMode;
  /**
   * Whether the transport gates the text it writes (src/stdio/wire.ts, src/http/respond.ts), so that
   * the server need not gate each message's values first; a transport of the SDK's does not.
   */
  wireGates?: boolean;
  /** Writes a person confirms first, where the client can ask (src/confirm/); absent: off. */
  confirm?: ConfirmSecrets;
}

/** What tools, resources and prompts share for one request. */
export interface RequestScope {
  api: PartsApiClient;
  reference: ReferenceData;
  seen: SeenRecords;
  catalogue: Catalogue;
  cacheTtlMs: number;
  /** Options for the upstream calls of one request: its cancellation, a fresh deadline, the token. */
  callOptions(ctx?: { mcpReq?: { signal?: AbortSignal } }): CallOptions;
  describeFailure(error: unknown, notFound: string, idempotent?: boolean, suggestions?: string): string;
  /** Codes of a reference kind this token knows without a request (completion offers them). */
  knownCodes(kind: Exclude<ReferenceKind, "standard">, call: CallOptions): Promise<string[]>;
  /** The closest known records to a code or id nobody knows (`"x": did you mean …`), if any. */
  suggest(kind: KnownKind, unknown: string, call: CallOptions): Promise<string | undefined>;
  /** Runs a tool for the tools/call loop or a resource read: arguments checked, failures in words. */
  run(entry: CatalogueEntry, args: unknown, ctx: ServerContext): Promise<ToolOutcome>;
}

export type ToolOutcome =
  | { ok: true; data: Record<string, unknown>; links: readonly ResourceRef[] }
  | { ok: false; message: string; status?: number; invalid?: boolean };

/** The scope of one server instance, but for `run`, which the tool loop adds (run-tool.ts). */
export function createScope(options: ServerOptions): Omit<RequestScope, "run"> {
  const findPart = findPartAdvice((tool) => options.catalogue.has(tool));
  return {
    api: options.api,
    reference: options.reference,
    seen: options.seen,
    catalogue: options.catalogue,
    cacheTtlMs: options.cacheTtlMs,
    callOptions: (ctx) => {
      const signal = ctx?.mcpReq?.signal;
      // Each upstream request of a call listens to the call's signal while in flight and stops
      // when it ends (the client's tests count them). A call that fans out, such as a preview's
      // lookups with their did-you-means reading pages, passes Node's limit of 10 listeners with
      // no leak, which Node would otherwise log as one.
      if (signal) setMaxListeners(0, signal);
      return {
        deadline: createDeadline(options.timeoutMs),
        ...(signal && { signal }),
        ...(options.token !== undefined && { token: options.token }),
      };
    },
    suggest: async (kind, unknown, call) => {
      const hint = await options.search.suggest(kind, unknown, call);
      return hint ? `"${unknown}": ${hint}` : undefined;
    },
    knownCodes: (kind, call) => options.search.knownCodes(kind, call),
    describeFailure: (error, notFound, idempotent = true, suggestions) =>
      toolErrorMessage(error, {
        notFound,
        idempotent,
        ...(suggestions && { suggestions }),
        mode: options.mode,
        timeoutMs: options.timeoutMs,
        findPart,
        ...(options.connection.urlSetting && { urlSetting: options.connection.urlSetting }),
      }),
  };
}
