// 11. The MCP Apps view documents (issue 17): which document each tool links (from tools/list
// of parts-mcp as mcp.json starts it), each document's size as the server serves it
// (resources/read), and how much of it is ours: scripts/build-ui.mjs builds the same document in
// memory and splits its bytes into our sources, styles and HTML, and ext-apps' App runtime with its
// dependencies. Target: ours ≤ 50 KiB.
import { gzipSync } from "node:zlib";
// @ts-expect-error: a plain ESM script without types
import { buildViewDocument as buildUntyped } from "../../scripts/build-ui.mjs";
import type { TestApi } from "../../src/embedded/testing";
import { checkTarget, externalApiEnv, oursSpec, type Report } from "./lib";
import { RpcSession } from "./rpc";

/** The view document in bytes: all of it, ours (sources, styles, HTML) and ext-apps' runtime. */
const buildViewDocument = buildUntyped as () => Promise<{
  html: string;
  total: number;
  ours: number;
  runtime: number;
}>;

const SECTION = "11 views";
const KiB = 1024;
const kib = (bytes: number) => `${(bytes / KiB).toFixed(1)} KiB`;

interface ListedTool {
  name: string;
  _meta?: { ui?: { resourceUri?: string } };
}

export async function benchViews(report: Report, api: TestApi) {
  const built = await buildViewDocument();
  const server = await RpcSession.start(oursSpec(externalApiEnv(api)), "2026-07-28");
  const served = new Map<string, { tools: string[]; bytes?: number; same?: boolean; error?: string }>();
  try {
    const list = await server.request("tools/list");
    for (const tool of (list.result?.tools ?? []) as ListedTool[]) {
      const uri = tool._meta?.ui?.resourceUri;
      if (!uri) continue;
      const entry = served.get(uri) ?? { tools: [] };
      entry.tools.push(tool.name);
      served.set(uri, entry);
    }
    for (const [uri, entry] of served) {
      const read = await server.request("resources/read", { uri });
      const text = (read.result?.contents as { text?: string }[] | undefined)?.[0]?.text;
      if (text === undefined) {
        entry.error = read.error?.message ?? "no text content";
        continue;
      }
      entry.bytes = Buffer.byteLength(text);
      entry.same = text === built.html;
    }
  } finally {
    await server.close();
  }

  for (const [uri, entry] of served) {
    report.rows.push({
      section: SECTION,
      name: `${uri} (${entry.tools.join(", ")})`,
      value:
        entry.bytes === undefined
          ? `not served: ${entry.error}`
          : `${kib(entry.bytes)} served (gzip ${kib(gzipSync(built.html).length)}); ${entry.same ? "the same bytes scripts/build-ui.mjs builds" : "DIFFERS from what scripts/build-ui.mjs builds now (dist/ui stale?)"}`,
      how: "resources/read through parts-mcp (2026 era); the tools that link it from tools/list _meta.ui.resourceUri",
    });
  }
  if (served.size === 0) {
    report.rows.push({
      section: SECTION,
      name: "view documents linked from tools/list",
      value: "none",
      how: "no tool in tools/list carries _meta.ui.resourceUri",
    });
  }
  report.rows.push({
    section: SECTION,
    name: "view document: ours / runtime",
    value: `ours ${kib(built.ours)} (${Math.round((100 * built.ours) / built.total)}%), ext-apps App runtime and dependencies ${kib(built.runtime)}, total ${kib(built.total)}`,
    how: "scripts/build-ui.mjs buildViewDocument(): esbuild's metafile bytes of inputs outside node_modules, plus the HTML and CSS around the script",
  });
  report.data.views = {
    total: built.total,
    ours: built.ours,
    runtime: built.runtime,
    gzip: gzipSync(built.html).length,
    served: Object.fromEntries(served),
  };
  checkTarget(report, "views: our code in the view document", built.ours / KiB, 50, "KiB");
}
