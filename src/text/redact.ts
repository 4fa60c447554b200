// Redaction: every known secret, in every form it can take in text, and every credential-looking
// part of a text (bearer tokens, Authorization values, URL query strings, since a SAS URL's query
// is a credential, signature parameters and user:password in URLs) replaced by [REDACTED]. Logs
// (src/log/logger.ts), the client's error facts and the words of errors all redact through here.

export const REDACTED = "[REDACTED]";
/** Values shorter than this are never redacted as literals: they are not secrets, and redacting
 * `e` or `"` would garble every line. Patterns (`Bearer …`, `sig=…`) still apply to any length. */
export const MIN_SECRET_LENGTH = 16;
/** Learned secrets kept by a logger (the most recent ones). */
export const LEARNED_SECRETS_LIMIT = 1_000;

/**
 * Secret values to redact, each with every form it can take in text: raw, percent-encoded (once
 * and twice, upper- and lower-case hex), percent-decoded, JSON-escaped, base64 and base64url.
 * Values given at construction stay; learned values are bounded (the most recent are kept).
 */
export class SecretSet {
  readonly #fixed = new Set<string>();
  readonly #learned = new Set<string>();
  #forms: Map<string, string[]> | undefined;
  /** The forms as UTF-8 bytes, made with #forms: a body is searched without encoding each again. */
  #encoded: Buffer[] = [];

  constructor(values: Iterable<string> = []) {
    for (const value of values) if (isSecretSized(value)) this.#fixed.add(value);
  }

  /** Adds a learned value; false when it is too short to be a secret. */
  learn(value: string): boolean {
    if (!isSecretSized(value)) return false;
    if (this.#fixed.has(value)) return true;
    if (this.#learned.delete(value)) {
      this.#learned.add(value); // most recent last; the forms are unchanged
      return true;
    }
    this.#learned.add(value);
    if (this.#learned.size > LEARNED_SECRETS_LIMIT)
      this.#learned.delete(this.#learned.values().next().value as string);
    this.#forms = undefined;
    return true;
  }

  /** Whether any form of any value occurs in `data` (a response body, before it is parsed). */
  foundIn(data: Buffer): boolean {
    this.#index();
    for (const form of this.#encoded) if (data.includes(form)) return true;
    return false;
  }

  /** `text` with every form of every value replaced by REDACTED: one pass, longest form first. */
  replaceIn(text: string): string {
    if (text.length < MIN_SECRET_LENGTH) return text;
    const index = this.#index();
    if (index.size === 0) return text;
    let out = "";
    let copied = 0;
    for (let at = 0; at + MIN_SECRET_LENGTH <= text.length; ) {
      const form = index.get(text.slice(at, at + PREFIX_LENGTH))?.find((f) => text.startsWith(f, at));
      if (form === undefined) {
        at++;
        continue;
      }
      out += `${text.slice(copied, at)}${REDACTED}`;
      at += form.length;
      copied = at;
    }
    return copied === 0 ? text : out + text.slice(copied);
  }

  /** The forms by their first PREFIX_LENGTH characters, so that a line is scanned once, whatever the number of secrets. */
  #index(): Map<string, string[]> {
    if (this.#forms === undefined) {
      this.#forms = new Map();
      const all = new Set<string>();
      for (const value of [...this.#fixed, ...this.#learned])
        for (const form of formsOf(value)) all.add(form);
      this.#encoded = [...all].map((form) => Buffer.from(form));
      for (const form of [...all].sort((a, b) => b.length - a.length)) {
        const prefix = form.slice(0, PREFIX_LENGTH);
        const list = this.#forms.get(prefix);
        if (list) list.push(form);
        else this.#forms.set(prefix, [form]);
      }
    }
    return this.#forms;
  }
}

/** Every form is at least MIN_SECRET_LENGTH long, so its first 8 characters always exist. */
const PREFIX_LENGTH = 8;

const isSecretSized = (value: string) => typeof value === "string" && value.length >= MIN_SECRET_LENGTH;

function formsOf(value: string): string[] {
  const forms = new Set<string>();
  const encodings = (text: string) => {
    forms.add(text);
    const once = encodeURIComponent(text);
    forms.add(once);
    forms.add(once.replace(/%[0-9A-F]{2}/g, (hex) => hex.toLowerCase()));
    forms.add(encodeURIComponent(once));
    forms.add(JSON.stringify(text).slice(1, -1));
    forms.add(JSON.stringify(text).slice(1, -1).replace(/\//g, "\\/"));
    const base64 = Buffer.from(text).toString("base64");
    forms.add(base64.replace(/=+$/, ""));
    forms.add(Buffer.from(text).toString("base64url"));
  };
  encodings(value);
  const decoded = safeDecode(value);
  if (decoded !== value) encodings(decoded);
  return [...forms].filter((form) => form.length >= MIN_SECRET_LENGTH);
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, " "));
  } catch {
    return text;
  }
}

/**
 * The secrets of a URL given as an argument (a SAS URL): its query string, raw and decoded, and
 * its user:password. Values shorter than MIN_SECRET_LENGTH are left to the patterns of `redact`.
 */
export function urlSecrets(url: string): string[] {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return [];
  }
  const query = parsed.search.slice(1);
  const userinfo = parsed.username || parsed.password ? `${parsed.username}:${parsed.password}` : "";
  const values = [query, ...[...parsed.searchParams.values()], parsed.password, userinfo];
  return values.filter(isSecretSized);
}

// `Bearer <token>` anywhere (header dumps, error texts).
const BEARER = /\b(bearer\s+)(?!\[REDACTED\])[^\s"'\\,;]+/gi;
// The value of an Authorization header in `name: value`, `"name":"value"` or `name=value` form:
// an optional scheme word and the credential after it.
const AUTHORIZATION =
  /\b((?:proxy-)?authorization\\?["']?\s*[:=]\s*\\?["']?)(?:(?:bearer|basic|digest|token|negotiate|sas|aws4-hmac-sha256)\s+)?[^\s"'\\,;}]+/gi;
// The query string of every http(s) URL, raw or JSON-escaped (`https:\/\/…`): SAS URLs carry
// their signature there.
const URL_QUERY = /(https?:(?:\\?\/){2}(?:[^\s"'<>?#\\]|\\\/)+)\?(?!\[REDACTED\])[^\s"'<>#\\]*/gi;
// The same in a percent-encoded URL (once or more: `https%3A%2F%2F…%3F…`), whose query ends at a
// raw `&` (the URL is itself a parameter value).
const ENCODED_URL_QUERY =
  /(https?%(?:25)*3A(?:%(?:25)*2F){2}(?:[^\s"'<>?#&\\%]|%(?!(?:25)*3F))+)(%(?:25)*3F)(?!\[REDACTED\])[^\s"'<>#&\\]*/gi;
// user:password@ in a URL.
const URL_USERINFO = /\b(https?:\/\/)[^\s/@"'<>\\]+@/gi;
// Parameters that carry a credential, wherever they appear: in a query, a bare `sig=…`, a
// percent-encoded URL (`sig%3D…`), JSON text (`\u0026sig=…`). Azure SAS: sig (the other SAS
// fields, sv se sp st sr spr, say what the signature allows, not the credential); AWS:
// X-Amz-Signature, X-Amz-Credential, X-Amz-Security-Token; Google: X-Goog-Signature,
// X-Goog-Credential; and the usual names of tokens, keys and passwords.
const SECRET_NAMES =
  "x-amz-signature|x-amz-security-token|x-amz-credential|x-goog-signature|x-goog-credential|googleaccessid|awsaccesskeyid|signature|sig|access_token|refresh_token|id_token|client_secret|api_key|apikey|password|passwd|secret|token|key";
const BEFORE_NAME = String.raw`(?:(?<![\w.-])|(?<=\\u0026|%(?:25)*26))`;
const SECRET_PARAM = new RegExp(
  String.raw`${BEFORE_NAME}((?:${SECRET_NAMES})=)(?!\[REDACTED\])[^\s"'&#<>\\,;]+`,
  "gi",
);
const ENCODED_SECRET_PARAM = new RegExp(
  String.raw`${BEFORE_NAME}((?:${SECRET_NAMES})%(?:25)*3D)(?!\[REDACTED\])(?:(?!%(?:25)*26)[^\s"'&#<>\\,;])+`,
  "gi",
);

/** Replaces every known secret and every credential-looking part of `text` with `[REDACTED]`. */
export function redact(text: string, secrets: SecretSet | Iterable<string> = []): string {
  const known = secrets instanceof SecretSet ? secrets : new SecretSet(secrets);
  return known
    .replaceIn(text)
    .replace(BEARER, `$1${REDACTED}`)
    .replace(AUTHORIZATION, `$1${REDACTED}`)
    .replace(URL_USERINFO, `$1${REDACTED}@`)
    .replace(URL_QUERY, `$1?${REDACTED}`)
    .replace(ENCODED_URL_QUERY, `$1$2${REDACTED}`)
    .replace(SECRET_PARAM, `$1${REDACTED}`)
    .replace(ENCODED_SECRET_PARAM, `$1${REDACTED}`);
}
