// Shared helpers of the embedded API tests: real HTTP with fetch against 127.0.0.1, plus a raw
// socket for what fetch cannot send.
import { connect } from "node:net";
import type { z } from "zod";
import { ApiErrorBody } from "../../src/api/schemas";
import type { EmbeddedApi } from "../../src/embedded";

export interface Reply {
  status: number;
  headers: Headers;
  text: string;
  /** The parsed body, or undefined when it is not JSON. */
  json: unknown;
}

export interface CallInit {
  method?: string;
  /** Bearer token; default the demo token, null for no Authorization header. */
  token?: string | null;
  /** A value sent as JSON with Content-Type: application/json. */
  body?: unknown;
  /** A raw body, sent as is (set the content type yourself). */
  rawBody?: string | Buffer;
  headers?: Record<string, string>;
  redirect?: "follow" | "manual" | "error";
}

export async function call(api: EmbeddedApi, path: string, init: CallInit = {}): Promise<Reply> {
  const headers: Record<string, string> = { accept: "application/json", ...init.headers };
  const token = init.token === undefined ? api.demoToken : init.token;
  if (token !== null) headers.authorization = `Bearer ${token}`;
  let body: string | Buffer | undefined = init.rawBody;
  if (init.body !== undefined) {
    body = JSON.stringify(init.body);
    headers["content-type"] ??= "application/json";
  }
  const response = await fetch(`${api.url}${path}`, {
    method: init.method ?? (body === undefined ? "GET" : "POST"),
    headers,
    body,
    redirect: init.redirect ?? "manual",
  });
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, text, json };
}

/** Parses a 200 body with a schema (throws with zod's message when it does not match). */
export function ok<S extends z.ZodType>(reply: Reply, schema: S): z.output<S> {
  if (reply.status !== 200) throw new Error(`expected 200, got ${reply.status}: ${reply.text}`);
  return schema.parse(reply.json);
}

/** The Error body of a reply, checked to be the Error shape with a code. */
export function errorOf(reply: Reply): { status: number; message: string; code: string } {
  const body = ApiErrorBody.required().parse(reply.json);
  if (body.status !== reply.status) throw new Error(`body status ${body.status} != HTTP ${reply.status}`);
  return body;
}

/** Whether a JSON value contains null anywhere. */
export function hasNull(value: unknown): boolean {
  if (value === null) return true;
  if (typeof value !== "object") return false;
  return Object.values(value as object).some(hasNull);
}

/**
 * Sends raw bytes on a fresh connection and returns everything the server answers; with
 * `hangUpAfterMs`, the client hangs up that long after writing, answered or not.
 */
export function rawRequest(api: EmbeddedApi, data: string | Buffer, hangUpAfterMs?: number): Promise<string> {
  const { hostname, port } = new URL(api.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    socket.on("data", (c) => chunks.push(c));
    socket.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    socket.on("close", () => resolve(Buffer.concat(chunks).toString("utf8")));
    socket.on("error", reject);
    socket.setTimeout(5000, () => socket.destroy(new Error("raw request timed out")));
    socket.write(data);
    if (hangUpAfterMs !== undefined) setTimeout(() => socket.destroy(), hangUpAfterMs);
  });
}

/** Status and JSON body of a raw HTTP/1.1 answer. */
export function parseRaw(answer: string): { status: number; head: string; body: unknown } {
  const [head = "", body = ""] = answer.split("\r\n\r\n", 2);
  const status = Number(head.split(" ")[1]);
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    json = undefined;
  }
  return { status, head, body: json };
}
