// The stdio process under a hostile or careless client, spawned exactly as mcp.json starts it:
// a line over the size limit, lines that are not JSON-RPC, a flood of calls with stdout not read,
// stdin closed or a signal while calls are in flight, stdout closed under it. Each answer is
// read off the raw pipe, as a client would see it.
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { once } from "node:events";
import { PassThrough } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApi, type TestApi } from "../../src/embedded/testing";
import { StdioWire } from "../../src/stdio/wire";
import { mcpJsonEntry, mcpJsonEnv, repoRoot } from "../support/mcp-server";
import { CRASH_TEXT } from "./support";

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api?.close());

interface Child {
  process: ChildProcessWithoutNullStreams;
  send(message: unknown): void;
  sendRaw(text: string): void;
  /** The answers read so far, by id (null for errors without an id, in order). */
  answers(): Record<string, unknown>[];
  waitFor(count: number): Promise<Record<string, unknown>[]>;
  stderr(): string;
  exit: Promise<[number | null, NodeJS.Signals | null]>;
}

function start(env: Record<string, string> = {}): Child {
  const entry = mcpJsonEntry();
  const child = spawn(process.execPath, entry.args, {
    cwd: repoRoot,
    env: mcpJsonEnv(api, env),
    stdio: ["pipe", "pipe", "pipe"],
  });
  // Parsed as lines complete (a chunk may end inside one).
  const parsed: Record<string, unknown>[] = [];
  let partial = "";
  let stderr = "";
  const waiters: (() => void)[] = [];
  child.stdout.on("data", (chunk: Buffer) => {
    const lines = (partial + chunk.toString()).split("\n");
    partial = lines.pop() ?? "";
    for (const line of lines) if (line) parsed.push(JSON.parse(line));
    for (const wake of waiters.splice(0)) wake();
  });
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  child.stdin.on("error", () => {});
  const exit = once(child, "exit") as Promise<[number | null, NodeJS.Signals | null]>;
  const answers = () => parsed;
  return {
    process: child,
    send: (message) => child.stdin.write(`${JSON.stringify(message)}\n`),
    sendRaw: (text) => child.stdin.write(text),
    answers,
    async waitFor(count) {
      const deadline = Date.now() + 15_000;
      while (answers().length < count) {
        if (Date.now() > deadline) {
          const seen = new Set(answers().map((answer) => answer.id));
          const missing = Array.from({ length: count }, (_, id) => id).filter((id) => !seen.has(id));
          throw new Error(
            `only ${answers().length} of ${count} answers (missing ${missing.slice(0, 10)}); stderr:\n${stderr.slice(-3000)}`,
          );
        }
        await Promise.race([new Promise<void>((resolve) => waiters.push(resolve)), exit]);
        if (child.exitCode !== null && answers().length < count) break;
      }
      return answers();
    },
    stderr: () => stderr,
    exit,
  };
}

const initialize = {
  jsonrpc: "2.0",
  id: 0,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "hostile", version: "1" } },
};
const call = (id: number, name: string, args: Record<string, unknown>) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name, arguments: args },
});
const byId = (answers: Record<string, unknown>[], id: unknown) => answers.find((answer) => answer.id === id);

describe("stdio under hostile input", () => {
  it("answers a line over the size limit with a JSON-RPC error, and goes on answering", async () => {
    const child = start({ PARTS_MCP_MAX_MESSAGE_BYTES: String(64 * 1024) });
    child.send(initialize);
    child.sendRaw(`${JSON.stringify(call(1, "get_process", { code: "x".repeat(200 * 1024) }))}\n`);
    child.send(call(2, "get_process", { code: "sls" }));
    const answers = await child.waitFor(3);
    // The refusal names the id (read off the ends of the line), so the client waiting on it is answered.
    const refused = byId(answers, 1) as { error: { code: number; message: string } };
    expect(refused.error.code).toBe(-32600);
    expect(refused.error.message).toMatch(/larger than 65536 bytes.*PARTS_MCP_MAX_MESSAGE_BYTES/);
    expect((byId(answers, 2) as { result: { isError?: boolean } }).result.isError).toBeFalsy();
    child.process.stdin.end();
    expect((await child.exit)[0]).toBe(0);
    expect(child.stderr()).not.toMatch(CRASH_TEXT);
  });

  it("refuses a progress token too long to repeat in every notification, and sends none", async () => {
    const child = start();
    child.send(initialize);
    child.send({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: {
        name: "search_parts",
        arguments: { text: "bracket" },
        _meta: { progressToken: "p".repeat(900_000) },
      },
    });
    child.send(call(2, "get_process", { code: "sls" }));
    const answers = await child.waitFor(3);
    expect(byId(answers, 1)).toMatchObject({
      error: {
        code: -32602,
        message: expect.stringMatching(/_meta\.progressToken must be a number or a string of at most 256/),
      },
    });
    expect(answers.some((answer) => answer.method === "notifications/progress")).toBe(false);
    expect(JSON.stringify(answers).length).toBeLessThan(20_000);
    child.process.stdin.end();
    expect((await child.exit)[0]).toBe(0);
  });

  it("answers every message it cannot process with the error the JSON-RPC specification names", async () => {
    const child = start();
    child.send(initialize);
    child.sendRaw("not json\n");
    child.sendRaw(`${JSON.stringify({ jsonrpc: "2.0", id: 4, method: 12 })}\n`);
    child.sendRaw(`${JSON.stringify({ jsonrpc: "1.0", id: 5, method: "ping" })}\n`);
    child.sendRaw(`${JSON.stringify({ jsonrpc: "2.0", id: 6, method: "tools/list", params: "all" })}\n`);
    child.sendRaw(`${JSON.stringify({ id: 7, method: "ping" })}\n`);
    child.sendRaw(
      '{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"get_process","arguments":{"code":"sls","__proto__":{"x":1}}}}\n',
    );
    // A name that hides text behind a right-to-left override is quoted with the override escaped.
    child.sendRaw(
      '{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"get\\u202eprocess","arguments":{"__proto__":{}}}}\n',
    );
    child.send({
      jsonrpc: "2.0",
      id: 10,
      method: "prompts/get",
      params: { name: "rfq_status", arguments: { rfqId: 5 } },
    });
    child.send({
      jsonrpc: "2.0",
      id: 11,
      method: "completion/complete",
      params: {
        ref: { type: "ref/prompt", name: "draft_part" },
        argument: { name: "materialType", value: 5 },
      },
    });
    child.send({ jsonrpc: "2.0", id: 8, method: "ping" });
    const answers = await child.waitFor(11);
    const codeOf = (id: unknown) =>
      (byId(answers, id) as { error?: { code: number } } | undefined)?.error?.code;
    expect(codeOf(null)).toBe(-32700);
    expect(codeOf(4)).toBe(-32600);
    expect(codeOf(5)).toBe(-32600);
    expect(codeOf(6)).toBe(-32600);
    expect(codeOf(7)).toBe(-32600);
    expect(byId(answers, 8)).toMatchObject({ result: {} });
    expect(byId(answers, 10)).toMatchObject({
      error: { code: -32602, message: expect.stringMatching(/arguments\.rfqId must be a string/) },
    });
    expect(byId(answers, 11)).toMatchObject({
      error: { code: -32602, message: expect.stringMatching(/argument\.value must be a string/) },
    });
    expect(byId(answers, 9)).toMatchObject({
      result: {
        isError: true,
        content: [
          {
            text: expect.stringMatching(
              /^Invalid arguments for get_process: arguments: Unrecognized key: "__proto__"/,
            ),
          },
        ],
      },
    });
    const hidden = (byId(answers, 12) as { result: { content: { text: string }[] } }).result.content[0]?.text;
    expect(hidden).toMatch(/^Invalid arguments for get\\u202Eprocess: arguments: Unrecognized key/);
    expect(hidden).not.toContain("\u202e");
    child.process.stdin.end();
    await child.exit;
  });

  it("answers the calls in flight before it exits when stdin closes", async () => {
    api.faults.add({ endpoint: "getProcess", action: { kind: "latency", ms: 300 }, times: 3 });
    const child = start();
    child.send(initialize);
    for (const id of [1, 2, 3]) child.send(call(id, "get_process", { code: "sls" }));
    child.process.stdin.end();
    const answers = await child.waitFor(4);
    expect([1, 2, 3].map((id) => (byId(answers, id) as { result?: unknown })?.result)).not.toContain(
      undefined,
    );
    expect((await child.exit)[0]).toBe(0);
    api.faults.clear();
  });

  it.each(["SIGTERM", "SIGINT"] as const)(
    "answers the calls in flight on %s, then exits 0",
    async (signal) => {
      api.faults.add({ endpoint: "getProcess", action: { kind: "latency", ms: 400 }, times: 2 });
      const child = start();
      child.send(initialize);
      await child.waitFor(1);
      child.send(call(1, "get_process", { code: "sls" }));
      child.send(call(2, "get_process", { code: "sls" }));
      await new Promise((resolve) => setTimeout(resolve, 100));
      child.process.kill(signal);
      const answers = await child.waitFor(3);
      expect(byId(answers, 1)).toHaveProperty("result");
      expect(byId(answers, 2)).toHaveProperty("result");
      expect((await child.exit)[0]).toBe(0);
      api.faults.clear();
    },
  );

  it("ends cleanly, with one log line, when the client closes stdout", async () => {
    const child = start();
    child.send(initialize);
    await child.waitFor(1);
    child.process.stdout.destroy();
    for (let id = 1; id <= 20; id++) child.send(call(id, "list_parts", { pageSize: 50 }));
    const [code] = await child.exit;
    expect(code).toBe(0);
    expect(child.stderr()).toMatch(/EPIPE/);
    expect(child.stderr()).not.toMatch(CRASH_TEXT);
  });

  it("answers every call of a flood while its stdout is not read for a while", async () => {
    const child = start({ PARTS_MCP_MAX_IN_FLIGHT_PER_CONNECTION: "16" });
    child.send(initialize);
    await child.waitFor(1);
    child.process.stdout.pause();
    const total = 300;
    for (let id = 1; id <= total; id++)
      child.send(call(id, "list_parts", { pageSize: 50, page: (id % 5) + 1 }));
    await new Promise((resolve) => setTimeout(resolve, 500));
    child.process.stdout.resume();
    const answers = await child.waitFor(total + 1);
    for (let id = 1; id <= total; id++) expect(byId(answers, id), `call ${id}`).toHaveProperty("result");
    expect(child.stderr()).not.toMatch(/MaxListenersExceeded/);
    child.process.stdin.end();
    expect((await child.exit)[0]).toBe(0);
  }, 120_000); // generous: 300 calls on a busy machine
});

describe("the stdio wire's in-flight limit", () => {
  it("hands on no more requests than the limit, even from one chunk, and the rest in order as answers go", async () => {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    stdout.resume();
    const wire = new StdioWire({ maxMessageBytes: 1024 * 1024, maxInFlight: 4, stdin, stdout });
    const received: number[] = [];
    wire.onmessage = (message) => received.push((message as { id: number }).id);
    await wire.start();
    stdin.write(
      Array.from(
        { length: 100 },
        (_, i) => `${JSON.stringify({ jsonrpc: "2.0", id: i, method: "ping" })}\n`,
      ).join(""),
    );
    await new Promise((resolve) => setImmediate(resolve));
    expect(received).toEqual([0, 1, 2, 3]);
    expect(wire.inFlight).toBe(4);
    await wire.send({ jsonrpc: "2.0", id: 1, result: {} });
    expect(received).toEqual([0, 1, 2, 3, 4]);
    for (let id = 0; id < 100; id++) if (id !== 1) await wire.send({ jsonrpc: "2.0", id, result: {} });
    expect(received).toEqual(Array.from({ length: 100 }, (_, i) => i));
    expect(wire.inFlight).toBe(0);
    await wire.close();
  });

  it("holds no progress for a client that does not read stdout: only answers wait for it", async () => {
    const stdin = new PassThrough();
    const stdout = new PassThrough({ highWaterMark: 1024 });
    const wire = new StdioWire({ maxMessageBytes: 1024 * 1024, maxInFlight: 4, stdin, stdout });
    await wire.start();
    const progress = (n: number) => ({
      jsonrpc: "2.0" as const,
      method: "notifications/progress",
      params: { progressToken: "t", progress: n, message: "x".repeat(200) },
    });
    for (let n = 0; n < 1_000; n++) await wire.send(progress(n));
    expect(stdout.writableLength).toBeLessThan(2 * 1024);
    await wire.close();
  });
});
