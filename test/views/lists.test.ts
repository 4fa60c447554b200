// The resolved-list and comparison views in a real browser, as test/views/views.test.ts tests the
// others: headless Chromium, the host page on ext-apps' AppBridge in the spec's sandbox and CSP,
// the server from source on the embedded sample data. Each renders its rows, a row opens a part
// through the host, differences are marked, no CSP violation or console error; screenshots go to
// docs/screenshots/.
import { mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
// @ts-expect-error: a plain ESM script without types
import { buildUi } from "../../scripts/build-ui.mjs";
import type { Part } from "../../src/api/schemas";
import type { Comparison } from "../../src/compare/compare";
import type { ResolvedList } from "../../src/resolve/list";
import { everyVisiblePart } from "../support/in-process";
import { launchBrowser } from "./browser";
import { type Host, type Parts, startHost, startParts, type ViewCase } from "./harness";

const SCREENSHOTS = join(dirname(fileURLToPath(import.meta.url)), "../../docs/screenshots");

let browser: Browser;
let parts: Parts;
let host: Host;
let catalogue: Part[];

async function result(name: string, args: Record<string, unknown>): Promise<ViewCase> {
  return { tool: name, input: args, result: await parts.call(name, args) };
}

/** The host page with one case; console errors, page errors and CSP violations are collected. */
async function openView(viewCase: ViewCase) {
  const page: Page = await browser.newPage({ viewport: { width: 900, height: 1000 }, deviceScaleFactor: 2 });
  const problems: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error" || /content security policy|refused to/i.test(message.text())) {
      problems.push(`console: ${message.text()}`);
    }
  });
  page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
  await page.goto(host.open(viewCase));
  const view = page.frameLocator("#view").frameLocator("iframe");
  const screenshot = async (name: string) => {
    await page.waitForTimeout(400); // the host sizes the view to its content, debounced
    await page.locator("#view").screenshot({ path: join(SCREENSHOTS, name), animations: "disabled" });
  };
  return { page, view, problems, screenshot };
}

beforeAll(async () => {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const [, launched, started] = await Promise.all([
    buildUi(),
    launchBrowser(),
    startParts({ enabled: true }),
  ]);
  browser = launched.browser;
  parts = started;
  host = await startHost(parts);
  catalogue = await everyVisiblePart(parts);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await host?.close();
  await parts?.close();
});

describe("MCP Apps views of a list and a comparison", () => {
  it("resolved list: a row per line with its quantity and status, and a part opens its card through the host", async () => {
    const withVersions = catalogue.find((part) => part.versionName === "Rev B") as Part;
    const lines = [
      `2x ${catalogue[0]?.serialId}`,
      withVersions.title,
      "flux capacitor zzyzx",
      `qty 3 ${catalogue[5]?.id}`,
    ];
    const resolved = await result("resolve_parts", { lines });
    const list = resolved.result.structuredContent as unknown as ResolvedList;
    const open = await openView(resolved);
    try {
      const { view } = open;
      await view.locator("[data-view=resolve]").waitFor();
      const rows = view.locator("tbody tr");
      expect(await rows.count()).toBe(lines.length);
      expect(await rows.evaluateAll((each) => each.map((row) => row.getAttribute("data-status")))).toEqual(
        list.items.map((item) => item.status),
      );
      expect(await rows.nth(0).locator("td").nth(2).textContent()).toBe("2");
      expect(await rows.nth(1).locator("button.row-open").count()).toBe(list.items[1]?.alternatives?.length);
      expect(await rows.nth(2).locator(".why").textContent()).toBe(list.items[2]?.why);
      expect(await view.locator(".summary").textContent()).toMatch(/2 matched · 1 ambiguous · 1 not found/);
      await open.screenshot("resolve-list.png");

      await rows.nth(0).locator("button.row-open").click();
      await view.locator("[data-view=part]").waitFor();
      expect(await view.locator("h1").textContent()).toBe(list.items[0]?.part?.title);
      expect(host.viewCalls).toContain("describe_part");
      await open.page.keyboard.press("Escape");
      await view.locator("[data-view=resolve]").waitFor();
      expect(open.problems).toEqual([]);
    } finally {
      await open.page.close();
    }
  });

  it("comparison: a column per part, differences marked, values a part lacks shown as not given", async () => {
    const child = catalogue.find((part) => part.parentId && part.versionName === "Rev B") as Part;
    const compared = await result("compare_parts", { ids: [child.parentId, child.id] });
    const comparison = compared.result.structuredContent as unknown as Comparison;
    const open = await openView(compared);
    try {
      const { view } = open;
      await view.locator("[data-view=compare]").waitFor();
      expect(await view.locator("thead th").count()).toBe(2 + comparison.parts.length);
      const differing = comparison.fields.filter((field) => field.status === "different").length;
      expect(await view.locator("tr.differs").count()).toBe(differing);
      expect(differing).toBeGreaterThan(0);
      const parentRow = view.locator("tr[data-status=unknown]", {
        has: view.locator("code", { hasText: /^parentId$/ }),
      });
      expect(await parentRow.locator(".absent").textContent()).toBe("not given");
      expect(await view.locator(".summary").textContent()).toBe(
        `${differing} of ${comparison.fields.length} fields differ`,
      );
      // A difference stands out: its cells are not drawn like a row that is the same.
      const background = (selector: string) =>
        view
          .locator(selector)
          .first()
          .locator("td")
          .first()
          .evaluate((cell) => cell.ownerDocument.defaultView?.getComputedStyle(cell).backgroundColor);
      expect(await background("tr.differs")).not.toBe(await background("tr[data-status=same]"));
      await open.screenshot("compare-parts.png");
      expect(open.problems).toEqual([]);
    } finally {
      await open.page.close();
    }
  });
});
