// How the authorization server's own routes (routes.ts, sign-in.ts, index.ts) answer and read:
// JSON (OAuth errors, metadata), HTML pages for a person's browser, and a body read up to a bound.
import type { IncomingMessage, ServerResponse } from "node:http";
import { BodyTooLarge, readBody } from "../http/body";
import { messagePage, PAGE_HEADERS } from "./page";

const JSON_HEADERS = {
  "Content-Type": "application/json",
  "Access-Control-Allow-Origin": "*",
  "Cache-Control": "no-store",
};

/** A JSON answer: `body` an object, or JSON text already made. */
export function sendJson(
  res: ServerResponse,
  status: number,
  body: Record<string, unknown> | string,
  headers: Record<string, string> = {},
): void {
  const text = typeof body === "string" ? body : JSON.stringify(body);
  res.writeHead(status, { ...JSON_HEADERS, "Content-Length": Buffer.byteLength(text), ...headers });
  res.end(text);
}

/** An HTML page (page.ts) with its security headers. */
export function sendPage(
  res: ServerResponse,
  status: number,
  html: string,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { ...PAGE_HEADERS, "Content-Length": Buffer.byteLength(html), ...headers });
  res.end(html);
}

/** The 429 page of a person's browser, with Retry-After; what is left of the request is dropped. */
export function tooManyPage(req: IncomingMessage, res: ServerResponse, title: string, wait: number): void {
  req.resume();
  sendPage(res, 429, messagePage(title, `Wait ${wait} seconds, then try again.`), {
    "Retry-After": String(wait),
  });
}

/** A request's body as text, read up to `maxBytes`; undefined when it is larger. */
export async function readText(req: IncomingMessage, maxBytes: number): Promise<string | undefined> {
  try {
    return (await readBody(req, maxBytes)).toString("utf8");
  } catch (error) {
    if (error instanceof BodyTooLarge) return undefined;
    throw error;
  }
}
