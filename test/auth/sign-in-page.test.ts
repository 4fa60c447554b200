// The sign-in page in headless Chromium, as a person meets it: the form names the client, its
// redirect host and the scopes, loads nothing from elsewhere and breaks no CSP rule; a wrong
// token gets a clear message; the right one returns to the client with a code; a cross-site
// post (no CSRF token) and framing by another site are refused.
import { createServer, type Server } from "node:http";
import type { Browser, BrowserContext } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO_ACCOUNTS, startTestApi, type TestApi } from "../../src/embedded/testing";
import { launchBrowser } from "../views/browser";
import {
  authorizationUrl,
  embeddedDataDir,
  freePort,
  newKey,
  type OAuthServer,
  pkce,
  startOAuthServer,
} from "./support";

const [alice] = DEMO_ACCOUNTS.map((account) => account.token) as [string];
/** The client's redirect URI: served by the attacker's server too, as any page would be. */
let CALLBACK: string;

let api: TestApi;
let server: OAuthServer;
let browser: Browser;
let attacker: Server;
let attackerOrigin: string;
/** What the attacker's page holds: set per test. */
let attackerPage = "";
let clientId: string;

beforeAll(async () => {
  api = await startTestApi();
  [server, { browser }] = await Promise.all([
    startOAuthServer({ api, store: { dataDir: await embeddedDataDir("page") }, keys: `k1:${newKey()}` }),
    launchBrowser(),
  ]);
  const port = await freePort();
  attackerOrigin = `http://localhost:${port}`;
  CALLBACK = `http://127.0.0.1:${port}/callback`;
  attacker = createServer((_req, res) =>
    res.writeHead(200, { "content-type": "text/html" }).end(attackerPage),
  );
  await new Promise<void>((resolve) => attacker.listen(port, "127.0.0.1", resolve));
  const registered = await fetch(`${server.issuer}/register`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      client_name: "Browser Host",
      redirect_uris: [CALLBACK],
      token_endpoint_auth_method: "none",
    }),
  });
  clientId = ((await registered.json()) as { client_id: string }).client_id;
}, 90_000);
afterAll(async () => {
  await browser?.close();
  attacker?.close();
  await server?.stop();
  await api?.close();
});

/** A fresh context at a fresh sign-in page; what it requested and what the console said. */
async function openSignIn(scope = "parts:read parts:write") {
  const context: BrowserContext = await browser.newContext();
  const page = await context.newPage();
  const requests: string[] = [];
  const console: string[] = [];
  page.on("request", (request) => requests.push(request.url()));
  page.on("console", (message) => console.push(message.text()));
  const url = authorizationUrl(server.issuer, {
    clientId,
    redirectUri: CALLBACK,
    challenge: pkce().challenge,
    scope,
  });
  await page.goto(url.href);
  return { context, page, requests, console };
}

describe("the sign-in page in Chromium", () => {
  it("names the client, its redirect host and the scopes, with nothing from elsewhere and no CSP violation", async () => {
    const { context, page, requests, console } = await openSignIn();
    expect(page.url()).toContain("/sign-in/");
    const host = new URL(CALLBACK).host;
    await expect(page.locator("h1").textContent()).resolves.toBe(`Connect ${host} to Parts`);
    const text = await page.locator("main").textContent();
    expect(text).toContain("which calls itself Browser Host");
    expect(text).toContain("parts:read");
    expect(text).toContain("parts:write");
    expect(await page.locator('input[type="password"][name="token"]').count()).toBe(1);
    expect(requests.every((url) => url.startsWith(server.issuer))).toBe(true);
    expect(console.filter((line) => /Content Security Policy|Refused/.test(line))).toEqual([]);
    await context.close();
  });

  it("a wrong token gets a clear message and an empty field; the right one returns to the client with a code", async () => {
    const { context, page } = await openSignIn();
    await page.fill('input[name="token"]', "pat_this_is_not_a_real_token_12345");
    await Promise.all([page.waitForLoadState(), page.click('button[type="submit"]')]);
    await expect(page.locator(".error").textContent()).resolves.toMatch(/did not accept this token/);
    expect(await page.inputValue('input[name="token"]')).toBe("");
    await page.fill('input[name="token"]', alice);
    await Promise.all([page.waitForURL(`${CALLBACK}**`), page.click('button[type="submit"]')]);
    const back = new URL(page.url());
    expect(back.searchParams.get("code")).toBeTruthy();
    expect(back.searchParams.get("iss")).toBe(server.issuer);
    await context.close();
  });

  it("refuses a post from another site (no CSRF token, no same-site cookie)", async () => {
    const { context, page } = await openSignIn();
    const signIn = page.url();
    attackerPage = `<form id="f" method="post" action="${signIn}"><input name="token" value="${alice}"></form><script>document.getElementById("f").submit()</script>`;
    const answer = page.waitForResponse(
      (response) => response.url() === signIn && response.request().method() === "POST",
    );
    await page.goto(attackerOrigin);
    const response = await answer;
    expect([400, 403]).toContain(response.status());
    await page.waitForLoadState();
    expect(page.url()).not.toContain(CALLBACK);
    await context.close();
  });

  it("cannot be framed by another site", async () => {
    const { context, page } = await openSignIn();
    const signIn = page.url();
    attackerPage = `<iframe src="${signIn}" width="600" height="400"></iframe>`;
    await page.goto(attackerOrigin);
    await page.waitForTimeout(500);
    const frame = page.frames().find((f) => f !== page.mainFrame());
    expect(frame).toBeDefined();
    // Blocked, the frame holds the browser's error page: none of ours, not even its "expired"
    // page (the framed request carries no same-site cookie).
    const framed = (await frame?.content().catch(() => "")) ?? "";
    expect(framed).not.toMatch(/sign-in|Parts API|Connect/i);
    await context.close();
  });
});
