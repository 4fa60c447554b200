// The V8 code cache of dist/parts-mcp.bundle.js (scripts/build.mjs; src/launch.ts loads it): the
// server is started as mcp.json starts it (the same Node, V8 flags and environment) and taken
// through a client's first steps, once per protocol era, and writes on exit the cache of all it
// compiled. The second start reads the first one's cache, so the last cache holds both eras'.
// The upstream is the embedded API run apart, as a production server's upstream is another
// process: the cache then holds what every start needs, not the sample data's code.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const TIME_LIMIT_MS = 30_000;

/** mcp.json's way of starting the server (node flags, environment), with `launcher` as the script. */
function mcpJsonCommand(launcher) {
  const entry = JSON.parse(readFileSync(join(root, "mcp.json"), "utf8")).mcpServers["parts-mcp"];
  return {
    args: [...entry.args.filter((arg) => arg.startsWith("--")), launcher],
    env: { ...process.env, ...entry.env, PARTS_MCP_LOG_LEVEL: "warn" },
  };
}

/** Starts `launcher` and writes the code cache next to the bundle it loads. */
export async function warmUp(launcher) {
  const api = await startApi(launcher);
  try {
    for (const era of ["2025-11-25", "2026-07-28"]) await session(launcher, era, api);
  } finally {
    api.child.kill("SIGTERM");
  }
}

/** `parts-mcp api --port 0`: its URL and first demo token, read from what it prints. */
async function startApi(launcher) {
  const child = spawn(process.execPath, [launcher, "api", "--port", "0"], {
    cwd: root,
    stdio: ["ignore", "pipe", "inherit"],
  });
  let printed = "";
  const found = await new Promise((done, fail) => {
    const timer = setTimeout(() => fail(new Error("the embedded API did not start")), TIME_LIMIT_MS);
    child.once("exit", (code) => fail(new Error(`the embedded API exited (${code})`)));
    child.stdout.setEncoding("utf8").on("data", (chunk) => {
      printed += chunk;
      const url = /listening on (http:\/\/\S+)/.exec(printed)?.[1];
      const token = /\b(pat_demo_\w+)/.exec(printed)?.[1];
      if (url && token) {
        clearTimeout(timer);
        done({ url, token });
      }
    });
  });
  return { child, ...found };
}

/** One stdio session in `era`: the opening, tools/list, list_parts and get_part, then stdin closed. */
async function session(launcher, era, api) {
  const { args, env } = mcpJsonCommand(launcher);
  const child = spawn(process.execPath, args, {
    cwd: root,
    env: { ...env, PARTS_API_BASE_URL: api.url, PARTS_API_TOKEN: api.token, PARTS_MCP_WRITE_CODE_CACHE: "1" },
    stdio: ["pipe", "pipe", "inherit"],
  });
  const timer = setTimeout(() => child.kill("SIGKILL"), TIME_LIMIT_MS);
  const exited = new Promise((done) => child.once("exit", (code, signal) => done({ code, signal })));
  const answers = new Map();
  let buffered = "";
  child.stdout.setEncoding("utf8").on("data", (chunk) => {
    buffered += chunk;
    for (let newline = buffered.indexOf("\n"); newline !== -1; newline = buffered.indexOf("\n")) {
      const message = JSON.parse(buffered.slice(0, newline));
      buffered = buffered.slice(newline + 1);
      answers.get(message.id)?.(message);
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
      answers.set(id, (message) =>
        message.error ? fail(new Error(`${method}: ${message.error.message}`)) : done(message.result),
      );
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
  clearTimeout(timer);
  if (code !== 0) throw new Error(`the code cache warm-up start (${era}) failed (exit ${code ?? signal})`);
}
