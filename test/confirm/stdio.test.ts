// Confirmed writes over stdio, the server started as mcp.json starts it: a 2025-era client that
// declared elicitation is asked through `elicitation/create` (a 2026-07-28 client through
// `input_required`), and its answer decides what is written; PARTS_MCP_CONFIRM_WRITES=off and a
// client that declared nothing are not asked.
import type { CallToolResult, ClientCapabilities, ElicitResult } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApi, type TestApi } from "../../src/embedded/testing";
import { type RunningServer, startServer } from "../support/mcp-server";

let api: TestApi;
let unique = 0;

beforeAll(async () => {
  api = await startTestApi();
});

afterAll(async () => {
  await api?.close();
});

async function withServer(
  options: { era: "2025" | "2026"; capabilities?: ClientCapabilities; env?: Record<string, string> },
  answers: ElicitResult[],
  use: (server: RunningServer, asked: string[]) => Promise<void>,
) {
  const asked: string[] = [];
  const capabilities = options.capabilities ?? { elicitation: {} };
  const server = await startServer({
    sharedApi: api,
    era: options.era,
    capabilities,
    ...(options.env && { env: options.env }),
    prepare: (client) => {
      if (!capabilities.elicitation) return;
      client.setRequestHandler("elicitation/create", async (request) => {
        asked.push(String(request.params.message));
        return answers[asked.length - 1] ?? { action: "cancel" };
      });
    },
  });
  try {
    await use(server, asked);
  } finally {
    await server.close();
  }
}

const draft = () => ({ title: `Stdio confirm ${++unique} ${Date.now()}` });
const created = (title: string) => api.store.countPartsWithTitle(title);
const structured = (result: CallToolResult) => result.structuredContent as Record<string, unknown>;

describe.each(["2025", "2026"] as const)("confirmed writes over stdio, %s era", (era) => {
  it("asks, writes on yes, writes nothing on no, and asks again on the next call", async () => {
    const yes: ElicitResult = { action: "accept", content: { confirm: true } };
    await withServer({ era }, [yes, { action: "decline" }, yes], async (server, asked) => {
      const first = draft();
      expect(structured(await server.call("create_part", { ...first, materialId: "ti64" })).id).toMatch(
        /^prt_/,
      );
      expect(asked[0]).toMatch(/ti64 \(Ti-6Al-4V/);
      const second = draft();
      expect(structured(await server.call("create_part", second)).notWritten).toMatch(/declined/);
      // The same call again is a new question: the earlier answer is not reused.
      expect(structured(await server.call("create_part", second)).id).toMatch(/^prt_/);
      expect(asked).toHaveLength(3);
      expect([created(first.title), created(second.title)]).toEqual([1, 1]);
    });
  });

  it("does not ask with PARTS_MCP_CONFIRM_WRITES=off, nor a client that declared no elicitation", async () => {
    await withServer({ era, env: { PARTS_MCP_CONFIRM_WRITES: "off" } }, [], async (server, asked) => {
      const args = draft();
      expect(structured(await server.call("create_part", args)).id).toMatch(/^prt_/);
      expect(asked).toHaveLength(0);
    });
    await withServer({ era, capabilities: {} }, [], async (server, asked) => {
      const args = draft();
      expect(structured(await server.call("create_part", args)).id).toMatch(/^prt_/);
      expect(asked).toHaveLength(0);
    });
  });
});
