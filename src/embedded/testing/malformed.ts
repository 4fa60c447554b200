// The broken answers of the malformed-response faults (see faults.ts for which variant does what):
// bodies cut, mangled, dripped or reset, written by hand on the response of a faulted request.
import type { ServerResponse } from "node:http";
import { errorJson } from "../errors";
import { JSON_TYPE, type Outcome, send } from "../respond";
import type { Exchange } from "../server";

export const MALFORMED_VARIANTS = [
  "html",
  "truncated-json",
  "wrong-content-type",
  "empty",
  "error-shape-200",
  "oversized",
  "slow-drip",
  "reset-mid-body",
  "redirect-other-host",
  "wrong-field-types",
  "missing-required",
  "extra-fields",
] as const;

export type MalformedVariant =
  | "html" // 502 with an HTML error page, content-type text/html
  | "truncated-json" // application/json, Content-Length of the cut body, cut in the middle
  | "wrong-content-type" // valid JSON body but content-type text/plain
  | "empty" // an empty body
  | "error-shape-200" // 200 carrying {status:500,message:"...",code:"internal"}
  | "oversized" // a valid JSON body over 16 MiB, streamed (chunked, no Content-Length)
  | "slow-drip" // JSON sent a few bytes at a time over `durationMs` (default 5 s)
  | "reset-mid-body" // headers and half the body, then the connection is reset
  | "redirect-other-host" // 302 (GET) / 307 (POST) to http://127.0.0.2:<port><same path and query>
  | "wrong-field-types" // the right record with wrong types: strings become 42, booleans "yes"
  | "missing-required" // the right record without a required field (id, code or fileId)
  | "extra-fields"; // the right record plus unknown fields (valid for a client)

/** A faulted request: the exchange, and a way to mark its connection as closed on purpose. */
export interface FaultedExchange extends Exchange {
  /** The server closes the connection on purpose: not counted as closed early. */
  abortedByServer(): void;
}

/** Resolves after `ms`, or as soon as the response closes (client gone, server closing). */
export function pause(ms: number, res: ServerResponse): Promise<void> {
  if (res.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      res.off("close", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    res.once("close", done);
  });
}

function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off("drain", done);
      res.off("close", done);
      resolve();
    };
    res.once("drain", done);
    res.once("close", done);
  });
}

const HTML_PAGE = `<html>
<head><title>502 Bad Gateway</title></head>
<body>
<center><h1>502 Bad Gateway</h1></center>
<hr><center>nginx</center>
</body>
</html>
`;

/** The variants answered without running the request. */
export function answerBeforeHandler(variant: MalformedVariant, ex: FaultedExchange): void {
  switch (variant) {
    case "html":
      send(ex.res, ex.requestId, 502, HTML_PAGE, "text/html; charset=utf-8");
      return;
    case "error-shape-200":
      send(
        ex.res,
        ex.requestId,
        200,
        errorJson(500, "internal error while reading the part store", "internal"),
      );
      return;
    case "redirect-other-host": {
      const status = ex.req.method === "GET" ? 302 : 307;
      send(ex.res, ex.requestId, status, errorJson(status, "moved to another host"), JSON_TYPE, {
        location: `http://127.0.0.2:${ex.req.socket.localPort}${ex.req.url ?? "/"}`,
      });
      return;
    }
    default:
      throw new Error(`variant ${variant} needs the handler's outcome`);
  }
}

/** Size of the oversized body: a little over 16 MiB. */
export const OVERSIZED_BYTES = 16 * 1024 * 1024 + 512 * 1024;
let padding: Buffer | undefined;

async function streamOversized(ex: FaultedExchange, outcome: Outcome): Promise<void> {
  const { res } = ex;
  res.writeHead(outcome.status, { "content-type": JSON_TYPE, "x-request-id": ex.requestId });
  const base = outcome.body.trimEnd();
  const open = base.endsWith("}") ? base.slice(0, -1) : "{";
  const separator = open.trimEnd().endsWith("{") ? "" : ",";
  res.write(`${open}${separator}"padding":"`);
  padding ??= Buffer.alloc(64 * 1024, "x");
  for (let sent = 0; sent < OVERSIZED_BYTES; sent += padding.length) {
    if (res.destroyed) return;
    if (!res.write(padding)) await drained(res);
  }
  if (!res.destroyed) res.end('"}');
}

/** The head of a JSON answer whose body is then written by hand, slowly or only in part. */
function writeJsonHead(ex: FaultedExchange, status: number, length: number): void {
  ex.res.writeHead(status, {
    "content-type": JSON_TYPE,
    "content-length": length,
    "x-request-id": ex.requestId,
  });
}

async function slowDrip(ex: FaultedExchange, outcome: Outcome, durationMs: number): Promise<void> {
  const { res } = ex;
  const body = Buffer.from(outcome.body);
  writeJsonHead(ex, outcome.status, body.length);
  res.flushHeaders();
  const ticks = Math.max(1, Math.min(body.length, Math.floor(durationMs / 50)));
  const chunk = Math.max(1, Math.ceil(body.length / ticks));
  const interval = durationMs / Math.max(1, Math.ceil(body.length / chunk));
  for (let offset = 0; offset < body.length; offset += chunk) {
    if (offset > 0) await pause(interval, res);
    if (res.destroyed) return;
    res.write(body.subarray(offset, offset + chunk));
  }
  res.end();
}

async function resetMidBody(ex: FaultedExchange, outcome: Outcome): Promise<void> {
  const { res } = ex;
  const body = Buffer.from(outcome.body);
  writeJsonHead(ex, outcome.status, body.length);
  res.write(body.subarray(0, Math.max(1, Math.floor(body.length / 2))));
  await pause(30, res);
  if (res.destroyed) return;
  ex.abortedByServer();
  res.socket?.resetAndDestroy();
}

function mangleJson(body: string, f: (value: unknown) => unknown): string {
  try {
    return JSON.stringify(f(JSON.parse(body)));
  } catch {
    return body;
  }
}

/** The variants that mangle the outcome of a request that did run. */
export async function answerMangled(
  variant: MalformedVariant,
  ex: FaultedExchange,
  outcome: Outcome,
  durationMs = 5000,
): Promise<void> {
  const { res, requestId } = ex;
  if (res.destroyed) return;
  const reply = (body: string | Buffer, contentType = JSON_TYPE) =>
    send(res, requestId, outcome.status, body, contentType, outcome.headers);
  switch (variant) {
    case "truncated-json": {
      const body = Buffer.from(outcome.body);
      return reply(body.subarray(0, Math.floor(body.length / 2)));
    }
    case "wrong-content-type":
      return reply(outcome.body, "text/plain; charset=utf-8");
    case "empty":
      return reply("");
    case "wrong-field-types":
      return reply(mangleJson(outcome.body, withWrongFieldTypes));
    case "missing-required":
      return reply(mangleJson(outcome.body, withoutRequiredField));
    case "extra-fields":
      return reply(mangleJson(outcome.body, withExtraFields));
    case "oversized":
      return streamOversized(ex, outcome);
    case "slow-drip":
      return slowDrip(ex, outcome, durationMs);
    case "reset-mid-body":
      return resetMidBody(ex, outcome);
    default:
      answerBeforeHandler(variant, ex);
  }
}

// ---- body transforms of the data variants ------------------------------------------------------

type Json = Record<string, unknown>;

const isRecord = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

/** Applies `f` to the record, or to the first item of an `{items}` wrapper. */
function onRecord(value: unknown, f: (record: Json) => Json, whenEmpty: (wrapper: Json) => Json): unknown {
  if (!isRecord(value)) return value;
  const items = value.items;
  if (!Array.isArray(items)) return f(value);
  if (items.length === 0 || !isRecord(items[0])) return whenEmpty(value);
  return { ...value, items: [f(items[0]), ...items.slice(1)] };
}

/** Every scalar of the record gets a wrong type: strings become 42, booleans "yes", numbers "12". */
function withWrongFieldTypes(value: unknown): unknown {
  return onRecord(
    value,
    (record) => {
      const out: Json = {};
      for (const [k, v] of Object.entries(record)) {
        out[k] =
          typeof v === "string" ? 42 : typeof v === "boolean" ? "yes" : typeof v === "number" ? String(v) : v;
      }
      return out;
    },
    (wrapper) => ({ ...wrapper, items: "none", ...("hasMore" in wrapper ? { hasMore: "no" } : {}) }),
  );
}

const REQUIRED_FIRST = ["id", "code", "fileId", "title"];

/** The record without a required field: its id (or code, fileId, title). */
function withoutRequiredField(value: unknown): unknown {
  return onRecord(
    value,
    (record) => {
      const key = REQUIRED_FIRST.find((k) => k in record) ?? Object.keys(record)[0];
      const out = { ...record };
      if (key !== undefined) delete out[key];
      return out;
    },
    (wrapper) => {
      const { items: _items, ...rest } = wrapper;
      return rest;
    },
  );
}

/** The record plus fields no schema declares. */
function withExtraFields(value: unknown): unknown {
  const extra = (record: Json): Json => ({
    ...record,
    etag: 'W/"5f3a9c"',
    schemaRevision: 7,
    _links: { self: { href: "/v1/self" } },
  });
  if (!isRecord(value)) return value;
  const base = extra(value);
  return Array.isArray(value.items) && isRecord(value.items[0])
    ? { ...base, items: [extra(value.items[0]), ...value.items.slice(1)] }
    : base;
}
