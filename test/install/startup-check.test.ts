// The start-up check of a remote API: a moment after the first answer, one request tells whether the
// URL and token work, and a failure is one clear log line naming the variable the person set. Real
// HTTP servers on loopback: one that refuses every token, and a port nobody listens on.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApi, type TestApi } from "../../src/embedded/testing";
import { startOAuthServer } from "../auth/support";
import { mcpJsonEntry } from "../support/mcp-server";
import { clientEnv, elsewhere, startAsClient } from "./support";

const TOKEN = "pat_wrong_token_0123456789abcdef";

let refusing: Server;
let refusingUrl: string;
let api: TestApi;

beforeAll(async () => {
  refusing = createServer((_request, response) => {
    response.writeHead(401, { "content-type": "application/json" });
    response.end(JSON.stringify({ status: 401, message: "invalid token", code: "unauthenticated" }));
  });
  await new Promise<void>((resolve) => refusing.listen(0, "127.0.0.1", resolve));
  refusingUrl = `http://127.0.0.1:${(refusing.address() as AddressInfo).port}`;
  api = await startTestApi();
});
afterAll(async () => {
  refusing?.close();
  await api?.close();
});

/** A loopback port that nobody listens on (bound, then let go). */
async function deadUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return `http://127.0.0.1:${port}`;
}

/** Starts the server from mcp.json with `env`, answers tools/list, then waits for the check's line. */
async function checkLine(
  env: Record<string, string>,
): Promise<{ line: string; stderr: string; beforeAnswer: string }> {
  const entry = mcpJsonEntry();
  const server = await startAsClient(
    entry.command,
    entry.args,
    clientEnv({ ...entry.env, ...env }),
    elsewhere(),
  );
  try {
    await server.client.listTools();
    const beforeAnswer = server.stderr();
    const deadline = Date.now() + 15_000;
    while (!/start-up check/.test(server.stderr()) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const line =
      server
        .stderr()
        .split("\n")
        .find((text) => text.includes("start-up check")) ?? "";
    return { line, stderr: server.stderr(), beforeAnswer };
  } finally {
    await server.close();
  }
}

describe("the start-up check of a remote environment", () => {
  it("says the token was refused, naming PARTS_API_TOKEN, after the first answer and never with the token", async () => {
    const { line, stderr, beforeAnswer } = await checkLine({
      PARTS_API_ENV: "sandbox",
      PARTS_API_SANDBOX_URL: refusingUrl,
      PARTS_API_TOKEN: TOKEN,
    });
    expect(beforeAnswer).not.toContain("start-up check");
    expect(JSON.parse(line)).toMatchObject({ level: "warn" });
    expect(line).toContain(`the sandbox environment at ${refusingUrl} refused PARTS_API_TOKEN (401)`);
    expect(stderr).not.toContain(TOKEN);
  });

  it("says a URL nobody listens on cannot be reached, naming the variable that was set", async () => {
    const url = await deadUrl();
    const sandbox = await checkLine({
      PARTS_API_ENV: "sandbox",
      PARTS_API_SANDBOX_URL: url,
      PARTS_API_TOKEN: TOKEN,
      PARTS_API_MAX_RETRIES: "0",
    });
    expect(sandbox.line).toContain(`the sandbox environment at ${url} could not be reached (ECONNREFUSED)`);
    expect(sandbox.line).toContain("check PARTS_API_SANDBOX_URL");
    expect(sandbox.line).not.toContain("PARTS_API_BASE_URL");

    const overridden = await checkLine({
      PARTS_API_ENV: "lab",
      PARTS_API_BASE_URL: url,
      PARTS_API_TOKEN: TOKEN,
      PARTS_API_MAX_RETRIES: "0",
    });
    expect(overridden.line).toContain("check PARTS_API_BASE_URL");
  });

  it("a tool call that cannot reach the API names the variable that was set, too", async () => {
    const url = await deadUrl();
    const entry = mcpJsonEntry();
    const env = { PARTS_API_ENV: "sandbox", PARTS_API_SANDBOX_URL: url, PARTS_API_TOKEN: TOKEN };
    const server = await startAsClient(
      entry.command,
      entry.args,
      clientEnv({ ...entry.env, ...env, PARTS_API_MAX_RETRIES: "0" }),
      elsewhere(),
    );
    try {
      const result = await server.client.callTool({ name: "get_part", arguments: { id: "prt_x" } });
      const text = (result.content as { text: string }[])[0]?.text ?? "";
      expect(result.isError).toBe(true);
      expect(text).toContain("Check PARTS_API_SANDBOX_URL (or PARTS_API_ENV)");
      expect(text).not.toContain("PARTS_API_BASE_URL");
    } finally {
      await server.close();
    }
  });

  it("says when the URL and token work", async () => {
    const { line } = await checkLine({
      PARTS_API_ENV: "sandbox",
      PARTS_API_SANDBOX_URL: api.url,
      PARTS_API_TOKEN: api.demoToken,
    });
    expect(JSON.parse(line)).toMatchObject({ level: "info" });
    expect(line).toContain("accepted the token");
  });
});

describe("no start-up check without a server token", () => {
  it("checks nothing in the oauth mode, where every request brings a person's own token", async () => {
    const server = await startOAuthServer({ api, env: { PARTS_API_ENV: "lab" } });
    try {
      // Past the check's moment (1 s after the start) with room to spare.
      await new Promise((resolve) => setTimeout(resolve, 2_500));
      expect(server.stderr()).not.toContain("start-up check");
    } finally {
      await server.stop();
    }
  });
});
