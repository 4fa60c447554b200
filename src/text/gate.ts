// The one text gate: every string that reaches a model or a person leaves through here, with its
// invisible and direction-changing characters written as visible `\uXXXX` escapes. `gateServer`
// puts the gate on the wire of a server (every result, error and notification it sends, on every
// transport), so that no tool, resource, prompt, completion or refusal can skip it;
// `gateJsonText` does the same for the text the server's own wires write (src/stdio/wire.ts and
// http/respond.ts, errors the SDK answers before any server sees the request included), which
// then need no gate on the server; logs (src/log/logger.ts) and the words of errors (src/mcp/messages.ts) use the same
// function.
import type { McpServer, Transport } from "@modelcontextprotocol/server";

/**
 * What is neutralised: C0 and C1 controls and DEL (tab, line feed and carriage return aside),
 * every format character (`\p{Cf}`: zero-width, bidi embeddings, overrides and isolates, the byte
 * order mark, soft hyphen, and the tag characters that hide text from people but not from
 * models), the whole tag block U+E0000–E007F (unassigned tags included), line and paragraph
 * separators, and unpaired surrogates.
 */
const INVISIBLE = /(?![\t\n\r])[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}\u{E0000}-\u{E007F}]/gu;
const INVISIBLE_FROM = new RegExp(INVISIBLE.source, "gu");

/**
 * Where the gate may have work: anything but printable ASCII, tab, line feed, carriage return and
 * the letters, marks and punctuation of the common scripts with the dashes, quotes, bullets,
 * currency, arrows and mathematical signs beside them (none is a control, a format character or a
 * line or paragraph separator; U+00AD, the soft hyphen, is a format character). One search of V8's
 * compiled expressions passes over a whole answer about three times faster than a loop over its
 * characters.
 */
const SUSPECT = /[^\t\n\r\x20-\x7e\xa0-\xac\xae-\u05ff\u2010-\u2027\u2030-\u205f\u2070-\u2bff]/;
/**
 * The same, or an escape that in JSON text may stand for a control: `\u`, and `\b` and `\f`,
 * JSON.stringify's own writing of backspace and form feed.
 */
const SUSPECT_IN_JSON = new RegExp(`${SUSPECT.source}|\\\\[ubf]`);

/**
 * Whether `text` holds what the gate neutralises (`jsonEscapes`: or an escape that may stand for
 * it). From the first suspect on, the full expression decides (test/errors/text-gate.test.ts
 * checks every code point).
 */
function mayHide(text: string, jsonEscapes: boolean): boolean {
  const at = text.search(jsonEscapes ? SUSPECT_IN_JSON : SUSPECT);
  if (at === -1) return false;
  const unit = text.charCodeAt(at);
  if (unit < 0xa0) return true; // a control, or the backslash of an escape
  INVISIBLE_FROM.lastIndex = at;
  const found = INVISIBLE_FROM.test(text);
  INVISIBLE_FROM.lastIndex = 0;
  return found || (jsonEscapes && MAY_HIDE.test(text));
}

/** One UTF-16 unit as the escape JSON and JavaScript read as that unit. */
const unitEscape = (unit: number) => `\\u${unit.toString(16).toUpperCase().padStart(4, "0")}`;

/**
 * `text` with each invisible or direction-changing character written as `\uXXXX` (a surrogate
 * pair as two): in plain text a visible mark of what was there, in JSON text an escape that
 * stands for the same character, so the same function serves both.
 */
export function escapeInvisible(text: string): string {
  if (!mayHide(text, false)) return text;
  return text.replace(INVISIBLE, (char) => {
    const high = char.charCodeAt(0);
    return char.length === 2 ? unitEscape(high) + unitEscape(char.charCodeAt(1)) : unitEscape(high);
  });
}

/** Whether `text` would leave the gate unchanged. */
export function isVisible(text: string): boolean {
  return !mayHide(text, false);
}

/**
 * `value` with every string in it (object keys too) passed through `escapeInvisible`. What has
 * nothing to neutralise is returned as it is, not copied.
 */
export function gateValue<T>(value: T): T {
  if (typeof value === "string") return escapeInvisible(value) as T;
  if (typeof value !== "object" || value === null) return value;
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    value.forEach((item, index) => {
      const gated = gateValue(item);
      if (gated !== item) {
        copy ??= [...value];
        copy[index] = gated;
      }
    });
    return (copy ?? value) as T;
  }
  let copy: Record<string, unknown> | undefined;
  for (const [key, item] of Object.entries(value)) {
    const gatedKey = escapeInvisible(key);
    const gated = gateValue(item);
    if (gatedKey === key && gated === item) continue;
    const out: Record<string, unknown> = copy ?? { ...(value as Record<string, unknown>) };
    if (gatedKey !== key) delete out[key];
    out[gatedKey] = gated;
    copy = out;
  }
  return (copy ?? value) as T;
}

type Outgoing = Parameters<Transport["send"]>[0];

/**
 * A JSON-RPC message on its way out, gated: its result, error and params. The id and the method
 * are the protocol's own and go as they are (an id is the client's, echoed for matching).
 */
function gateMessage(message: Outgoing): Outgoing {
  const record = message as Record<string, unknown>;
  let out: Record<string, unknown> | undefined;
  for (const part of ["result", "error", "params"]) {
    if (!(part in record)) continue;
    const gated = gateValue(record[part]);
    if (gated !== record[part]) {
      out ??= { ...record };
      out[part] = gated;
    }
  }
  return (out ?? message) as Outgoing;
}

/** Puts the gate on every message `server` sends, whichever transport it is connected to. */
export function gateServer(server: McpServer): void {
  const inner = server.server;
  const connect = inner.connect.bind(inner);
  inner.connect = (transport: Transport) => {
    const send = transport.send.bind(transport);
    transport.send = (message, options) => send(gateMessage(message), options);
    return connect(transport);
  };
}

/** A JSON escape (`\u0007`, `\ud800`, `\b`) may stand for what is gated, so such text is parsed to be sure. */
const MAY_HIDE = /\\(u[0-9a-fA-F]{4}|[bf])/;

/** JSON text with every string in it gated; anything that is not JSON goes as it is. */
export function gateJsonText(text: string): string {
  if (!mayHide(text, true)) return text;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return text;
  }
  if (!Array.isArray(value)) {
    const gated = gateJsonRpc(value);
    return gated === value ? text : JSON.stringify(gated);
  }
  const batch = value.map(gateJsonRpc);
  return batch.every((item, index) => item === value[index]) ? text : JSON.stringify(batch);
}

/** A JSON-RPC message gated but for its id; any other value gated whole. */
function gateJsonRpc(value: unknown): unknown {
  const isMessage = typeof value === "object" && value !== null && "jsonrpc" in value;
  return isMessage ? gateMessage(value as Outgoing) : gateValue(value);
}
