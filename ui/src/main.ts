// The one view document of parts-mcp. The host loads it once (the same `ui://` resource serves
// six tools) and sends each tool call's input and result; the view picks its screen from the
// result's shape: part card, search results, RFQ status, draft review, resolved list or
// comparison. It follows the host's
// theme, fonts, locale and time zone, on connect and on every change.
import "./jitless";
import type { CallToolResult } from "@modelcontextprotocol/client";
import {
  App,
  applyDocumentTheme,
  applyHostFonts,
  applyHostStyleVariables,
  type McpUiHostContext,
} from "@modelcontextprotocol/ext-apps";
import { resultText, setApp } from "./calls";
import { setLocale } from "./format";
import { compareScreen } from "./screens/compare";
import { draftScreen } from "./screens/draft";
import { partCard } from "./screens/part";
import { resolveScreen } from "./screens/resolve";
import { rfqScreen } from "./screens/rfq";
import { searchScreen } from "./screens/search";
import type {
  Comparison,
  DescribedPart,
  DraftPreview,
  ResolvedList,
  Rfq,
  SearchResult,
  ViewName,
} from "./types";
import { failure, loading, show } from "./widgets";

const VIEW_OF_TOOL: Record<string, ViewName> = {
  describe_part: "part",
  search_parts: "search",
  get_rfq: "rfq",
  preview_part: "draft",
  resolve_parts: "resolve",
  compare_parts: "compare",
};

const WAITING: Record<ViewName, string> = {
  part: "Loading the part…",
  search: "Searching parts…",
  rfq: "Loading the RFQ…",
  draft: "Checking the draft…",
  resolve: "Resolving the list…",
  compare: "Comparing the parts…",
};

let toolName: string | undefined;
let input: Record<string, unknown> = {};

function waiting(): void {
  const view = toolName ? VIEW_OF_TOOL[toolName] : undefined;
  show(loading(view ? WAITING[view] : "Waiting for the result…"));
}

/**
 * The screen for a result, from its shape (the six shapes are distinct), so that a result the host
 * forwards for a call the view made itself is still drawn right; the tool's name is the fallback.
 */
function viewOf(data: Record<string, unknown>): ViewName | undefined {
  if ("part" in data && "standards" in data) return "part";
  if ("items" in data && "scanned" in data) return "search";
  if ("state" in data && "partId" in data) return "rfq";
  if ("draft" in data && "unknown" in data) return "draft";
  if ("items" in data && "complete" in data) return "resolve";
  if ("fields" in data && "parts" in data) return "compare";
  return toolName ? VIEW_OF_TOOL[toolName] : undefined;
}

function render(result: CallToolResult): void {
  if (result.isError) {
    show(failure("The tool call failed", resultText(result)));
    return;
  }
  const data = result.structuredContent as Record<string, unknown> | undefined;
  const view = data ? viewOf(data) : undefined;
  if (!data || !view) {
    show(failure("Nothing to show", resultText(result) || "The result carries no data this view can draw."));
    return;
  }
  switch (view) {
    case "part": {
      const { node } = partCard(data as unknown as DescribedPart);
      show(node);
      break;
    }
    case "search":
      show(searchScreen(data as unknown as SearchResult, input));
      break;
    case "rfq":
      show(rfqScreen(data as unknown as Rfq));
      break;
    case "draft":
      show(draftScreen(data as unknown as DraftPreview));
      break;
    case "resolve":
      show(resolveScreen(data as unknown as ResolvedList));
      break;
    case "compare":
      show(compareScreen(data as unknown as Comparison));
      break;
  }
}

/** Applies what a (possibly partial) host context carries: theme, style variables, fonts, locale. */
function applyHostContext(context: McpUiHostContext): void {
  if (context.theme) applyDocumentTheme(context.theme);
  if (context.styles?.variables) applyHostStyleVariables(context.styles.variables);
  if (context.styles?.css?.fonts) applyHostFonts(context.styles.css.fonts);
  setLocale(context);
  if (context.toolInfo?.tool.name) toolName = context.toolInfo.tool.name;
  const root = document.documentElement.style;
  if (context.safeAreaInsets) {
    const { top, right, bottom, left } = context.safeAreaInsets;
    root.setProperty("--safe-area", `${top}px ${right}px ${bottom}px ${left}px`);
  }
  const dimensions = context.containerDimensions;
  if (dimensions) {
    // A fixed height fills the container and scrolls inside it; otherwise the view reports its size.
    root.height = "height" in dimensions ? "100vh" : "";
    root.maxHeight = "maxHeight" in dimensions && dimensions.maxHeight ? `${dimensions.maxHeight}px` : "";
  }
}

const app = new App({ name: "parts-mcp views", version: "1" }, { availableDisplayModes: ["inline"] });
app.addEventListener("toolinputpartial", () => {
  if (!document.querySelector("[data-view]")) waiting();
});
app.addEventListener("toolinput", (params) => {
  input = params.arguments ?? {};
  waiting();
});
app.addEventListener("toolresult", render);
app.addEventListener("toolcancelled", (params) => {
  show(failure("The call was cancelled", params.reason ?? "No result will arrive for it."));
});
app.addEventListener("hostcontextchanged", applyHostContext);
app.onteardown = async () => ({});
setApp(app);

waiting();
app.connect().then(
  () => {
    applyHostContext(app.getHostContext() ?? {});
    if (!document.querySelector("[data-view], [data-state='error']")) waiting();
  },
  (error: unknown) =>
    show(
      failure(
        "Not connected to a host",
        `This view shows the results of parts-mcp tools inside an MCP Apps host. ${error instanceof Error ? error.message : String(error)}`,
      ),
    ),
);
