// A bare JSON-RPC client over a server's stdio, for the benchmarks: no SDK, no validation of what
// comes back, so that a figure is the server's time and not the client's. It speaks both protocol
// eras: 2025-11-25 opens with `initialize`; 2026-07-28 opens with `server/discover` and carries the
// per-request `_meta` envelope (protocol version, client info, client capabilities) on every
// request. Requests may overlap; answers are matched by id.
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { exited, repoRoot, type ServerSpec, track, withTimeout } from "./lib";

type Era = "2026-07-28" | "2025-11-25";

const CLIENT_INFO = { name: "parts-mcp-bench", version: "1.0.0" };

/** The 2026-07-28 envelope every request carries in `params._meta`. */
const ENVELOPE = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": CLIENT_INFO,
  "io.modelcontextprotocol/clientCapabilities": {},
};

interface RpcAnswer {
  /** The line the server wrote, as it wrote it. */
  line: string;
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: unknown };
}

/** A tools/call result as the benchmarks read it. */
interface ToolResult {
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

export class RpcSession {
  readonly pid: number;
  /** performance.now() just before the process was spawned. */
  readonly spawnedAt: number;
  private era: Era = "2025-11-25";
  private nextId = 1;
  private buffer = "";
  private stderrTail = "";
  private readonly pending = new Map<number, (answer: RpcAnswer) => void>();
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly gone: Promise<never>;

  constructor(readonly spec: ServerSpec) {
    this.spawnedAt = performance.now();
    this.child = track(
      spawn(spec.command, spec.args, {
        cwd: repoRoot,
        env: { PATH: process.env.PATH ?? "", ...spec.env },
        stdio: ["pipe", "pipe", "pipe"],
      }),
    );
    if (this.child.pid === undefined) throw new Error(`${spec.label}: could not spawn ${spec.command}`);
    this.pid = this.child.pid;
    // stderr drained and dropped (a tail kept for errors): logging costs what writing to a pipe costs.
    this.child.stderr.on("data", (chunk: Buffer) => {
      this.stderrTail = (this.stderrTail + chunk.toString()).slice(-2_000);
    });
    this.child.stdout.on("data", (chunk: Buffer) => this.read(chunk));
    this.gone = new Promise<never>((_, reject) =>
      this.child.once("exit", (code, signal) =>
        reject(new Error(`${spec.label} exited (${code ?? signal}); stderr ends: ${this.stderrTail}`)),
      ),
    );
    this.gone.catch(() => {});
  }

  /** Spawns the server and opens a session in `era`. */
  static async start(spec: ServerSpec, era: Era): Promise<RpcSession> {
    const session = new RpcSession(spec);
    try {
      await session.open(era);
    } catch (error) {
      await session.close();
      throw error;
    }
    return session;
  }

  /** The opening exchange, written at once (it waits in the pipe until the server reads it). */
  async open(era: Era): Promise<void> {
    this.era = era;
    const answer =
      era === "2025-11-25"
        ? await this.request("initialize", {
            protocolVersion: era,
            capabilities: {},
            clientInfo: CLIENT_INFO,
          })
        : await this.request("server/discover", {});
    if (answer.error) throw new Error(`${this.spec.label}: opening failed: ${answer.line}`);
    if (era === "2025-11-25")
      this.child.stdin.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
  }

  /** One request; the 2026 envelope is added to its params in that era. */
  request(method: string, params: Record<string, unknown> = {}, timeoutMs = 30_000): Promise<RpcAnswer> {
    const id = this.nextId++;
    const withMeta = this.era === "2026-07-28" ? { ...params, _meta: ENVELOPE } : params;
    const answered = new Promise<RpcAnswer>((resolve) => this.pending.set(id, resolve));
    this.child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id, method, params: withMeta })}\n`);
    return withTimeout(Promise.race([answered, this.gone]), timeoutMs, `${this.spec.label} ${method}`);
  }

  /** tools/call; a JSON-RPC error is thrown, an isError result returned. */
  async call(name: string, args: Record<string, unknown> = {}): Promise<ToolResult> {
    const answer = await this.request("tools/call", { name, arguments: args });
    if (answer.error) throw new Error(`${this.spec.label} ${name}: ${answer.line.slice(0, 500)}`);
    return answer.result as unknown as ToolResult;
  }

  /** Closes stdin (the server's cue to exit), then waits for the exit, killing it after 5 s. */
  async close(): Promise<void> {
    this.child.stdin.end();
    await exited(this.child, 5_000);
  }

  /** Ends the process at once (a cold start measured, its exit is of no interest). */
  async kill(): Promise<void> {
    this.child.kill("SIGKILL");
    await exited(this.child, 5_000);
  }

  private read(chunk: Buffer): void {
    this.buffer += chunk.toString("utf8");
    for (let nl = this.buffer.indexOf("\n"); nl !== -1; nl = this.buffer.indexOf("\n")) {
      const line = this.buffer.slice(0, nl);
      this.buffer = this.buffer.slice(nl + 1);
      const message = JSON.parse(line) as { id?: number } & Omit<RpcAnswer, "line">;
      if (typeof message.id !== "number") continue; // a notification
      const resolve = this.pending.get(message.id);
      this.pending.delete(message.id);
      resolve?.({ line, result: message.result, error: message.error });
    }
  }
}
