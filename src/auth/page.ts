// The sign-in page: one server-rendered form, no script, no third-party asset, its one style
// allowed by hash in a strict Content-Security-Policy, never framed, never cached.
import { createHash } from "node:crypto";

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

export interface SignInView {
  action: string;
  csrf: string;
  clientName: string;
  redirectHost: string;
  scopes: string[];
  error?: string;
}

export function signInPage(view: SignInView): string {
  const scopes = view.scopes
    .map((scope) => `<li><code>${escapeHtml(scope)}</code>: ${escapeHtml(SCOPE_WORDS[scope] ?? scope)}</li>`)
    .join("");
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>Connect ${escapeHtml(view.clientName)} to Parts</title><style>${STYLE}</style></head>
<body><main>
<h1>Connect ${escapeHtml(view.clientName)} to Parts</h1>
<p><strong>${escapeHtml(view.clientName)}</strong> (returning to <code>${escapeHtml(view.redirectHost)}</code>) asks to:</p>
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
