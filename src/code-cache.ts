// How this process's code was compiled, as the launcher (src/launch.ts) found it, for the ready
// line on stderr: a slow start is then explained where an operator looks first.

/** Where the launcher leaves its finding; the bundle reads it (both are built from this module). */
export const CODE_CACHE_STATE = Symbol.for("parts-mcp.codeCache");

export type CodeCacheState = "used" | "rejected" | "absent";

/** The launcher's finding in words; "absent" also when the server runs from source (tests). */
export function describeCodeCache(): string {
  const state = (globalThis as Record<symbol, CodeCacheState | undefined>)[CODE_CACHE_STATE] ?? "absent";
  if (state === "used") return "used";
  if (state === "rejected") {
    return "not used: it was made for other V8 flags or another Node; start the server as mcp.json does, or run npm run build again";
  }
  return "none: compiled from source";
}
