// How this process's code was compiled, as the launcher (src/launch.ts) found it, for the ready
// line on stderr: a slow start is then explained where an operator looks first.

/** Where the launcher leaves its finding; the bundle reads it (both are built from this module). */
export const CODE_CACHE_STATE = Symbol.for("parts-mcp.codeCache");

export interface CodeCacheFinding {
  state: "used" | "rejected" | "absent";
  /** The Node and the Node flags the build made the cache with (mcp.json's). */
  madeFor: { node: string; nodeFlags: string[] };
}

/** The launcher's finding in words; "none" also when the server runs from source (tests). */
export function describeCodeCache(): string {
  const finding = (globalThis as Record<symbol, CodeCacheFinding | undefined>)[CODE_CACHE_STATE];
  if (finding?.state === "used") return "used";
  if (finding?.state === "rejected") {
    const { node, nodeFlags } = finding.madeFor;
    const flags = (list: readonly string[]) => (list.length > 0 ? list.join(" ") : "no flags");
    return (
      `not used: it was made for Node ${node} with ${flags(nodeFlags)} (as mcp.json starts the server), ` +
      `this is Node ${process.version} with ${flags(process.execArgv)}; start the server as mcp.json does, ` +
      "or run npm run build with this Node"
    );
  }
  return "none: compiled from source";
}
