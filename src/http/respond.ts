// The SDK's fetch-shaped handler on node:http, with the text gate on what it answers: the request
// becomes a web `Request` as the SDK's own adapter makes it (`toWebRequest`), and the `Response` is
// written here, each JSON-RPC message in it gated as text (src/text/gate.ts), errors the SDK answers
// before any server sees the request included. Gating the written text once, rather than each
// message's values and then the body again, is what a call's answer costs on the way out:
// a JSON body is read whole (it is one message), an event stream is gated event by event as it
// flows, with the socket's backpressure.
import type { IncomingMessage, ServerResponse } from "node:http";
import { toWebRequest } from "@modelcontextprotocol/node";
import type { AuthInfo } from "@modelcontextprotocol/server";
import { gateJsonText } from "../text/gate";

type FetchHandler = (
  request: Request,
  options: { authInfo?: AuthInfo; parsedBody: unknown },
) => Promise<Response>;

/** Serves one request whose JSON body was already read and parsed; never rejects. */
export async function respond(
  fetch: FetchHandler,
  req: IncomingMessage,
  res: ServerResponse,
  parsedBody: unknown,
  authInfo: AuthInfo | undefined,
  onerror: (error: Error) => void,
): Promise<void> {
  const abort = new AbortController();
  let finished = false;
  res.once("close", () => {
    if (!finished) abort.abort();
  });
  if (res.destroyed) abort.abort();
  let response: Response;
  try {
    const request = await toWebRequest(req, parsedBody, { signal: abort.signal });
    response = await fetch(request, { ...(authInfo && { authInfo }), parsedBody });
  } catch (error) {
    onerror(error instanceof Error ? error : new Error(String(error)));
    response = new Response(rpcError(-32603, "Internal error"), {
      status: 500,
      headers: { "content-type": "application/json" },
    });
  }
  const headers: Record<string, string> = {};
  for (const [name, value] of response.headers) headers[name] = value;
  const type = headers["content-type"] ?? "";
  try {
    if (response.body === null) {
      res.writeHead(response.status, headers);
    } else if (type.startsWith("application/json")) {
      const text = gateJsonText(await response.text());
      headers["content-length"] = String(Buffer.byteLength(text));
      res.writeHead(response.status, headers);
      res.write(text);
    } else {
      delete headers["content-length"];
      res.writeHead(response.status, headers);
      await stream(response.body, res, abort.signal, type.startsWith("text/event-stream"));
    }
  } catch (error) {
    onerror(error instanceof Error ? error : new Error(String(error)));
    if (!res.headersSent) res.writeHead(500, { "content-type": "application/json" });
  }
  finished = true;
  res.end();
}

/** Writes a streamed body; an event stream's `data:` lines gated one whole event at a time. */
async function stream(
  body: ReadableStream<Uint8Array>,
  res: ServerResponse,
  signal: AbortSignal,
  events: boolean,
): Promise<void> {
  const reader = body.getReader();
  const closed = new Promise<void>((resolve) =>
    signal.addEventListener("abort", () => resolve(), { once: true }),
  );
  const decoder = new TextDecoder();
  let pending = "";
  const write = async (chunk: string | Uint8Array) => {
    if (!res.write(chunk)) await Promise.race([new Promise((resolve) => res.once("drain", resolve)), closed]);
  };
  try {
    for (;;) {
      const read = await Promise.race([reader.read(), closed.then(() => undefined)]);
      if (read === undefined || read.done || signal.aborted) break;
      const { value } = read;
      if (!events) {
        await write(value);
        continue;
      }
      pending += decoder.decode(value, { stream: true });
      const end = pending.lastIndexOf("\n\n");
      if (end === -1) continue;
      await write(gateEvents(pending.slice(0, end + 2)));
      pending = pending.slice(end + 2);
    }
    pending += decoder.decode();
    if (events && pending && !signal.aborted) await write(gateEvents(pending));
  } finally {
    reader.cancel().catch(() => {});
  }
}

/** Events of a stream with each `data:` line's JSON gated. */
const gateEvents = (text: string) =>
  text
    .split("\n")
    .map((line) => (line.startsWith("data:") ? `data: ${gateJsonText(line.slice(5).trimStart())}` : line))
    .join("\n");

/** A JSON-RPC error answer with no id (the request's could not be read or is not ours to repeat). */
export const rpcError = (code: number, message: string) =>
  JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null });

/** An answer written whole: its status, its headers (lowercase names, no length) and its body. */
export interface HttpAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * A web `Response` of the SDK's auth helpers (a 401 or 403 challenge) as an answer to write: its
 * own headers, its content type included, but not its length, which is written with the body.
 */
export async function answerOf(response: Response): Promise<HttpAnswer> {
  const headers: Record<string, string> = {};
  for (const [name, value] of response.headers) if (name !== "content-length") headers[name] = value;
  return { status: response.status, headers, body: await response.text() };
}
