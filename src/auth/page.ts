// The sign-in page: one server-rendered form, no script, no third-party asset, its one style
// allowed by hash in a strict Content-Security-Policy, never framed, never cached. What the
// client chose about itself (its name, even its redirect address) is shown after the hosts a
// person can check, and only through clientText.
import { createHash } from "node:crypto";
import { escapeInvisible } from "../text/gate";

const STYLE = `body{font:16px/1.5 system-ui,sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem;color:#1a1a1a}
h1{font-size:1.4rem}label{display:block;margin:1rem 0 .3rem;font-weight:600}
input[type=password]{width:100%;padding:.5rem;font:inherit;box-sizing:border-box}
button{margin-top:1rem;padding:.5rem 1.2rem;font:inherit}.error{color:#a00;font-weight:600}
.note{color:#555;font-size:.9rem}code{word-break:break-all}`;
const STYLE_HASH = createHash("sha256").update(STYLE).digest("base64");

export const PAGE_HEADERS = {
  "Content-Type": "text/html; charset=utf-8",
  // No form-action: after the post, the browser follows redirects to the client's own address.
  "Content-Security-Policy": `default-src 'none'; style-src 'sha256-${STYLE_HASH}'; base-uri 'none'; frame-ancestors 'none'`,
  "X-Frame-Options": "DENY",
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "no-referrer",
  "Cache-Control": "no-store",
} as const;

const SCOPE_WORDS: Record<string, string> = {
  "parts:read": "read parts, RFQs, factories and reference data with your token",
  "parts:write": "create parts and import part files with your token",
};

/** The longest client-chosen text shown, in characters after the gate. */
const MAX_CLIENT_TEXT = 64;
/**
 * Runs of what shows as blank space: white space (tab, line breaks, no-break and every Unicode
 * space) and the blank letters of Hangul and Braille.
 */
const BLANKS = /[\s\u115F\u1160\u3164\uFFA0\u2800]+/gu;

/**
 * Client-chosen text as the page shows it: blanks collapsed to one space, invisible and
 * direction-changing characters written as visible escapes by the text gate, at most
 * MAX_CLIENT_TEXT characters; undefined when nothing is left.
 */
export function clientText(value: unknown): string | undefined {
  if (typeof value !== "string") return undefined;
  const text = escapeInvisible(value.replace(BLANKS, " ").trim());
  if (text === "") return undefined;
  const chars = [...text];
  return chars.length <= MAX_CLIENT_TEXT ? text : `${chars.slice(0, MAX_CLIENT_TEXT - 1).join("")}…`;
}

export interface SignInView {
  action: string;
  csrf: string;
  /** Each through clientText. */
  clientName: string | undefined;
  redirectHost: string;
  /** A metadata-document client's: the host that publishes it. */
  documentHost: string | undefined;
  scopes: string[];
  error?: string;
}

export function signInPage(view: SignInView): string {
  const scopes = view.scopes
    .map((scope) => `<li><code>${escapeHtml(scope)}</code>: ${escapeHtml(SCOPE_WORDS[scope] ?? scope)}</li>`)
    .join("");
  const host = escapeHtml(view.redirectHost);
  const published = view.documentHost ? ` (described by <code>${escapeHtml(view.documentHost)}</code>)` : "";
  const named = view.clientName
    ? `, which calls itself <strong>${escapeHtml(view.clientName)}</strong>,`
    : "";
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>Connect ${host} to Parts</title><style>${STYLE}</style></head>
<body><main>
<h1>Connect <code>${host}</code> to Parts</h1>
<p>An application returning to <code>${host}</code>${published}${named} asks to:</p>
<ul>${scopes}</ul>
${view.error ? `<p class="error" role="alert">${escapeHtml(view.error)}</p>` : ""}
<form method="post" action="${escapeHtml(view.action)}">
<input type="hidden" name="csrf" value="${escapeHtml(view.csrf)}">
<label for="token">Your Parts API personal access token</label>
<input type="password" id="token" name="token" autocomplete="off" required maxlength="4096">
<p class="note">It is checked with the Parts API, then kept encrypted for this connection only. Disconnecting revokes it here.</p>
<button type="submit">Connect</button>
</form></main></body></html>`;
}

export function messagePage(title: string, message: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title><style>${STYLE}</style></head><body><main><h1>${escapeHtml(title)}</h1><p>${escapeHtml(message)}</p></main></body></html>`;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
