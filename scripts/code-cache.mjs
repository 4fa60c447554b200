// The V8 code cache of dist/parts-mcp.bundle.js (scripts/build.mjs; src/launch.ts loads it): the
// server is started as mcp.json starts it (the same Node, V8 flags and environment) and taken
// through a client's first steps, once per protocol era, and writes on exit the cache of all it
// compiled. The second start reads the first one's cache, so the last cache holds both eras'.
// The upstream is the embedded API run apart, as a production server's upstream is another
// process: the cache then holds what every start needs, not the sample data's code. A last start
// checks that the cache is taken.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const TIME_LIMIT_MS = 30_000;

/**
 * mcp.json's way of starting the server, with `launcher` as the script: its Node flags and its
 * environment over this one's, without NODE_OPTIONS or settings of ours (flags from there would
 * make a cache that mcp.json's starts refuse).
 */
function mcpJsonCommand(launcher) {
  const entry = JSON.parse(readFileSync(join(root, "mcp.json"), "utf8")).mcpServers["parts-mcp"];
  const nodeFlags = entry.args.filter((arg) => arg.startsWith("--"));
  const inherited = Object.entries(process.env).filter(
    ([name]) => name !== "NODE_OPTIONS" && !name.startsWith("PARTS_"),
  );
  return {
    nodeFlags,
    args: [...nodeFlags, launcher],
    env: { ...Object.fromEntries(inherited), ...entry.env, PARTS_MCP_LOG_LEVEL: "warn" },
  };
}

/** Starts `launcher` and writes the code cache next to the bundle it loads; throws when it cannot. */
export async function warmUp(launcher) {
  const api = await startApi(launcher);
  try {
    for (const era of ["2025-11-25", "2026-07-28"]) await session(launcher, era, api);
    await checkTaken(launcher, api);
  } finally {
    api.child.kill("SIGTERM");
  }
}

/** A child process that is killed after TIME_LIMIT_MS, with a promise of how it ended. */
function start(args, options) {
  const child = spawn(process.execPath, args, { cwd: root, ...options });
  const timer = setTimeout(() => child.kill("SIGKILL"), TIME_LIMIT_MS);
  const exited = new Promise((done) =>
    child.once("exit", (code, signal) => {
      clearTimeout(timer);
      done({ code, signal });
    }),
  );
  return { child, exited };
}

/** `parts-mcp api --port 0`: its URL and first demo token, read from what it prints. */
async function startApi(launcher) {
  const { env } = mcpJsonCommand(launcher);
  const { child, exited } = start([launcher, "api", "--port", "0"], {
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let printed = "";
  child.stderr.setEncoding("utf8").on("data", (chunk) => {
    printed += chunk;
  });
  const ready = new Promise((done) => {
    child.stdout.setEncoding("utf8").on("data", (chunk) => {
      printed += chunk;
      const url = /listening on (http:\/\/\S+)/.exec(printed)?.[1];
      const token = /\b(pat_demo_\w+)/.exec(printed)?.[1];
      if (url && token) done({ url, token });
    });
  });
  const found = await Promise.race([ready, exited]);
  if (!("url" in found)) throw new Error(`the embedded API did not start: ${printed.trim().slice(-500)}`);
  return { child, ...found };
}

/** One stdio session in `era`: the opening, tools/list, list_parts and get_part, then stdin closed. */
async function session(launcher, era, api) {
  const { args, env } = mcpJsonCommand(launcher);
  const { child, exited } = start(args, {
    env: { ...env, PARTS_API_BASE_URL: api.url, PARTS_API_TOKEN: api.token, PARTS_MCP_WRITE_CODE_CACHE: "1" },
    stdio: ["pipe", "pipe", "inherit"],
  });
  const pending = new Map();
  let buffered = "";
  child.stdout.setEncoding("utf8").on("data", (chunk) => {
    buffered += chunk;
    for (let newline = buffered.indexOf("\n"); newline !== -1; newline = buffered.indexOf("\n")) {
      const message = JSON.parse(buffered.slice(0, newline));
      buffered = buffered.slice(newline + 1);
      pending.get(message.id)?.(message);
    }
  });
  // A server that stops before answering fails what it has not answered.
  void exited.then(({ code, signal }) => {
    for (const answer of pending.values()) {
      answer({ error: { message: `the server exited (${code ?? signal}) before answering` } });
    }
  });
  // 2026-07-28 requests carry the envelope; the 2025 era opens with initialize instead.
  const envelope =
    era === "2025-11-25"
      ? undefined
      : {
          "io.modelcontextprotocol/protocolVersion": era,
          "io.modelcontextprotocol/clientInfo": { name: "parts-mcp-build", version: "1" },
          "io.modelcontextprotocol/clientCapabilities": {},
        };
  let nextId = 1;
  const request = (method, params = {}) =>
    new Promise((done, fail) => {
      const id = nextId++;
      pending.set(id, (message) => {
        pending.delete(id);
        if (message.error) fail(new Error(`${method}: ${message.error.message}`));
        else done(message.result);
      });
      const sent = envelope ? { ...params, _meta: envelope } : params;
      child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id, method, params: sent })}\n`);
    });
  try {
    if (envelope) {
      await request("server/discover");
    } else {
      await request("initialize", {
        protocolVersion: era,
        capabilities: {},
        clientInfo: { name: "parts-mcp-build", version: "1" },
      });
      child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`);
    }
    await request("tools/list");
    const listed = await request("tools/call", { name: "list_parts", arguments: {} });
    const id = listed.structuredContent?.items?.[0]?.id;
    if (id === undefined) throw new Error("list_parts listed no part");
    await request("tools/call", { name: "get_part", arguments: { id } });
  } finally {
    child.stdin.end();
  }
  const { code, signal } = await exited;
  if (code !== 0) throw new Error(`the warm-up start (${era}) failed (exit ${code ?? signal})`);
}

/** A start as mcp.json does, which must say on its ready line that it took the cache. */
async function checkTaken(launcher, api) {
  const { args, env } = mcpJsonCommand(launcher);
  const { child, exited } = start(args, {
    env: { ...env, PARTS_API_BASE_URL: api.url, PARTS_API_TOKEN: api.token, PARTS_MCP_LOG_LEVEL: "info" },
    stdio: ["pipe", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (chunk) => {
    stderr += chunk;
  });
  child.stdin.end();
  await exited;
  const ready = stderr.split("\n").find((line) => line.includes("ready on stdio")) ?? stderr.trim();
  if (!ready.includes('"codeCache":"used"')) throw new Error(`a start does not take the cache: ${ready}`);
}
