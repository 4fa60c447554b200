// The MCP Apps views in a real browser: headless Chromium (test/views/browser.ts), a host page on
// ext-apps' AppBridge with the spec's two-iframe sandbox on a second loopback origin under the
// spec's default CSP, and the server from source behind a real MCP client, on the embedded
// sample data. Each view renders; calls from a view reach the server; hostile text stays text;
// no CSP violation and no console error; each view's screenshot goes to docs/screenshots/.
import { mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { CallToolResult } from "@modelcontextprotocol/client";
import type { Browser, FrameLocator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
// @ts-expect-error: a plain ESM script without types
import { buildUi } from "../../scripts/build-ui.mjs";
import { VIEW_TOOLS, VIEW_URI } from "../../src/mcp/views";
import { launchBrowser } from "./browser";
import { type Host, type Parts, startHost, startParts, type ViewCase } from "./harness";

const SCREENSHOTS = join(dirname(fileURLToPath(import.meta.url)), "../../docs/screenshots");
const HOSTILE_TITLE = `<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script> Hostile bracket`;

/** Records CSP violations in every frame, from the first moment of each document. */
const CSP_RECORDER = `window.__csp = [];
document.addEventListener("securitypolicyviolation", (e) => window.__csp.push(e.violatedDirective + " " + e.blockedURI));`;

let browser: Browser;
let parts: Parts;
let host: Host;
/** A part whose title and keyword are markup, created before any search indexes the catalogue. */
let hostileId: string;

interface OpenView {
  page: Page;
  view: FrameLocator;
  /** Console errors, page errors and CSP violations seen so far. */
  problems(): Promise<string[]>;
  screenshot(name: string): Promise<void>;
  close(): Promise<void>;
}

async function openView(viewCase: ViewCase, width = 760): Promise<OpenView> {
  const page = await browser.newPage({ viewport: { width, height: 1000 }, deviceScaleFactor: 2 });
  const logged: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error" || /content security policy|refused to/i.test(message.text())) {
      logged.push(`console: ${message.text()}`);
    }
  });
  page.on("pageerror", (error) => logged.push(`page error: ${error.message}`));
  await page.addInitScript({ content: CSP_RECORDER });
  await page.goto(host.open(viewCase));
  const view = page.frameLocator("#view").frameLocator("iframe");
  return {
    page,
    view,
    problems: async () => {
      const violations: string[] = [];
      for (const frame of page.frames()) {
        const found = (await frame.evaluate("window.__csp || []").catch(() => [])) as string[];
        violations.push(...found.map((text) => `CSP: ${text}`));
      }
      return [...logged, ...violations];
    },
    screenshot: async (name) => {
      await settle(page);
      await page.locator("#view").screenshot({ path: join(SCREENSHOTS, name), animations: "disabled" });
    },
    close: () => page.close(),
  };
}

/** Waits until the host has sized the view to its content (size-changed notifications are debounced). */
async function settle(page: Page): Promise<void> {
  let last = -1;
  for (let i = 0; i < 30; i++) {
    const height = (await page.locator("#view").boundingBox())?.height ?? 0;
    if (height === last && height > 150) return;
    last = height;
    await page.waitForTimeout(80);
  }
}

/** Evaluates an expression in the view's own document (the inner iframe). */
async function inView<T>(page: Page, expression: string): Promise<T> {
  const frame = page
    .frames()
    .find((candidate) => candidate.parentFrame()?.parentFrame() === page.mainFrame());
  if (!frame) throw new Error("the view's frame is not there");
  return (await frame.evaluate(expression)) as T;
}

async function result(name: string, args: Record<string, unknown>): Promise<ViewCase> {
  return { tool: name, input: args, result: await parts.call(name, args) };
}

function data<T>(callResult: CallToolResult): T {
  if (callResult.isError) throw new Error(JSON.stringify(callResult.content));
  return callResult.structuredContent as T;
}

interface PartRecord {
  id: string;
  title: string;
  description?: string;
  processId?: string;
  materialId?: string;
  standardIds?: string[];
  criticalityIds?: string[];
  categoryIds?: string[];
  boundingBox?: { x?: number; y?: number; z?: number };
  dimensions?: Record<string, number>;
  customFields: unknown[];
}

/** A sample part of the demo organisation with everything a card can show. */
async function showcasePart(): Promise<PartRecord> {
  for (let page = 1; page <= 4; page++) {
    const { items } = data<{ items: PartRecord[] }>(
      await parts.call("list_parts", { view: "IP_OWNER", page, pageSize: 50 }),
    );
    const found = items.find(
      (part) =>
        part.description &&
        part.processId &&
        part.materialId &&
        part.standardIds?.length &&
        part.criticalityIds?.length &&
        part.boundingBox?.z &&
        Object.keys(part.dimensions ?? {}).length >= 5 &&
        part.customFields.length >= 2,
    );
    if (found) return found;
  }
  throw new Error("no sample part shows everything");
}

beforeAll(async () => {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const [built, launched, started] = await Promise.all([
    buildUi(),
    launchBrowser(),
    startParts({ enabled: true }),
  ]);
  console.log(`views: ${launched.source}; document ${built.total} bytes, ours ${built.ours}`);
  browser = launched.browser;
  parts = started;
  host = await startHost(parts);
  hostileId = data<{ id: string }>(
    await parts.call("create_part", { title: HOSTILE_TITLE, keywords: ["<b>bold</b>"] }),
  ).id;
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await host?.close();
  await parts?.close();
});

describe("MCP Apps views", () => {
  it("links one ui:// document from the six tools, with no network of its own, and leaves results as they were", async () => {
    const { tools } = await parts.client.listTools();
    const linked = tools.filter(
      (tool) => (tool._meta?.ui as { resourceUri?: string } | undefined)?.resourceUri,
    );
    expect(linked.map((tool) => tool.name).sort()).toEqual([...VIEW_TOOLS].sort());
    for (const tool of linked) {
      expect(tool._meta?.ui).toEqual({ resourceUri: VIEW_URI });
    }
    expect(VIEW_URI).toMatch(/^ui:\/\/parts-mcp\//);

    const { contents } = await parts.client.readResource({ uri: VIEW_URI });
    expect(contents).toHaveLength(1);
    const [document] = contents as unknown as [{ mimeType: string; text: string; _meta: unknown }];
    expect(document.mimeType).toBe("text/html;profile=mcp-app");
    expect(document._meta).toEqual({ ui: { csp: {}, prefersBorder: true } });
    expect(document.text.startsWith("<!doctype html>")).toBe(true);
    // Nothing loads from elsewhere: no external src/href in the markup, no @import or remote url() in the styles.
    const [markup, script = ""] = document.text.split("<script>");
    const styles = markup?.match(/<style>([\s\S]*)<\/style>/)?.[1] ?? "";
    expect(markup).not.toMatch(/\b(?:src|href)\s*=/i);
    expect(styles).not.toMatch(/@import|url\(/i);
    expect(script).not.toMatch(/\bfetch\(|XMLHttpRequest|WebSocket\(|importScripts/);
    expect(document.text.match(/<\/script/gi)).toHaveLength(1);

    // Results are the text and structuredContent they always were: nothing view-only is added.
    const part = await showcasePart();
    const described = await parts.call("describe_part", { id: part.id });
    expect(described._meta).toBeUndefined();
    expect(JSON.parse((described.content[0] as { text: string }).text)).toEqual(described.structuredContent);

    // PARTS_MCP_APPS=off: no ui:// resource, no _meta.ui, the same tools (preview_part included).
    const off = await startParts({ enabled: false }, parts.api);
    try {
      const plain = await off.client.listTools();
      expect(plain.tools.map((tool) => tool.name)).toEqual(tools.map((tool) => tool.name));
      expect(plain.tools.some((tool) => tool._meta?.ui !== undefined)).toBe(false);
      const { resources } = await off.client.listResources();
      expect(resources.some((resource) => resource.uri.startsWith("ui://"))).toBe(false);
      await expect(off.client.readResource({ uri: VIEW_URI })).rejects.toThrow();
    } finally {
      await off.close();
    }
  });

  it("part card: every field by name with its code, dimensions in the API's numbers, the bounding box to scale", async () => {
    const part = await showcasePart();
    const open = await openView(await result("describe_part", { id: part.id }));
    try {
      const { view } = open;
      await view.locator("[data-view=part]").waitFor();
      expect(await view.locator("h1").textContent()).toBe(part.title);
      expect(await view.locator(".dimensions tbody tr").count()).toBe(
        Object.keys(part.dimensions ?? {}).length,
      );
      // The API gives no units: none is shown, and the card says so (a 120 × 40 bracket does not "weigh 0.18 g").
      const geometry = (await view.locator("section", { hasText: "Geometry" }).textContent()) ?? "";
      expect(geometry).not.toMatch(/\b(mm|g|kg|in)\b|mm²|mm³/);
      expect(geometry).toContain("it states no units");
      expect(await view.locator(".bbox svg polygon").count()).toBe(3);
      const bboxLabel = (await view.locator(".bbox svg").getAttribute("aria-label")) ?? "";
      expect(bboxLabel).toContain("drawn to scale");
      expect(bboxLabel).not.toMatch(/\bmm\b/);
      const manufacturing = (await view.locator("section", { hasText: "Manufacturing" }).textContent()) ?? "";
      expect(manufacturing).toContain(part.processId as string);
      for (const code of part.standardIds ?? []) expect(manufacturing).toContain(code);
      expect(await view.locator("section", { hasText: "Custom fields" }).count()).toBe(1);
      await open.screenshot("part-card.png");
      expect(await open.problems()).toEqual([]);
    } finally {
      await open.close();
    }
  });

  it("search results: a row opens the card in place through the host, the way back keeps the table, more results continue", async () => {
    const first = await result("search_parts", { text: "bracket", limit: 6 });
    const page1 = data<{ items: { id: string; title: string }[]; nextCursor?: string }>(first.result);
    expect(page1.items.length).toBe(6);
    expect(page1.nextCursor).toBeDefined();
    const open = await openView(first);
    try {
      const { view, page } = open;
      await view.locator("[data-view=search]").waitFor();
      expect(await view.locator("tbody tr").count()).toBe(6);
      expect(await view.locator(".summary").textContent()).toMatch(
        /6 parts · [\d,]+ scanned · more parts to search/,
      );
      await open.screenshot("search-results.png");

      // By keyboard: focus the second row's button and press Enter.
      const second = page1.items[1] as { id: string; title: string };
      await view.locator("button.row-open").nth(1).focus();
      await page.keyboard.press("Enter");
      await view.locator("[data-view=part]").waitFor();
      expect(await view.locator("h1").textContent()).toBe(second.title);
      expect(host.viewCalls).toContain("describe_part");

      await page.keyboard.press("Escape");
      await view.locator("[data-view=search]").waitFor();
      expect(await inView<string>(page, "document.activeElement.textContent")).toBe(second.title);

      await view.getByRole("button", { name: "More results" }).click();
      await view.locator("tbody tr").nth(6).waitFor();
      expect(await view.locator("tbody tr").count()).toBeGreaterThan(6);
      expect(host.viewCalls.filter((name) => name === "search_parts")).toHaveLength(1);
      expect(await open.problems()).toEqual([]);
    } finally {
      await open.close();
    }
  });

  it("search results say through which record a row matched, and why nothing did", async () => {
    const found = await result("search_parts", { text: "titanium brackets" });
    const items = data<{ items: { matched?: string }[] }>(found.result).items;
    const matched = items.find((item) => item.matched)?.matched as string;
    expect(matched).toMatch(/^material /);
    const open = await openView(found);
    try {
      await open.view.locator("[data-view=search]").waitFor();
      expect(await open.view.locator(".matched").allTextContents()).toContain(`by its ${matched}`);
      expect(await open.problems()).toEqual([]);
    } finally {
      await open.close();
    }
    const none = await result("search_parts", { text: "titanium housings" });
    const hint = data<{ hint: string }>(none.result).hint;
    expect(hint).toMatch(/no part matches every word/);
    const empty = await openView(none);
    try {
      await empty.view.locator("[data-state=empty]").waitFor();
      expect(await empty.view.locator("[data-state=empty]").textContent()).toContain(
        "no part matches every word",
      );
    } finally {
      await empty.close();
    }
  });

  it("RFQ status: the state among the seven, terms, past deadlines as past, and the part's title read through the host", async () => {
    // The sample RFQs are numbered rfq-2024-0101 + 7i; pick one with every term whose part is readable.
    let chosen: { rfq: { id: string; state: string; partId: string }; title: string } | undefined;
    let unreadable: string | undefined;
    for (let i = 1; i < 42 && (!chosen || !unreadable); i++) {
      const id = `rfq-2024-${String(101 + i * 7).padStart(4, "0")}`;
      const rfqResult = await parts.call("get_rfq", { id });
      if (rfqResult.isError) continue;
      const rfq = rfqResult.structuredContent as {
        id: string;
        state: string;
        partId: string;
        quantity?: number;
        deadlineTime?: string;
      };
      const partResult = await parts.call("get_part", { id: rfq.partId });
      if (partResult.isError) unreadable ??= id;
      else if (!chosen && rfq.state !== "DRAFT" && rfq.quantity && rfq.deadlineTime) {
        chosen = { rfq, title: (partResult.structuredContent as { title: string }).title };
      }
    }
    if (!chosen) throw new Error("no sample RFQ has every term and a readable part");
    const open = await openView(await result("get_rfq", { id: chosen.rfq.id }));
    try {
      const { view } = open;
      await view.locator("[data-view=rfq]").waitFor();
      expect(await view.locator(".state-step").count()).toBe(7);
      expect(await view.locator(".state-step[aria-current=true]").count()).toBe(1);
      await view.getByRole("button", { name: chosen.title }).waitFor();
      expect(host.viewCalls).toContain("get_part");
      expect(await view.locator(".time.past").first().textContent()).toMatch(/closed .* ago/);
      await open.screenshot("rfq-status.png");
      expect(await open.problems()).toEqual([]);
    } finally {
      await open.close();
    }
    if (unreadable) {
      // A call from the view that fails shows why, in place.
      const failing = await openView(await result("get_rfq", { id: unreadable }));
      try {
        await failing.view.getByText(/Title unavailable/).waitFor();
        expect(await failing.problems()).toEqual([]);
      } finally {
        await failing.close();
      }
    }
  });

  it("draft review: codes resolved or flagged, and Create calls create_part through the host once", async () => {
    const part = await showcasePart();
    const draft = {
      title: "Engine mount bracket, lightweight (draft)",
      description: "Topology-optimised variant for the next airframe revision.",
      externalRef: "D55-4410-502",
      processId: part.processId,
      materialId: part.materialId,
      standardIds: part.standardIds,
      criticalityIds: part.criticalityIds,
      categoryIds: part.categoryIds,
      keywords: ["bracket", "lightweight"],
      materialType: "metal",
      unitSystem: "METRIC",
      boundingBox: { x: 148, y: 62, z: 41 },
    };
    const open = await openView(await result("preview_part", draft));
    try {
      const { view } = open;
      await view.locator("[data-view=draft]").waitFor();
      expect(await view.locator(".codes .resolved").count()).toBe(
        2 +
          (part.standardIds?.length ?? 0) +
          (part.criticalityIds?.length ?? 0) +
          (part.categoryIds?.length ?? 0),
      );
      await open.screenshot("draft-review.png");
      await view.getByRole("button", { name: "Create part" }).click();
      await view.getByText("Part created").waitFor();
      const createdId = (await view.locator(".create code").textContent()) ?? "";
      expect(host.viewCalls.filter((name) => name === "create_part")).toHaveLength(1);
      expect(data<{ title: string }>(await parts.call("get_part", { id: createdId })).title).toBe(
        draft.title,
      );
      expect(JSON.stringify(host.modelContext)).toContain(createdId);
      await view.getByRole("button", { name: "Open the part" }).click();
      await view.locator("[data-view=part] h1", { hasText: draft.title }).waitFor();
      expect(await open.problems()).toEqual([]);
    } finally {
      await open.close();
    }

    const flawed = await openView(
      await result("preview_part", {
        ...draft,
        materialId: "ti-6al-4v-xx",
        standardIds: [...(part.standardIds ?? []), "ASTM F9999"],
      }),
    );
    try {
      const { view } = flawed;
      await view.locator("[data-view=draft]").waitFor();
      expect(await view.locator(".codes .row-unknown").count()).toBe(2);
      expect(await view.getByRole("button", { name: "Create part" }).isDisabled()).toBe(true);
      await flawed.screenshot("draft-unknown-codes.png");
      expect(await flawed.problems()).toEqual([]);
    } finally {
      await flawed.close();
    }
  });

  it("hostile text from the API is shown as text and runs nothing", async () => {
    const card = await openView(await result("describe_part", { id: hostileId }));
    try {
      const { view, page } = card;
      await view.locator("[data-view=part]").waitFor();
      expect(await view.locator("h1").textContent()).toBe(HOSTILE_TITLE);
      expect(await view.getByText("<b>bold</b>").count()).toBe(1);
      expect(await view.locator("img, b").count()).toBe(0);
      expect(await inView<unknown>(page, "window.__pwned")).toBeUndefined();
      expect(await card.problems()).toEqual([]);
    } finally {
      await card.close();
    }
    const search = await openView(await result("search_parts", { text: "onerror hostile" }));
    try {
      const { view, page } = search;
      await view.locator("[data-view=search]").waitFor();
      expect(await view.locator("button.row-open").first().textContent()).toBe(HOSTILE_TITLE);
      expect(await inView<unknown>(page, "window.__pwned")).toBeUndefined();
      expect(await search.problems()).toEqual([]);
    } finally {
      await search.close();
    }
  });

  /** Opens the part card with the material's name and code replaced, as a server might send them. */
  async function cardWithMaterial(name: (real: string) => string, code?: string): Promise<OpenView> {
    const part = await showcasePart();
    const real = await result("describe_part", { id: part.id });
    const described = structuredClone(real.result.structuredContent) as {
      material: { name: string; code: string };
    };
    described.material.name = name(described.material.name);
    if (code) described.material.code = code;
    const open = await openView({ ...real, result: { ...real.result, structuredContent: described } });
    await open.view.locator(".fact", { hasText: "Material" }).locator("code").first().waitFor();
    return open;
  }

  /** Left and right edges, as drawn, of the material's name and of the first and last characters of its code. */
  const MATERIAL_EDGES = `(() => {
    const fact = [...document.querySelectorAll(".fact")].find((f) => f.querySelector("dt")?.textContent === "Material");
    const named = fact.querySelector(".named");
    const box = (node, from, to) => { const r = document.createRange(); r.setStart(node, from); r.setEnd(node, to); return r.getBoundingClientRect(); };
    const textOf = (element) => document.createTreeWalker(element, NodeFilter.SHOW_TEXT).nextNode();
    const name = textOf(named.firstElementChild);
    const code = textOf(named.querySelector("code"));
    const nameBox = box(name, 0, name.length);
    return { nameLeft: nameBox.left, nameRight: nameBox.right, codeFirst: box(code, 0, 1).left, codeLast: box(code, code.length - 1, code.length).left, name: name.data };
  })()`;

  interface Edges {
    nameLeft: number;
    nameRight: number;
    codeFirst: number;
    codeLast: number;
    name: string;
  }

  it("an override in a name, whoever sent it, is shown as a mark and cannot reverse the code beside it", async () => {
    // What a server without the text gate would send: the override raw in the material's name.
    const open = await cardWithMaterial((name) => `\u202E${name}`);
    try {
      const edges = await inView<Edges>(open.page, MATERIAL_EDGES);
      expect(edges.name.startsWith("\\u202E")).toBe(true);
      expect(edges.codeFirst).toBeLessThan(edges.codeLast);
      expect(await open.problems()).toEqual([]);
    } finally {
      await open.close();
    }
  });

  it("isolates the direction of every piece of text: a right-to-left name does not move the code beside it", async () => {
    const open = await cardWithMaterial(() => "פוליאמיד", "12-40");
    try {
      const edges = await inView<Edges>(open.page, MATERIAL_EDGES);
      // Read left to right, the name comes first and the code after it, in its own order.
      expect(edges.codeFirst).toBeGreaterThan(edges.nameRight);
      expect(edges.codeFirst).toBeLessThan(edges.codeLast);
      // Every piece of text is an isolate, whatever screen draws it.
      expect(await inView<number>(open.page, `document.querySelectorAll("bdi").length`)).toBeGreaterThan(10);
      expect(await open.problems()).toEqual([]);
    } finally {
      await open.close();
    }
  });

  it("shows a name's invisible and direction-changing characters as visible marks, through the server's text gate", async () => {
    const id = data<{ id: string }>(
      await parts.call("create_part", { title: "Bracket \u202Efdp.exe\u200B" }),
    ).id;
    const card = await openView(await result("describe_part", { id }));
    try {
      await card.view.locator("[data-view=part]").waitFor();
      const title = (await card.view.locator("h1").textContent()) ?? "";
      expect(title).toBe("Bracket \\u202Efdp.exe\\u200B");
      expect(title).not.toMatch(/[\u202E\u200B]/);
    } finally {
      await card.close();
    }
  });

  it("follows the host's theme on connect and on change, and fits 320 px", async () => {
    const part = await showcasePart();
    const dark = await openView({ ...(await result("describe_part", { id: part.id })), theme: "dark" });
    try {
      const { view, page } = dark;
      await view.locator("[data-view=part]").waitFor();
      const background = () => inView<string>(page, "getComputedStyle(document.body).backgroundColor");
      expect(await inView<string>(page, "document.documentElement.dataset.theme")).toBe("dark");
      const darkBackground = await background();
      await dark.screenshot("part-card-dark.png");
      await page.evaluate("window.hostSetContext({ theme: 'light' })");
      await page.waitForFunction("true");
      await view.locator("html[data-theme=light]").waitFor({ state: "attached" });
      expect(await background()).not.toBe(darkBackground);
      expect(await dark.problems()).toEqual([]);
    } finally {
      await dark.close();
    }
    const narrow = await openView(await result("describe_part", { id: part.id }), 320);
    try {
      const { view, page } = narrow;
      await view.locator("[data-view=part]").waitFor();
      expect(
        await inView<boolean>(
          page,
          "document.documentElement.scrollWidth <= document.documentElement.clientWidth",
        ),
      ).toBe(true);
      await narrow.screenshot("part-card-320.png");
    } finally {
      await narrow.close();
    }
  });

  it("shows a loading state until the result, an error state for a failed call, and an empty state", async () => {
    const part = await showcasePart();
    const slow = await openView({ ...(await result("describe_part", { id: part.id })), resultDelayMs: 800 });
    try {
      await slow.view.locator("[data-state=loading]").waitFor();
      await slow.view.locator("[data-view=part]").waitFor();
    } finally {
      await slow.close();
    }
    const failed = await openView(await result("describe_part", { id: "prt_doesnotexist" }));
    try {
      await failed.view.locator("[data-state=error]").waitFor();
      expect(await failed.view.locator("[data-state=error]").textContent()).toContain("search_parts");
      expect(await failed.problems()).toEqual([]);
    } finally {
      await failed.close();
    }
    const none = await openView(await result("search_parts", { text: "no-such-part-anywhere" }));
    try {
      await none.view.locator("[data-state=empty]").waitFor();
      expect(await none.view.locator(".summary").textContent()).toContain("search complete");
      expect(await none.problems()).toEqual([]);
    } finally {
      await none.close();
    }
    // The host read the document once for all of the above: it is one document for four tools.
    expect(host.documentReads()).toBe(1);
  });
});
