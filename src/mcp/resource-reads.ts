// resources/read, answered here instead of by the SDK's own handler, so that an address matching
// no resource gets an answer that names the addresses there are and the one most likely meant.
// The SDK's McpServer has no hook for that case (its handler throws a bare "Resource not found"
// and offers no public way to wrap it), so this handler takes resources/read over and reads each
// resource through the public callback `registerResource` returned, as the SDK's would: a static
// address first, then the templates in the order registered, each result with its resource's
// cache hint on a 2026-07-28 connection (the fields a handler may set itself).
import {
  type McpServer,
  ProtocolError,
  ProtocolErrorCode,
  type ReadResourceResult,
  type RegisteredResource,
  type RegisteredResourceTemplate,
  ResourceNotFoundError,
  type ServerContext,
} from "@modelcontextprotocol/server";

/** One registered resource or template, with the address it was registered under. */
export interface Readable {
  address: string;
  registered: RegisteredResource | RegisteredResourceTemplate;
}

/** The first protocol revision whose results carry cache fields. */
const CACHE_FIELDS_SINCE = "2026-07-28";

/** Makes `server` answer resources/read for `readables`; `explain(uri)` says why a URI matches none. */
export function answerResourceReads(
  server: McpServer,
  readables: readonly Readable[],
  explain: (uri: string) => string,
): void {
  server.server.setRequestHandler("resources/read", async (request, ctx) => {
    const asked = request.params.uri;
    const uri = parseUri(asked);
    const { registered, result } = await read(readables, uri, ctx, asked, explain);
    const version = server.server.getNegotiatedProtocolVersion();
    const hint = registered.cacheHint;
    if (!hint || version === undefined || version < CACHE_FIELDS_SINCE) return result;
    return { ...result, ...hint, ...pickCacheFields(result) };
  });
}

async function read(
  readables: readonly Readable[],
  uri: URL,
  ctx: ServerContext,
  asked: string,
  explain: (uri: string) => string,
): Promise<{ registered: Readable["registered"]; result: ReadResourceResult }> {
  const href = uri.toString();
  for (const { address, registered } of readables) {
    if ("resourceTemplate" in registered || new URL(address).toString() !== href) continue;
    return { registered, result: (await registered.readCallback(uri, ctx)) as ReadResourceResult };
  }
  for (const { registered } of readables) {
    if (!("resourceTemplate" in registered)) continue;
    const variables = registered.resourceTemplate.uriTemplate.match(href);
    if (!variables) continue;
    return { registered, result: (await registered.readCallback(uri, variables, ctx)) as ReadResourceResult };
  }
  throw new ResourceNotFoundError(asked, explain(asked));
}

function parseUri(asked: string): URL {
  try {
    return new URL(asked);
  } catch {
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Resource URI ${asked} is invalid`, {
      uri: asked,
      reason: "invalid_uri",
    });
  }
}

/** Cache fields a callback set itself: they win over its resource's hint. */
function pickCacheFields(result: ReadResourceResult): Record<string, unknown> {
  const own = result as Record<string, unknown>;
  return {
    ...(own.ttlMs !== undefined && { ttlMs: own.ttlMs }),
    ...(own.cacheScope !== undefined && { cacheScope: own.cacheScope }),
  };
}
