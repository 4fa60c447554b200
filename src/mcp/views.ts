// The MCP Apps views (extension `io.modelcontextprotocol/ui`): one HTML document, built by
// scripts/build-ui.mjs from ui/, serves six tools and picks its screen from each result. A tool
// links it with `_meta.ui.resourceUri` on its advertised entry; the document is the `ui://`
// resource registered here. Views only add: a client without the extension sees the same tools and
// the same results (text and structuredContent), and `PARTS_MCP_APPS=off` removes both the links
// and the resource. Every tool a view calls (describe_part, search_parts, get_part, create_part)
// is an ordinary public tool: visibility is only a hint hosts may ignore.
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { RESOURCE_MIME_TYPE } from "@modelcontextprotocol/ext-apps/server";
import type { CacheHint, McpServer } from "@modelcontextprotocol/server";
import { VERSION } from "../app/version";
import type { Readable } from "./resource-reads";

/** The tools whose results have a view, all the same document. */
export const VIEW_TOOLS: readonly string[] = [
  "describe_part",
  "search_parts",
  "get_rfq",
  "preview_part",
  "resolve_parts",
  "compare_parts",
];

/** Carries the server version, so that a host caching by URI reads the document once per version. */
export const VIEW_URI = `ui://parts-mcp/${VERSION}/parts-view.html`;

/** The document never changes for a URI: any client, or a cache shared by several, may keep it a day. */
const VIEW_CACHE_HINT: CacheHint = { ttlMs: 86_400_000, cacheScope: "public" };

/**
 * No network of its own (an empty CSP says so explicitly, as the default would), and a border from
 * the host around the card.
 */
const VIEW_META = { ui: { csp: {}, prefersBorder: true } };

/**
 * `_meta` for a tool's advertised entry: the view it links, under the stable spec's key only (the
 * flat `ui/resourceUri` of the drafts is deprecated, and every byte here is in every tools/list).
 */
export function viewMetaFor(toolName: string): Record<string, unknown> | undefined {
  if (!VIEW_TOOLS.includes(toolName)) return undefined;
  return { ui: { resourceUri: VIEW_URI } };
}

/** Registers the views' `ui://` resource on one server instance; returns it with its address. */
export function registerViews(server: McpServer): Readable {
  const registered = server.registerResource(
    "parts-view",
    VIEW_URI,
    {
      title: "Parts views",
      description:
        "Part card, search results, RFQ status, draft review, resolved list and comparison, for MCP Apps hosts",
      mimeType: RESOURCE_MIME_TYPE,
      cacheHint: VIEW_CACHE_HINT,
      _meta: VIEW_META,
    },
    async () => ({
      contents: [{ uri: VIEW_URI, mimeType: RESOURCE_MIME_TYPE, text: viewDocument(), _meta: VIEW_META }],
    }),
  );
  return { address: VIEW_URI, registered };
}

/** Where the built document is: beside the bundle (dist/parts-mcp.js), or in dist/ from source. */
const DOCUMENT_CANDIDATES = ["./ui/parts-view.html", "../../dist/ui/parts-view.html"].map((path) =>
  fileURLToPath(new URL(path, import.meta.url)),
);

let document: string | undefined;

/** The view document, read once per process on first use. */
function viewDocument(): string {
  if (document === undefined) {
    const path = DOCUMENT_CANDIDATES.find((candidate) => existsSync(candidate));
    if (!path) {
      throw new Error(
        "The views' HTML document has not been built: run `npm run build` (scripts/build-ui.mjs), or set PARTS_MCP_APPS=off.",
      );
    }
    document = readFileSync(path, "utf8");
  }
  return document;
}
