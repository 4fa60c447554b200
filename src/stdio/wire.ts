// The stdio wire under `serveStdio`, stricter than the SDK's own transport where a client can
// hurt the server: a line over the size limit, text that is not JSON, or JSON that is not
// JSON-RPC each get the JSON-RPC error the specification names (the SDK's transport drops them
// silently, and a line over 10 MiB closes its reader); at most `maxInFlight` requests are
// handled at once, and stdin is not read further until one is answered and its answer has left
// (so a client that floods, or stops reading stdout, holds the server's memory to that many
// answers, and progress notifications, which are advice, are dropped while stdout is full); and
// `finish` stops reading and waits for the requests in flight, so that the process
// answers them before it exits (serve.ts). Every line written passes the text gate (src/text/gate.ts).
import type { Readable, Writable } from "node:stream";
import type { JSONRPCMessage, Transport } from "@modelcontextprotocol/server";
import { refusalFor } from "../mcp/message-guard";
import { telemetry } from "../telemetry";
import { gateJsonText } from "../text/gate";

export interface StdioWireOptions {
  maxMessageBytes: number;
  maxInFlight: number;
  stdin?: Readable;
  stdout?: Writable;
}

type Id = string | number;
const NEWLINE = 0x0a;
/** How much of each end of an oversize line is kept to find its id in. */
const ID_WINDOW = 256;

/** The JSON-RPC id in a piece of a message that cannot be parsed whole. */
function idIn(text: string): Id | undefined {
  const match = /"id"\s*:\s*(-?\d{1,15}(?![\d.eE])|"(?:[^"\\]|\\.){0,200}")/.exec(text);
  if (!match?.[1]) return undefined;
  try {
    return JSON.parse(match[1]) as Id;
  } catch {
    return undefined;
  }
}

export class StdioWire implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  readonly #stdin: Readable;
  readonly #stdout: Writable;
  readonly #options: StdioWireOptions;
  #chunks: Buffer[] = [];
  #buffered = 0;
  /** True while the rest of an oversize line is being skipped. */
  #skipping = false;
  /** The first and last bytes of an oversize line: where its id is, so that the refusal can name it. */
  #skippedHead = "";
  #skippedTail = "";
  readonly #inFlight = new Set<Id>();
  #closed = false;
  #inputEnded = false;
  /**
   * Lines read while the in-flight limit was reached: stdin is paused then, so this holds at most
   * the rest of one chunk. They are handled, in order, as answers go out.
   */
  #waiting: string[] = [];
  /** One wait for stdout's drain, shared by every answer written while it is full. */
  #draining: Promise<void> | undefined;
  #idle: (() => void) | undefined;

  constructor(options: StdioWireOptions) {
    this.#options = options;
    this.#stdin = options.stdin ?? process.stdin;
    this.#stdout = options.stdout ?? process.stdout;
  }

  /** Requests received and not yet answered. */
  get inFlight(): number {
    return this.#inFlight.size;
  }

  async start(): Promise<void> {
    this.#stdin.on("data", this.#onData);
  }

  /** Stops reading and resolves once every request read so far has been answered. */
  finish(): Promise<void> {
    this.#stdin.off("data", this.#onData);
    this.#stdin.pause();
    this.#inputEnded = true;
    if (this.#inFlight.size === 0 && this.#waiting.length === 0) return Promise.resolve();
    return new Promise((resolve) => {
      this.#idle = resolve;
    });
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (this.#closed) throw new Error("stdio is closed");
    if (
      "method" in message &&
      message.method === "notifications/progress" &&
      this.#stdout.writableNeedDrain
    ) {
      return;
    }
    const id = "id" in message && !("method" in message) ? message.id : undefined;
    const written = this.#stdout.write(`${gateJsonText(JSON.stringify(message))}\n`);
    if (id === undefined || id === null) return;
    if (!written) await this.#drained();
    this.#answered(id);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#stdin.off("data", this.#onData);
    this.#stdin.pause();
    this.onclose?.();
  }

  #drained(): Promise<void> {
    this.#draining ??= new Promise<void>((resolve) =>
      this.#stdout.once("drain", () => {
        this.#draining = undefined;
        resolve();
      }),
    );
    return this.#draining;
  }

  readonly #onData = (chunk: Buffer): void => {
    let start = 0;
    for (let newline = chunk.indexOf(NEWLINE); newline !== -1; newline = chunk.indexOf(NEWLINE, start)) {
      this.#append(chunk.subarray(start, newline));
      this.#endLine();
      start = newline + 1;
    }
    if (start < chunk.length) this.#append(chunk.subarray(start));
  };

  #append(piece: Buffer): void {
    if (piece.length === 0) return;
    if (this.#skipping) {
      this.#skippedTail = (this.#skippedTail + piece.subarray(-ID_WINDOW).toString("latin1")).slice(
        -ID_WINDOW,
      );
      return;
    }
    this.#buffered += piece.length;
    if (this.#buffered > this.#options.maxMessageBytes) {
      this.#chunks.push(piece);
      const line = Buffer.concat(this.#chunks);
      this.#skippedHead = line.subarray(0, ID_WINDOW).toString("latin1");
      this.#skippedTail = line.subarray(-ID_WINDOW).toString("latin1");
      this.#chunks = [];
      this.#buffered = 0;
      this.#skipping = true;
      return;
    }
    this.#chunks.push(piece);
  }

  #endLine(): void {
    if (this.#skipping) {
      // Answered once the whole line has gone by, with its id when one can be read at either end,
      // so that the client waiting on that id gets its error.
      this.#skipping = false;
      this.#reply(idIn(this.#skippedHead) ?? idIn(this.#skippedTail) ?? null, -32600, this.#tooLarge());
      this.#skippedHead = "";
      this.#skippedTail = "";
      return;
    }
    const line = this.#chunks.length === 1 ? (this.#chunks[0] as Buffer) : Buffer.concat(this.#chunks);
    this.#chunks = [];
    this.#buffered = 0;
    const text = line.toString("utf8").trim();
    if (text === "") return;
    if (this.#atLimit() || this.#waiting.length > 0) {
      telemetry.shed("stdio_backpressure");
      this.#waiting.push(text);
    } else this.#receive(text);
  }

  #atLimit(): boolean {
    return this.#inFlight.size >= this.#options.maxInFlight;
  }

  #receive(text: string): void {
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      this.#reply(
        null,
        -32700,
        "Parse error: the line is not valid JSON. Send one JSON-RPC message per line.",
      );
      return;
    }
    const problem = jsonRpcProblem(message);
    if (problem) {
      const id = (message as { id?: unknown } | null)?.id;
      this.#reply(
        typeof id === "string" || typeof id === "number" ? id : null,
        -32600,
        `Invalid Request: ${problem}.`,
      );
      return;
    }
    const request = message as { id?: Id; method?: string };
    const refusal = refusalFor(message);
    if (refusal) {
      this.#write(refusal);
      return;
    }
    if (request.method !== undefined && request.id !== undefined) {
      this.#inFlight.add(request.id);
      if (this.#atLimit()) this.#stdin.pause();
    }
    this.onmessage?.(message as JSONRPCMessage);
  }

  #answered(id: Id): void {
    if (!this.#inFlight.delete(id)) return;
    while (this.#waiting.length > 0 && !this.#atLimit()) this.#receive(this.#waiting.shift() as string);
    if (this.#atLimit() || this.#waiting.length > 0) return;
    if (!this.#inputEnded) {
      this.#stdin.resume();
    } else if (this.#inFlight.size === 0 && this.#idle) {
      const idle = this.#idle;
      this.#idle = undefined;
      idle();
    }
  }

  #reply(id: Id | null, code: number, message: string): void {
    this.#write({ jsonrpc: "2.0", id, error: { code, message } });
  }

  #write(message: object): void {
    if (!this.#closed) this.#stdout.write(`${gateJsonText(JSON.stringify(message))}\n`);
  }

  #tooLarge(): string {
    return `Invalid Request: the message is larger than ${this.#options.maxMessageBytes} bytes (PARTS_MCP_MAX_MESSAGE_BYTES) and was dropped. Send smaller messages.`;
  }
}

/** What makes a parsed value not a JSON-RPC 2.0 message, or undefined when it is one. */
function jsonRpcProblem(message: unknown): string | undefined {
  if (typeof message !== "object" || message === null || Array.isArray(message)) {
    return "expected a JSON-RPC 2.0 object (batches are not supported)";
  }
  const { jsonrpc, method, id, params } = message as Record<string, unknown>;
  if (jsonrpc !== "2.0") return 'jsonrpc must be "2.0"';
  if (id !== undefined && typeof id !== "string" && typeof id !== "number" && id !== null) {
    return "id must be a string or a number";
  }
  if (method === undefined) {
    return "result" in message || "error" in message ? undefined : "method is missing";
  }
  if (typeof method !== "string") return "method must be a string";
  if (params !== undefined && (typeof params !== "object" || params === null)) {
    return "params must be an object or an array";
  }
  return undefined;
}
