// Shared by the reliability tests: a server spawned from mcp.json (test/support/mcp-server.ts)
// with the reference cache off (so that every call reaches the API and its faults) and with
// --unhandled-rejections=strict, so that any unhandled rejection kills it; and the checks that it
// is still alive and well.
import { readFileSync } from "node:fs";
import type { CallToolResult } from "@modelcontextprotocol/client";
import { expect } from "vitest";
import type { TestApi, TestApiOptions } from "../../src/embedded/testing";
import { type RunningServer, startServer, textOf } from "../support/mcp-server";

export interface WatchedServer extends RunningServer {
  /** The server process's id. */
  pid: number;
  /** True once the connection closed without the test closing it (the process died). */
  died(): boolean;
  /** Fails the test unless the process is alive, answers a ping and a tool call, and wrote no crash. */
  assertHealthy(): Promise<void>;
}

export interface WatchedOptions {
  env?: Record<string, string>;
  api?: TestApiOptions;
  sharedApi?: TestApi;
}

/** Words Node writes when a process dies of an unhandled rejection or an uncaught exception. */
export const CRASH_TEXT =
  /Unhandled|unhandledRejection|ERR_UNHANDLED_REJECTION|uncaughtException|^\s+at .+:\d+:\d+\)?$/m;

export async function startWatchedServer(options: WatchedOptions = {}): Promise<WatchedServer> {
  const server = await startServer({
    ...options,
    env: {
      PARTS_MCP_CACHE_TTL_MS: "0",
      NODE_OPTIONS: "--unhandled-rejections=strict",
      ...options.env,
    },
  });
  const transport = server.client.transport as { pid?: number | null } | undefined;
  const pid = transport?.pid;
  if (typeof pid !== "number") throw new Error("the stdio transport has no process id");
  let closing = false;
  let died = false;
  server.client.onclose = () => {
    if (!closing) died = true;
  };
  return {
    ...server,
    pid,
    died: () => died,
    async assertHealthy() {
      expect(died, `the server exited; stderr:\n${server.stderr().slice(-2000)}`).toBe(false);
      expect(isAlive(pid)).toBe(true);
      await server.client.ping();
      const result = await server.call("get_process", { code: server.api.store.processes()[0]?.code });
      expect(result.isError, textOf(result)).toBeFalsy();
      expect(server.stderr()).not.toMatch(CRASH_TEXT);
    },
    async close() {
      closing = true;
      await server.close();
    },
  };
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Resident set size of a process in bytes (Linux /proc). */
export function rssBytes(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = /^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1];
  if (kb === undefined) throw new Error(`no VmRSS for process ${pid}`);
  return Number(kb) * 1024;
}

/** Polls `check` every 10 ms until it holds or `ms` pass; returns its last value. */
export async function eventually(check: () => boolean, ms = 5_000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return check();
}

/** The text of a failed call; fails the test when the call succeeded. */
export function errorText(result: CallToolResult): string {
  expect(result.isError, `expected an error, got ${textOf(result).slice(0, 300)}`).toBe(true);
  expect(result.structuredContent).toBeUndefined();
  return textOf(result);
}

/** A visible sample part of the first demo organisation. */
export function somePart(api: TestApi) {
  const org = api.accounts[0]?.orgId ?? "";
  const part = api.store.sampleParts().find((p) => api.store.isVisible(p, org) && p.ipOwnerId === org);
  if (!part) throw new Error("no sample part owned by the first organisation");
  return part;
}
