// Confirmed writes and the hosts' header shapes through the built server over real HTTP
// (`parts-mcp --http --auth per-user`, two people with their own tokens): the official v2 client
// answering the form, a state presented by another person, a 2025-era client over stateless HTTP
// (which cannot be asked), and each request shape hosts send, as raw HTTP.
import { type CallToolResult, Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApi, type TestApi } from "../../src/embedded/testing";
import { type HttpServerProcess, raw, rpcBody, spawnHttpServer } from "../http/support";

let api: TestApi;
let server: HttpServerProcess;
let alice: string;
let bob: string;
let unique = 0;

beforeAll(async () => {
  api = await startTestApi();
  [alice, bob] = api.accounts.map((account) => account.token) as [string, string];
  server = await spawnHttpServer({ api, args: ["--auth", "per-user"], env: { PARTS_API_TOKEN: "" } });
});

afterAll(async () => {
  await server?.stop();
  await api?.close();
});

/** The official client as `token`'s owner, declaring form elicitation and answering with `action`. */
async function person(token: string, era: "2025" | "2026", action: "accept" | "decline" = "accept") {
  const client = new Client(
    { name: "confirm-http-tests", version: "1.0.0" },
    {
      capabilities: { elicitation: { form: {} } },
      ...(era === "2026" && { versionNegotiation: { mode: { pin: "2026-07-28" } } }),
    },
  );
  const asked: string[] = [];
  client.setRequestHandler("elicitation/create", async (request) => {
    asked.push(String(request.params.message));
    return action === "accept" ? { action, content: { confirm: true } } : { action };
  });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(server.url), {
      requestInit: { headers: { "X-Parts-Api-Token": token } },
    }),
  );
  return { client, asked };
}

const draft = () => ({ title: `HTTP confirm ${++unique} ${Date.now()}` });
const created = (title: string) => api.store.countPartsWithTitle(title);
const call = (client: Client, name: string, args: Record<string, unknown>) =>
  client.callTool({ name, arguments: args }) as Promise<CallToolResult>;

describe("confirmed writes over HTTP", () => {
  it("2026-07-28: the person's yes writes once, their no writes nothing", async () => {
    const yes = await person(alice, "2026", "accept");
    const no = await person(alice, "2026", "decline");
    try {
      const kept = draft();
      expect((await call(yes.client, "create_part", kept)).isError).toBeFalsy();
      expect(yes.asked[0]).toContain(kept.title);
      const dropped = draft();
      const result = await call(no.client, "create_part", dropped);
      expect(result.structuredContent).toMatchObject({ notWritten: expect.stringMatching(/declined/) });
      expect([created(kept.title), created(dropped.title)]).toEqual([1, 0]);
    } finally {
      await yes.client.close();
      await no.client.close();
    }
  });

  it("refuses one person's state presented by another, and it stays good for its owner", async () => {
    const owner = await person(alice, "2026");
    const other = await person(bob, "2026");
    try {
      const args = draft();
      const first = (await owner.client.callTool(
        { name: "create_part", arguments: args },
        { allowInputRequired: true },
      )) as unknown as { requestState: string };
      const answer = {
        name: "create_part",
        arguments: args,
        inputResponses: { confirm: { action: "accept", content: { confirm: true } } },
        requestState: first.requestState,
      };
      const stolen = await other.client.callTool(answer as never).catch((error: unknown) => error);
      expect(stolen).toMatchObject({ code: -32602, data: { reason: "invalid_request_state" } });
      expect(created(args.title)).toBe(0);
      expect(((await owner.client.callTool(answer as never)) as CallToolResult).isError).toBeFalsy();
      expect(created(args.title)).toBe(1);
    } finally {
      await owner.client.close();
      await other.client.close();
    }
  });

  it("2025 over stateless HTTP: the server cannot ask, so the write runs as it always did", async () => {
    const legacy = await person(alice, "2025");
    try {
      const args = draft();
      expect((await call(legacy.client, "create_part", args)).isError).toBeFalsy();
      expect(legacy.asked).toHaveLength(0);
      expect(created(args.title)).toBe(1);
    } finally {
      await legacy.client.close();
    }
  });
});

const ENVELOPE = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "host-shape-tests", version: "1" },
  "io.modelcontextprotocol/clientCapabilities": {},
};

/** A get_process call as raw HTTP: `meta` its `_meta`, `headers` on top of the JSON ones. */
function send(
  meta: Record<string, unknown> | undefined,
  headers: Record<string, string>,
  method = "tools/call",
) {
  const params = method === "tools/call" ? { name: "get_process", arguments: { code: "lpbf" } } : {};
  return raw(server.url, {
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "x-parts-api-token": alice,
      ...headers,
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 7,
      method,
      params: { ...params, ...(meta && { _meta: meta }) },
    }),
  });
}

const servedModern = (body: ReturnType<typeof rpcBody>) =>
  body.result?._meta?.["io.modelcontextprotocol/serverInfo"] !== undefined;

describe("hosts as they are: each request shape, as raw HTTP", () => {
  it("serves a 2026-07-28 envelope under MCP-Protocol-Version: 2025-11-25 as 2026-07-28", async () => {
    const res = await send(ENVELOPE, { "mcp-protocol-version": "2025-11-25" });
    const body = rpcBody(res);
    expect(res.status).toBe(200);
    expect(body.result?.structuredContent).toMatchObject({ code: "lpbf" });
    expect(servedModern(body)).toBe(true);
  });

  it("serves a 2026-07-28 envelope with no MCP-Protocol-Version header as 2026-07-28", async () => {
    const res = await send(ENVELOPE, {});
    const body = rpcBody(res);
    expect(res.status).toBe(200);
    expect(body.result?.structuredContent).toMatchObject({ code: "lpbf" });
    expect(servedModern(body)).toBe(true);
  });

  it("serves a request with no envelope under MCP-Protocol-Version: 2026-07-28 as 2025-11-25", async () => {
    const res = await send(undefined, { "mcp-protocol-version": "2026-07-28" });
    const body = rpcBody(res);
    expect(res.status).toBe(200);
    expect(body.result?.structuredContent).toMatchObject({ code: "lpbf" });
    expect(servedModern(body)).toBe(false);
  });

  it("refuses a broken 2026-07-28 request rather than reading it as 2025 (the specification's 400, -32602)", async () => {
    const partial = { "io.modelcontextprotocol/clientCapabilities": {} };
    const shapes: [Record<string, unknown> | undefined, string][] = [
      [undefined, "server/discover"],
      [partial, "server/discover"],
      [partial, "tools/call"],
    ];
    for (const [meta, method] of shapes) {
      const res = await send(meta, { "mcp-protocol-version": "2026-07-28" }, method);
      const body = rpcBody(res);
      expect(res.status, `${method} ${JSON.stringify(meta)}`).toBe(400);
      expect(body.error?.code, `${method} ${JSON.stringify(meta)}`).toBe(-32602);
    }
  });

  it("serves the strict shapes as before", async () => {
    const modern = rpcBody(
      await send(ENVELOPE, {
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": "tools/call",
        "mcp-name": "get_process",
      }),
    );
    expect(servedModern(modern)).toBe(true);
    const legacy = rpcBody(await send(undefined, { "mcp-protocol-version": "2025-11-25" }));
    expect(legacy.result?.structuredContent).toMatchObject({ code: "lpbf" });
  });

  it("still refuses Mcp-Method or Mcp-Name that disagree with the body, in every shape", async () => {
    const shapes: [Record<string, unknown> | undefined, Record<string, string>][] = [
      [ENVELOPE, { "mcp-protocol-version": "2025-11-25", "mcp-method": "tools/list" }],
      [ENVELOPE, { "mcp-method": "prompts/get" }],
      [ENVELOPE, { "mcp-protocol-version": "2025-11-25", "mcp-name": "get_part" }],
      [
        ENVELOPE,
        { "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": "get_part" },
      ],
      [undefined, { "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/list" }],
      [undefined, { "mcp-protocol-version": "2026-07-28", "mcp-name": "get_part" }],
    ];
    for (const [meta, headers] of shapes) {
      const res = await send(meta, headers);
      const body = rpcBody(res);
      expect(res.status, JSON.stringify(headers)).toBe(400);
      expect(body.error?.code, JSON.stringify(headers)).toBeOneOf([-32020, -32602]);
      expect(body.result).toBeUndefined();
    }
  });

  it("logs each tolerated shape at debug once per client", async () => {
    const client = {
      ...ENVELOPE,
      "io.modelcontextprotocol/clientInfo": { name: "once-per-client", version: "9" },
    };
    for (let i = 0; i < 3; i++) await send(client, { "mcp-protocol-version": "2025-11-25" });
    const lines = server
      .stderr()
      .split("\n")
      .filter((line) => line.includes("served by its body") && line.includes("once-per-client 9"));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain("envelope under a 2025 header");
  });
});
