// What one HTTP request can make the server repeat, send upstream or answer, bounded whatever the
// client sends: a progress token (echoed in every progress notification) is short and visible or
// refused; prompt arguments are capped and must be valid Unicode before anything goes upstream;
// completion/complete without an argument or with an unknown reference type is Invalid Params
// naming the field, not an internal error with a schema dump.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApi, type TestApi } from "../../src/embedded/testing";
import { MAX_PROGRESS_TOKEN_CHARS, MAX_PROMPT_ARGUMENT_CHARS } from "../../src/mcp/message-guard";
import { type HttpServerProcess, MCP_HEADERS, raw, rpcBody, spawnHttpServer } from "./support";

let api: TestApi;
let server: HttpServerProcess;
beforeAll(async () => {
  api = await startTestApi();
  server = await spawnHttpServer({ api });
});
afterAll(async () => {
  await server?.stop();
  await api?.close();
});

const post = async (method: string, params: Record<string, unknown>) => {
  const res = await raw(server.url, {
    headers: MCP_HEADERS,
    body: JSON.stringify({ jsonrpc: "2.0", id: 7, method, params }),
  });
  return { res, body: rpcBody(res) };
};

describe("a progress token is echoed only when it is short and visible", () => {
  it("refuses a 0.9 MB token with Invalid Params naming it, and sends no notification", async () => {
    const { res, body } = await post("tools/call", {
      name: "search_parts",
      arguments: { text: "bracket" },
      _meta: { progressToken: "p".repeat(900_000) },
    });
    expect(body).toMatchObject({ id: 7, error: { code: -32602 } });
    expect(body.error.message).toMatch(/_meta\.progressToken/);
    expect(body.error.message).toContain(String(MAX_PROGRESS_TOKEN_CHARS));
    expect(res.body.length).toBeLessThan(2_000);
  });

  it("refuses a token with a bidi override (it could not be echoed through the text gate)", async () => {
    const { body } = await post("tools/call", {
      name: "list_parts",
      arguments: {},
      _meta: { progressToken: "tok\u202Een" },
    });
    expect(body).toMatchObject({ error: { code: -32602 } });
    expect(JSON.stringify(body)).not.toContain("\u202E");
  });

  it("echoes an ordinary token", async () => {
    const { body } = await post("tools/call", {
      name: "list_parts",
      arguments: { pageSize: 1 },
      _meta: { progressToken: "call-1" },
    });
    expect(body.result?.isError).toBeFalsy();
  });
});

describe("prompt arguments are bounded and valid before anything goes upstream", () => {
  it("a 900 KB rfqId is Invalid Params, and no RFQ is requested", async () => {
    const before = api.stats.requests("getRfq");
    const { body } = await post("prompts/get", {
      name: "rfq_status",
      arguments: { rfqId: "r".repeat(900_000) },
    });
    expect(body).toMatchObject({ id: 7, error: { code: -32602 } });
    expect(body.error.message).toMatch(/arguments\.rfqId is 900000 characters long/);
    expect(body.error.message).toContain(String(MAX_PROMPT_ARGUMENT_CHARS));
    expect(api.stats.requests("getRfq")).toBe(before);
  });

  it("an rfqId over the id cap is Invalid Params too", async () => {
    const before = api.stats.requests("getRfq");
    const { body } = await post("prompts/get", { name: "rfq_status", arguments: { rfqId: "r".repeat(300) } });
    expect(body).toMatchObject({ error: { code: -32602 } });
    expect(body.error.message).not.toMatch(/Internal error|bug/);
    expect(api.stats.requests("getRfq")).toBe(before);
  });

  it("an unpaired surrogate is Invalid Params naming the argument, not an internal error", async () => {
    const { body } = await post("prompts/get", { name: "rfq_status", arguments: { rfqId: "rfq-\uD800" } });
    expect(body).toMatchObject({ error: { code: -32602 } });
    expect(body.error.message).toMatch(/arguments\.rfqId contains an unpaired UTF-16 surrogate/);
    expect(body.error.message).not.toMatch(/Internal error|bug/);
  });
});

describe("what the SDK answers before any server sees the request passes the text gate too", () => {
  it("a 2026-07-28 refusal that repeats a tool name with a bidi override writes it escaped", async () => {
    const res = await raw(server.url, {
      headers: { ...MCP_HEADERS, "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 8,
        method: "tools/call",
        params: {
          name: "get\u202Epart\u{E0041}",
          arguments: {},
          _meta: {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" },
            "io.modelcontextprotocol/clientCapabilities": {},
          },
        },
      }),
    });
    expect(res.status).toBe(400);
    const { message } = JSON.parse(res.body).error;
    expect(message).toContain("get\\u202Epart\\uDB40\\uDC41");
    expect(message).not.toMatch(/[\u202E\u{E0041}]/u);
  });
});

describe("completion/complete with missing or unknown fields", () => {
  it("no argument: -32602 naming argument", async () => {
    const { body } = await post("completion/complete", { ref: { type: "ref/prompt", name: "rfq_status" } });
    expect(body).toMatchObject({ error: { code: -32602 } });
    expect(body.error.message).toMatch(/^Invalid params: argument must be an object/);
  });

  it("an unknown ref.type: -32602 naming ref.type", async () => {
    const { body } = await post("completion/complete", {
      ref: { type: "ref/tool", name: "get_part" },
      argument: { name: "id", value: "" },
    });
    expect(body).toMatchObject({ error: { code: -32602 } });
    expect(body.error.message).toMatch(/ref\.type must be "ref\/prompt" or "ref\/resource"/);
    expect(body.error.message.length).toBeLessThan(300);
  });

  it("no ref: -32602 naming ref", async () => {
    const { body } = await post("completion/complete", { argument: { name: "id", value: "" } });
    expect(body).toMatchObject({ error: { code: -32602 } });
    expect(body.error.message).toMatch(/ref must be an object/);
  });
});
