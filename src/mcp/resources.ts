// Records an assistant reads often, as `parts://` resources a client can attach as context. Each
// template reads through the tool that returns the same record (its handler, input rules and
// not-found hint), so a resource exists only when its tool is selected and says nothing the tool
// does not. Each template completes its argument from what this token has been shown.

import {
  type CacheHint,
  type McpServer,
  ProtocolError,
  ProtocolErrorCode,
  type ReadResourceResult,
  ResourceNotFoundError,
  ResourceTemplate,
  type ServerContext,
  UriTemplate,
} from "@modelcontextprotocol/server";
import { KINDS, type KnownKind, resourceUri } from "../api/kinds";
import { rankRecords } from "../search";
import { editDistance } from "../search/match";
import { escapeInvisible } from "../text/gate";
import type { Readable } from "./resource-reads";
import type { RequestScope } from "./scope";

const MIME = "application/json";

interface TemplateSpec {
  kind: KnownKind;
  title: string;
  description: string;
  /** The tool that reads one record, and its arguments for this id. */
  tool: string;
  args(id: string): Record<string, unknown>;
  /** The record in the tool's result (a batch tool's first item), or undefined when it is missing. */
  pick?(result: unknown): unknown;
  /** Records that change (parts, RFQs) are not cached by clients; reference records as long as here. */
  changes?: boolean;
}

const TEMPLATES: readonly TemplateSpec[] = [
  {
    kind: "process",
    title: "Process",
    description: "A manufacturing process, by code",
    tool: "get_process",
    args: (code) => ({ code }),
  },
  {
    kind: "material",
    title: "Material",
    description: "A material, by code",
    tool: "get_material",
    args: (code) => ({ code }),
  },
  {
    kind: "standard",
    title: "Standard",
    description: "A standard, by code",
    tool: "get_standard",
    args: (code) => ({ code }),
  },
  {
    kind: "criticality",
    title: "Criticality",
    description: "A criticality, by id",
    tool: "get_criticality",
    args: (id) => ({ id }),
  },
  {
    kind: "category",
    title: "Category",
    description: "A category with its parent, by id",
    tool: "batch_get_categories",
    args: (id) => ({ ids: [id] }),
    pick: (result) => (result as { items: unknown[] }).items[0],
  },
  {
    kind: "part",
    title: "Part",
    description: "A part, by id",
    tool: "get_part",
    args: (id) => ({ id }),
    changes: true,
  },
  {
    kind: "rfq",
    title: "RFQ",
    description: "A request for quotation, by id",
    tool: "get_rfq",
    args: (id) => ({ id }),
    changes: true,
  },
  {
    kind: "factory",
    title: "Factory",
    description: "A factory, by id",
    tool: "get_factory",
    args: (id) => ({ id }),
    changes: true,
  },
];

/** Each template's address, parsed once for every server instance (HTTP builds one per request). */
const PARSED = Object.fromEntries(
  TEMPLATES.map((spec) => {
    const { collection, key } = KINDS[spec.kind];
    const address = `parts://${collection}/{${key}}`;
    return [spec.kind, { address, uriTemplate: new UriTemplate(address) }];
  }),
) as Record<KnownKind, { address: string; uriTemplate: UriTemplate }>;

/** Registers the records' resources; returns them with their addresses (`parts://standards`, `parts://parts/{id}`…). */
export function registerResources(server: McpServer, scope: RequestScope): Readable[] {
  const { reference, catalogue } = scope;
  const readables: Readable[] = [];
  const referenceHint: CacheHint = { ttlMs: scope.cacheTtlMs, cacheScope: "private" };

  if (catalogue.has("list_standards")) {
    const registered = server.registerResource(
      "standards",
      "parts://standards",
      {
        title: "Standards",
        description: "Every standard, with governing body and material type",
        mimeType: MIME,
        cacheHint: referenceHint,
      },
      async (uri, ctx) => json(uri.href, await readThrough(scope, "list_standards", {}, uri.href, ctx)),
    );
    readables.push({ address: "parts://standards", registered });
  }

  for (const spec of TEMPLATES) {
    const entry = catalogue.get(spec.tool);
    if (!entry) continue;
    const variable = KINDS[spec.kind].key;
    const { address, uriTemplate } = PARSED[spec.kind];
    const template = new ResourceTemplate(uriTemplate, {
      list:
        spec.kind === "standard" && catalogue.has("list_standards")
          ? async (ctx) => ({
              resources: (await reference.standards({}, scope.callOptions(ctx))).map((standard) => ({
                uri: resourceUri("standard", standard.code),
                name: standard.code,
                title: `${standard.code}: ${standard.name}`,
                mimeType: MIME,
              })),
            })
          : undefined,
      complete: { [variable]: (value: string) => complete(value, () => known(spec.kind)) },
    });
    const registered = server.registerResource(
      spec.kind,
      template,
      {
        title: spec.title,
        description: spec.description,
        mimeType: MIME,
        cacheHint: spec.changes ? { ttlMs: 0, cacheScope: "private" } : referenceHint,
      },
      async (uri, variables, ctx) => {
        const id = decodeVariable(variables[variable], uri.href);
        const result = await readThrough(scope, spec.tool, spec.args(id), uri.href, ctx);
        const record = spec.pick ? spec.pick(result) : result;
        if (record === undefined) {
          // A batch read answers a missing record with no 404: the closest ones are looked up here.
          const closest = await scope.suggest(spec.kind, id, scope.callOptions(ctx));
          throw notFound(uri.href, spec.title, id, `${entry.tool.notFound}${closest ? ` ${closest}` : ""}`);
        }
        return json(uri.href, record);
      },
    );
    readables.push({ address, registered });
  }

  return readables;

  async function known(kind: KnownKind): Promise<string[]> {
    const call = scope.callOptions();
    if (kind === "part" || kind === "rfq" || kind === "factory") return scope.seen.known(kind, call);
    if (kind !== "standard")
      return [...new Set([...scope.seen.known(kind, call), ...(await scope.knownCodes(kind, call))])];
    const listed = await reference.standards({}, call).catch(() => []);
    return [...new Set([...listed.map((standard) => standard.code), ...scope.seen.known(kind, call)])];
  }
}

/** A URI longer than this is shown cut short, and gets no suggestion. */
const SHOWN_URI_CHARS = 200;

/** Text from the request as an answer quotes it: escaped, and cut short. */
const shown = (text: string) =>
  escapeInvisible(text.length > SHOWN_URI_CHARS ? `${text.slice(0, SHOWN_URI_CHARS)}…` : text);

/** What a URI matching no address gets: the addresses there are, and the closest to what was asked. */
export function unknownAddress(uri: string, addresses: readonly string[]): string {
  const lines = [
    `No resource has the address ${shown(uri)}. Addresses: ${addresses.join(", ")} (resources/list and resources/templates/list describe them).`,
  ];
  const closest = uri.length > SHOWN_URI_CHARS ? undefined : closestAddress(uri, addresses);
  if (closest?.nested) lines.push('An id or code is one path segment: write a "/" in it as %2F.');
  if (closest) lines.push(`Did you mean ${escapeInvisible(closest.uri)}?`);
  return lines.join(" ");
}

/**
 * The address `uri` most likely meant (scheme and collection compared without case, a query or
 * fragment dropped): a template's collection misspelt (`parts://part/P-1`), an id with an
 * unencoded "/" (`parts://parts/P-1/x`; a trailing one dropped), filled with the rest of the URI, or no id at all
 * (`parts://parts`: the template itself); a fixed address a few characters off
 * (`parts://standard`) or one path segment off (a view URI of another version).
 */
function closestAddress(
  uri: string,
  addresses: readonly string[],
): { uri: string; nested: boolean } | undefined {
  let best: { uri: string; nested: boolean; distance: number } | undefined;
  const consider = (candidate: string, distance: number, nested = false) => {
    if (candidate !== uri && (best === undefined || distance < best.distance))
      best = { uri: candidate, nested, distance };
  };
  const bare = uri.replace(/[?#].*$/s, "");
  const [, origin = "", path = ""] = /^([a-z][a-z0-9+.-]*:\/\/[^/]*)\/?(.*)$/is.exec(bare) ?? [];
  // A trailing "/" closes a path (parts://parts/P-1/) rather than being part of an id.
  const rest = path.replace(/\/+$/, "");
  for (const address of addresses) {
    const variable = address.indexOf("{");
    if (variable === -1) {
      const distance = editDistance(bare.toLowerCase(), address.toLowerCase(), 3);
      if (distance <= 3) consider(address, distance);
      else if (segmentsApart(bare, address) === 1) consider(address, 3);
      continue;
    }
    const templateOrigin = address.slice(0, variable - 1);
    const distance = editDistance(origin.toLowerCase(), templateOrigin, 2);
    if (origin === "" || distance > 2) continue;
    if (rest === "") consider(address, distance);
    else consider(`${templateOrigin}/${encodeURIComponent(safeDecode(rest))}`, distance, rest.includes("/"));
  }
  return best && { uri: best.uri, nested: best.nested };
}

/** How many path segments two URIs of as many segments differ in; Infinity for other shapes. */
function segmentsApart(a: string, b: string): number {
  const left = a.split("/");
  const right = b.split("/");
  if (left.length !== right.length) return Number.POSITIVE_INFINITY;
  return left.filter((segment, i) => segment.toLowerCase() !== right[i]?.toLowerCase()).length;
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/**
 * A resource read is its tool's call (scope.run: the same input rules, hints and did-you-mean):
 * an id the tool would refuse is Invalid Params, a 404 is "not found" with the tool's words,
 * any other failure the tool's own message.
 */
async function readThrough(
  scope: RequestScope,
  name: string,
  args: Record<string, unknown>,
  uri: string,
  ctx: ServerContext,
): Promise<unknown> {
  const entry = scope.catalogue.get(name);
  if (!entry) throw new ResourceNotFoundError(uri);
  const outcome = await scope.run(entry, args, ctx);
  if (outcome.ok) return outcome.data;
  if (outcome.invalid) {
    throw new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      `${uri} is not a valid address. ${outcome.message}`,
      { uri },
    );
  }
  if (outcome.status === 404) throw new ResourceNotFoundError(uri, outcome.message);
  throw new ProtocolError(ProtocolErrorCode.InternalError, outcome.message, { uri });
}

function notFound(uri: string, title: string, id: string, hint: string): ResourceNotFoundError {
  return new ResourceNotFoundError(uri, `${title} "${id}" was not found. ${hint}`);
}

/**
 * The candidates that match what was typed the way search_reference matches codes (case, spacing,
 * punctuation and an edition year ignored; a fragment anywhere: "f3001", "ams4928"), best first;
 * the SDK keeps the first 100 and sets hasMore.
 */
export async function complete<T extends string>(
  value: string,
  candidates: () => T[] | Promise<T[]>,
): Promise<T[]> {
  return rankRecords((await candidates()).slice(-MAX_COMPLETION_CANDIDATES), value, asKey);
}

/**
 * Candidates a completion compares, at most: the most recently seen (lists end with them), so
 * that its cost is bounded whatever the server has been shown.
 */
const MAX_COMPLETION_CANDIDATES = 2_000;

/** A completion candidate as matching compares it: one function, so its foldings are kept. */
const asKey = (candidate: string) => ({ keys: [candidate], names: [] });

function decodeVariable(value: string | string[] | undefined, uri: string): string {
  const raw = Array.isArray(value) ? value.join(",") : (value ?? "");
  try {
    return decodeURIComponent(raw);
  } catch {
    throw new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      `"${shown(raw)}" is not a valid percent-encoded value: write each byte as %XX, e.g. a space as %20.`,
      { uri },
    );
  }
}

function json(uri: string, data: unknown): ReadResourceResult {
  return { contents: [{ uri, mimeType: MIME, text: escapeInvisible(JSON.stringify(data)) }] };
}
