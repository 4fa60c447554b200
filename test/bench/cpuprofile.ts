// Reads a V8 .cpuprofile (node --cpu-prof) and says where the time went: self time per source
// module (bundle positions mapped back through the bundle's source map) and per function.
import { readFileSync } from "node:fs";
import { SourceMap } from "node:module";
import { fileURLToPath } from "node:url";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

export interface ProfileSummary {
  totalMs: number;
  /** Self time per module (package for node_modules, file for our sources, "(v8)" entries). */
  byModule: [string, number][];
  byFunction: [string, number][];
}

/** `node_modules/<pkg>/...` → the package (with a hint of the sub-path); our files as they are. */
export function moduleOf(source: string): string {
  const match = /node_modules\/((?:@[^/]+\/)?[^/]+)\/(.*)$/.exec(source);
  if (!match) return source.replace(/^(\.\.\/)+/, "");
  const [, pkg, rest = ""] = match;
  if (pkg === "zod") return `zod/${rest.split("/").slice(0, 3).join("/")}`;
  if (pkg?.startsWith("@modelcontextprotocol/"))
    return `${pkg.slice("@modelcontextprotocol/".length)}/${rest.replace(/^dist\//, "")}`;
  if (pkg === "undici") return `undici/${rest.split("/").slice(0, 2).join("/")}`;
  return pkg as string;
}

export function summarizeProfile(path: string, opts: { from?: number; until?: number } = {}): ProfileSummary {
  const profile = JSON.parse(readFileSync(path, "utf8")) as CpuProfile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const maps = new Map<string, SourceMap | null>();
  const sourceMapOf = (url: string): SourceMap | null => {
    if (!maps.has(url)) {
      let map: SourceMap | null = null;
      try {
        const file = url.startsWith("file:") ? fileURLToPath(url) : url;
        map = new SourceMap(JSON.parse(readFileSync(`${file}.map`, "utf8")));
      } catch {
        map = null;
      }
      maps.set(url, map);
    }
    return maps.get(url) ?? null;
  };
  const where = new Map<number, { module: string; fn: string }>();
  const locate = (node: ProfileNode) => {
    let found = where.get(node.id);
    if (found) return found;
    const { functionName, url, lineNumber, columnNumber } = node.callFrame;
    const fn = functionName || "(anonymous)";
    if (!url) {
      found = { module: fn.startsWith("(") ? fn : `(native) ${fn}`, fn };
    } else if (url.startsWith("node:")) {
      found = { module: "node: internals", fn: `${fn} ${url}` };
    } else {
      const map = sourceMapOf(url);
      const entry = map?.findEntry(lineNumber, columnNumber) as { originalSource?: string } | undefined;
      const source = entry?.originalSource ?? url;
      const module = moduleOf(source);
      found = { module, fn: `${fn} (${module})` };
    }
    where.set(node.id, found);
    return found;
  };
  const moduleMs = new Map<string, number>();
  const fnMs = new Map<string, number>();
  let t = profile.startTime;
  let total = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    const delta = profile.timeDeltas[i] ?? 0;
    t += delta;
    const rel = (t - profile.startTime) / 1000;
    if (opts.from !== undefined && rel < opts.from) continue;
    if (opts.until !== undefined && rel > opts.until) break;
    const node = byId.get(profile.samples[i] as number);
    if (!node) continue;
    const ms = delta / 1000;
    total += ms;
    const { module, fn } = locate(node);
    moduleMs.set(module, (moduleMs.get(module) ?? 0) + ms);
    fnMs.set(fn, (fnMs.get(fn) ?? 0) + ms);
  }
  const sorted = (m: Map<string, number>) => [...m.entries()].sort((a, b) => b[1] - a[1]);
  return { totalMs: total, byModule: sorted(moduleMs), byFunction: sorted(fnMs) };
}

export function formatProfile(summary: ProfileSummary, top = 20): string {
  const pct = (v: number) => `${((100 * v) / summary.totalMs).toFixed(1)}%`;
  const lines = [`sampled ${summary.totalMs.toFixed(1)} ms`, "  self time by module:"];
  for (const [name, v] of summary.byModule.slice(0, top))
    lines.push(`    ${v.toFixed(1).padStart(7)} ms ${pct(v).padStart(6)}  ${name}`);
  lines.push("  self time by function:");
  for (const [name, v] of summary.byFunction.slice(0, top))
    lines.push(`    ${v.toFixed(1).padStart(7)} ms ${pct(v).padStart(6)}  ${name}`);
  return lines.join("\n");
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].replace(/^.*\//, "/"))) {
  for (const file of process.argv.slice(2))
    console.log(`${file}\n${formatProfile(summarizeProfile(file), 30)}`);
}
