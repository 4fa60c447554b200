// Fetching what a client publishes about itself (its Client ID Metadata Document, its JWKS):
// https only, never a private or loopback address unless the host is trusted
// (PARTS_MCP_OAUTH_TRUSTED_CLIENT_HOSTS; oidc-provider's own dispatcher refuses special-use
// addresses for every other host), no redirects, bounded in time and size. A metadata document
// keeps only the grant types this server supports, so a document that also lists others
// (Claude's lists the JWT bearer grant) is accepted, and no `scope` cap.

/** Larger documents are refused before they are parsed. */
export const MAX_CLIENT_DOCUMENT_BYTES = 16 * 1024;
const FETCH_TIMEOUT_MS = 5_000;
const GRANT_TYPES = new Set(["authorization_code", "refresh_token"]);

type FetchOptions = RequestInit & { dispatcher?: unknown };

export function clientFetch(trustedHosts: readonly string[]) {
  const trusted = new Set(trustedHosts);
  return async (url: URL | string, options: FetchOptions): Promise<Response> => {
    const target = new URL(url);
    if (target.protocol !== "https:") throw new Error("client documents are fetched over https only");
    const init: FetchOptions = { ...options, redirect: "manual" };
    init.signal = AbortSignal.any([
      AbortSignal.timeout(FETCH_TIMEOUT_MS),
      ...(options.signal ? [options.signal] : []),
    ]);
    // The default dispatcher connects to private addresses; only for a host the operator trusts.
    if (trusted.has(target.hostname.toLowerCase())) delete init.dispatcher;
    const response = await fetch(target, init as RequestInit);
    if (response.status !== 200) return response;
    const body = await readLimited(response);
    return new Response(keepSupported(body, target.href), { status: 200, headers: response.headers });
  };
}

async function readLimited(response: Response): Promise<string> {
  const declared = Number(response.headers.get("content-length") ?? 0);
  if (declared > MAX_CLIENT_DOCUMENT_BYTES || response.body === null) {
    await response.body?.cancel();
    throw new Error(`client document larger than ${MAX_CLIENT_DOCUMENT_BYTES} bytes`);
  }
  const chunks: Uint8Array[] = [];
  let received = 0;
  for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
    received += chunk.length;
    if (received > MAX_CLIENT_DOCUMENT_BYTES) {
      await response.body.cancel().catch(() => {});
      throw new Error(`client document larger than ${MAX_CLIENT_DOCUMENT_BYTES} bytes`);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/** A metadata document (its client_id is its own URL) without the grant types we do not serve. */
function keepSupported(body: string, url: string): string {
  let document: unknown;
  try {
    document = JSON.parse(body);
  } catch {
    return body;
  }
  if (
    typeof document !== "object" ||
    document === null ||
    (document as { client_id?: unknown }).client_id !== url
  ) {
    return body;
  }
  return JSON.stringify(servedMetadata(document as Record<string, unknown>));
}

/**
 * Client metadata (registered, or fetched as a document) without the grant types this server does
 * not serve and without `scope`: registration does not cap the scopes a person may grant later
 * (step-up to parts:write).
 */
export function servedMetadata(metadata: Record<string, unknown>): Record<string, unknown> {
  if (Array.isArray(metadata.grant_types)) {
    metadata.grant_types = metadata.grant_types.filter((type) => GRANT_TYPES.has(type as string));
  }
  delete metadata.scope;
  return metadata;
}
