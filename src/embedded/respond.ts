// Writing a response: a computed answer (status, JSON text, extra headers) with its length and
// request id. The broken answers of the fault injection live in testing/malformed.ts.
import type { ServerResponse } from "node:http";

export const JSON_TYPE = "application/json; charset=utf-8";

/** A computed answer: status, JSON text, extra headers. */
export interface Outcome {
  status: number;
  body: string;
  headers?: Readonly<Record<string, string>> | undefined;
}

export function send(
  res: ServerResponse,
  requestId: string,
  status: number,
  body: string | Buffer,
  contentType = JSON_TYPE,
  headers?: Readonly<Record<string, string>>,
): void {
  if (res.destroyed) return;
  res.writeHead(status, {
    "content-type": contentType,
    "content-length": typeof body === "string" ? Buffer.byteLength(body) : body.length,
    "x-request-id": requestId,
    ...headers,
  });
  res.end(body);
}

export function sendOutcome(ex: { res: ServerResponse; requestId: string }, outcome: Outcome): void {
  send(ex.res, ex.requestId, outcome.status, outcome.body, JSON_TYPE, outcome.headers);
}
