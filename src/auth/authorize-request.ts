// What an authorization request may carry before oidc-provider stores it (each request becomes an
// interaction record until it expires): a query of at most 4 KB, a `state` of at most 1,024
// characters (hosts send 20 to 100) and no other parameter over 2,048; and `scope` when it is
// missing, parts:read.
import { SCOPES } from "./provider";

const MAX_QUERY_BYTES = 4 * 1024;
const MAX_STATE_CHARS = 1_024;
const MAX_PARAM_CHARS = 2_048;

/** Why the query `search` (with its `?`) is refused, in words for the person; else undefined. */
export function authorizationProblem(search: string): string | undefined {
  for (const [name, value] of new URLSearchParams(search)) {
    const max = name === "state" ? MAX_STATE_CHARS : MAX_PARAM_CHARS;
    if (value.length > max) {
      const named = /^[a-z_]{1,40}$/.test(name) ? `The ${name} parameter` : "A parameter";
      return `${named} of the authorization request is longer than ${max} characters. Go back to your assistant and connect again; if this repeats, tell its makers.`;
    }
  }
  if (Buffer.byteLength(search) > MAX_QUERY_BYTES) {
    return `The authorization request is longer than ${MAX_QUERY_BYTES} bytes. Go back to your assistant and connect again; if this repeats, tell its makers.`;
  }
  return undefined;
}

/** An authorization request without `scope` asks for parts:read. */
export function withDefaultScope(url: string): string {
  const parsed = new URL(url, "http://x");
  if (parsed.searchParams.has("scope")) return url;
  parsed.searchParams.set("scope", SCOPES.read);
  return `${parsed.pathname}${parsed.search}`;
}
