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

interface Screen {
  /** The tool whose result it draws. */
  tool: string;
  /**
   * Two keys its result has, tried in this table's order: search (items, scanned) comes before
   * resolve (items, complete), whose keys a search result has too.
   */
  has: [string, string];
  /** What it says while the result is on its way. */
  waiting: string;
  draw(data: unknown): HTMLElement;
}

const SCREENS: Record<ViewName, Screen> = {
  part: {
    tool: "describe_part",
    has: ["part", "standards"],
    waiting: "Loading the part…",
    draw: (data) => partCard(data as DescribedPart).node,
  },
  search: {
    tool: "search_parts",
    has: ["items", "scanned"],
    waiting: "Searching parts…",
    draw: (data) => searchScreen(data as SearchResult, input),
  },
  rfq: {
    tool: "get_rfq",
    has: ["state", "partId"],
    waiting: "Loading the RFQ…",
    draw: (data) => rfqScreen(data as Rfq),
  },
  draft: {
    tool: "preview_part",
    has: ["draft", "unknown"],
    waiting: "Checking the draft…",
    draw: (data) => draftScreen(data as DraftPreview),
  },
  resolve: {
    tool: "resolve_parts",
    has: ["items", "complete"],
    waiting: "Resolving the list…",
    draw: (data) => resolveScreen(data as ResolvedList),
  },
  compare: {
    tool: "compare_parts",
    has: ["fields", "parts"],
    waiting: "Comparing the parts…",
    draw: (data) => compareScreen(data as Comparison),
  },
};

const VIEWS = Object.keys(SCREENS) as ViewName[];
const viewOfTool = (name: string | undefined): ViewName | undefined =>
  VIEWS.find((view) => SCREENS[view].tool === name);

let toolName: string | undefined;
let input: Record<string, unknown> = {};

function waiting(): void {
  const view = viewOfTool(toolName);
  show(loading(view ? SCREENS[view].waiting : "Waiting for the result…"));
}

/**
 * The screen for a result, from its shape, so that a result the host forwards for a call the view
 * made itself is still drawn right; the tool's name is the fallback.
 */
function viewOf(data: Record<string, unknown>): ViewName | undefined {
  const byShape = VIEWS.find((view) => SCREENS[view].has.every((key) => key in data));
  return byShape ?? viewOfTool(toolName);
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
  show(SCREENS[view].draw(data));
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
