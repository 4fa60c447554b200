// The parts of an OAuth test: the built server started in the `oauth` mode as an operator does,
// an SDK OAuth client provider playing the chat host (it keeps what a host keeps: client
// registration, tokens, the PKCE verifier), and a scripted person who opens the authorization
// URL, reads the sign-in page and posts the form, as a browser would (cookies, redirects).
import { createHash, randomBytes } from "node:crypto";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import {
  Client,
  type OAuthClientProvider,
  StreamableHTTPClientTransport,
  UnauthorizedError,
} from "@modelcontextprotocol/client";
import type { TestApi } from "../../src/embedded/testing";
import { type HttpServerProcess, MCP_HEADERS, raw, spawnHttpServer, toolCall } from "../http/support";
import { repoRoot } from "../support/mcp-server";

/** Where a host built by hand is sent back to (nothing listens there: the code is read from the URL). */
export const CALLBACK = "http://127.0.0.1:9/callback";

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export const newKey = () => randomBytes(32).toString("base64");
export const tempDir = (name: string) => mkdtempSync(join(tmpdir(), `parts-mcp-${name}-`));

/**
 * A data directory for the embedded store, copied from a template made once (PGlite's first
 * start, its initdb, takes seconds; opening a copy takes a fraction of one). The template lives in
 * .cache/, keyed by PGlite's version; concurrent test files make their own and the first rename wins.
 */
export async function embeddedDataDir(name: string): Promise<string> {
  const pglite = join(repoRoot, "node_modules", "@electric-sql", "pglite", "package.json");
  const { version } = JSON.parse(readFileSync(pglite, "utf8")) as { version: string };
  const template = join(repoRoot, ".cache", `pglite-${version}`);
  if (!existsSync(template)) {
    const building = `${template}.${process.pid}`;
    mkdirSync(dirname(template), { recursive: true });
    const { PGlite } = await import("@electric-sql/pglite");
    const db = await PGlite.create(building);
    await db.close();
    try {
      renameSync(building, template);
    } catch {
      rmSync(building, { recursive: true, force: true });
    }
  }
  const dir = join(tempDir(name), "data");
  cpSync(template, dir, { recursive: true });
  return dir;
}

export interface OAuthServerOptions {
  api: TestApi;
  /** Default: a fresh embedded store (`embeddedDataDir`). */
  store?: { dataDir: string } | { databaseUrl: string };
  /** PARTS_MCP_OAUTH_KEYS; default: one new key. */
  keys?: string;
  env?: Record<string, string>;
  /** The public URL's port, when it is another replica's (default: this server's own). */
  publicPort?: number;
  /** This server's port (a restart keeps its URL); default a free one. */
  port?: string;
}

export interface OAuthServer extends HttpServerProcess {
  /** The public issuer (shared by replicas). */
  issuer: string;
  /** This process's own origin. */
  origin: string;
}

/** `parts-mcp --http` with PARTS_MCP_AUTH=oauth on a free port of its own public URL. */
export async function startOAuthServer(options: OAuthServerOptions): Promise<OAuthServer> {
  const port = options.port === undefined ? await freePort() : Number(options.port);
  const issuer = `http://127.0.0.1:${options.publicPort ?? port}`;
  const store = options.store ?? { dataDir: await embeddedDataDir("oauth") };
  const server = await spawnHttpServer({
    api: options.api,
    args: ["--port", String(port)],
    env: {
      PARTS_MCP_AUTH: "oauth",
      PARTS_MCP_PUBLIC_URL: `${issuer}/mcp`,
      PARTS_MCP_OAUTH_KEYS: options.keys ?? `k1:${newKey()}`,
      ...("dataDir" in store
        ? { PARTS_MCP_DATA_DIR: store.dataDir }
        : { PARTS_MCP_DATABASE_URL: store.databaseUrl }),
      ...options.env,
    },
  });
  return { ...server, issuer, origin: `http://127.0.0.1:${port}` };
}

/** The host's side of OAuth, kept in memory: what Claude or ChatGPT keep per connector. */
export class TestHost implements OAuthClientProvider {
  clientInfo: Awaited<ReturnType<OAuthClientProvider["clientInformation"]>>;
  saved: Awaited<ReturnType<OAuthClientProvider["tokens"]>>;
  #verifier = "";
  /** The last URL the host sent the person to. */
  authorizationUrl: URL | undefined;
  readonly clientMetadataUrl?: string;
  readonly #name: string;

  constructor(name: string, clientMetadataUrl?: string) {
    this.#name = name;
    if (clientMetadataUrl !== undefined) this.clientMetadataUrl = clientMetadataUrl;
  }

  get redirectUrl() {
    return CALLBACK;
  }
  get clientMetadata() {
    return {
      client_name: this.#name,
      redirect_uris: [CALLBACK],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  }
  clientInformation() {
    return this.clientInfo;
  }
  saveClientInformation(info: NonNullable<TestHost["clientInfo"]>) {
    this.clientInfo = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: NonNullable<TestHost["saved"]>) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.#verifier = verifier;
  }
  codeVerifier() {
    return this.#verifier;
  }
  #discovery: unknown;
  saveDiscoveryState(state: unknown) {
    this.#discovery = state;
  }
  discoveryState() {
    return this.#discovery as never;
  }
}

/** A browser's worth of HTTP for one person: a cookie jar, redirects followed by hand. */
export class Person {
  readonly #cookies = new Map<string, string>();
  readonly token: string;
  /** How this person's browser sends a request (the bench counts them). */
  fetch: typeof globalThis.fetch = (input, init) => globalThis.fetch(input, init);

  constructor(token: string) {
    this.token = token;
  }

  async request(url: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    if (this.#cookies.size > 0)
      headers.set("cookie", [...this.#cookies].map(([k, v]) => `${k}=${v}`).join("; "));
    const response = await this.fetch(url, { ...init, headers, redirect: "manual" });
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(";");
      const eq = (pair ?? "").indexOf("=");
      if (eq > 0) this.#cookies.set((pair as string).slice(0, eq).trim(), (pair as string).slice(eq + 1));
    }
    return response;
  }

  /** Follows redirects from `url` until the sign-in page (its URL and HTML) or the client's
   * redirect URI, on another origin, which is not followed. */
  async follow(url: string, init?: RequestInit): Promise<{ url: string; response: Response }> {
    let current = url;
    let response = await this.request(current, init);
    for (let hops = 0; hops < 10 && response.status >= 300 && response.status < 400; hops++) {
      const next = new URL(response.headers.get("location") ?? "", current);
      current = next.href;
      if (next.origin !== new URL(url).origin) return { url: current, response };
      response = await this.request(current);
    }
    return { url: current, response };
  }

  /** Opens the authorization URL: the sign-in page's URL, HTML and CSRF token. */
  async open(authorizationUrl: URL): Promise<SignInPage> {
    const { url, response } = await this.follow(authorizationUrl.href);
    const html = await response.text();
    const csrf = /name="csrf" value="([^"]+)"/.exec(html)?.[1] ?? "";
    return { url, html, csrf, status: response.status, headers: response.headers };
  }

  /** Posts the form; the final URL (the callback with code, or the page again) and the response. */
  async submit(page: SignInPage, fields: Record<string, string>) {
    const origin = new URL(page.url).origin;
    return this.follow(page.url, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", origin },
      body: new URLSearchParams(fields).toString(),
    });
  }

  /** The whole sign-in: open, post the token, and the callback's parameters. */
  async signIn(authorizationUrl: URL | undefined, callback = CALLBACK): Promise<URLSearchParams> {
    if (!authorizationUrl) throw new Error("the host was not sent to authorize");
    const page = await this.open(authorizationUrl);
    const done = await this.submit(page, { csrf: page.csrf, token: this.token });
    if (!done.url.startsWith(callback)) {
      throw new Error(
        `sign-in did not reach the callback (${done.response.status} at ${done.url}): ${await done.response.text()}`,
      );
    }
    return new URL(done.url).searchParams;
  }
}

export interface SignInPage {
  url: string;
  html: string;
  csrf: string;
  status: number;
  headers: Headers;
}

/**
 * Connects `host` to `mcpUrl` as a chat host does: the first attempt meets the 401, the person
 * signs in, the host finishes the authorization and connects again.
 */
export async function connectWithSignIn(
  mcpUrl: string,
  host: TestHost,
  person: Person,
  hostFetch?: typeof fetch,
  personFetch?: typeof fetch,
): Promise<Client> {
  if (personFetch) person.fetch = personFetch;
  const first = new StreamableHTTPClientTransport(new URL(mcpUrl), {
    authProvider: host,
    ...(hostFetch && { fetch: hostFetch }),
  });
  const client = new Client({ name: "oauth-test-host", version: "1.0.0" });
  try {
    await client.connect(first);
    return client;
  } catch (error) {
    if (!(error instanceof UnauthorizedError)) throw error;
  }
  await first.finishAuth(await person.signIn(host.authorizationUrl));
  return connectSignedIn(mcpUrl, host, hostFetch);
}

/** A client on the host's current tokens (no sign-in). */
export async function connectSignedIn(
  mcpUrl: string,
  host: TestHost,
  hostFetch?: typeof fetch,
): Promise<Client> {
  const client = new Client({ name: "oauth-test-host", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(mcpUrl), {
      authProvider: host,
      ...(hostFetch && { fetch: hostFetch }),
    }),
  );
  return client;
}

/** PKCE's verifier and S256 challenge. */
export function pkce() {
  const verifier = randomBytes(32).toString("base64url");
  const challenge = createHash("sha256").update(verifier).digest("base64url");
  return { verifier, challenge };
}

/** An authorization URL built by hand (as a host other than the SDK would). */
export function authorizationUrl(
  issuer: string,
  fields: { clientId: string; redirectUri: string; challenge: string; scope?: string; resource?: string },
): URL {
  const url = new URL("/authorize", issuer);
  url.search = new URLSearchParams({
    response_type: "code",
    client_id: fields.clientId,
    redirect_uri: fields.redirectUri,
    code_challenge: fields.challenge,
    code_challenge_method: "S256",
    state: randomBytes(8).toString("hex"),
    ...(fields.scope !== undefined && { scope: fields.scope }),
    resource: fields.resource ?? `${issuer}/mcp`,
  }).toString();
  return url;
}

/** A dynamic registration by hand of a public client (no secret) sent back to CALLBACK: the response. */
export function register(origin: string, metadata: Record<string, unknown> = {}): Promise<Response> {
  return fetch(`${origin}/register`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ redirect_uris: [CALLBACK], token_endpoint_auth_method: "none", ...metadata }),
  });
}

/** The client_id of a public client registered by hand (`register`), which must succeed. */
export async function registerClient(
  origin: string,
  metadata: Record<string, unknown> = {},
): Promise<string> {
  const res = await register(origin, metadata);
  if (res.status !== 201) throw new Error(`registration refused: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { client_id: string }).client_id;
}

/** A person's sign-in by hand for a client sent back to CALLBACK: the fields that exchange its code. */
export async function codeExchange(issuer: string, personToken: string, clientId: string, scope?: string) {
  const { verifier, challenge } = pkce();
  const url = authorizationUrl(issuer, { clientId, redirectUri: CALLBACK, challenge, scope });
  const callback = await new Person(personToken).signIn(url);
  return {
    grant_type: "authorization_code",
    code: String(callback.get("code")),
    redirect_uri: CALLBACK,
    client_id: clientId,
    code_verifier: verifier,
  };
}

/** A POST of form fields to the token endpoint: its status and JSON body. */
export async function tokenRequest(
  issuer: string,
  fields: Record<string, string>,
  // biome-ignore lint/suspicious/noExplicitAny: an OAuth JSON body whose fields each test asserts
): Promise<{ status: number; headers: Headers; body: any }> {
  const response = await fetch(`${issuer}/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(fields),
  });
  return { status: response.status, headers: response.headers, body: await response.json() };
}

/** Polls /mcp with `accessToken` until it is refused with 401; fails after `ms`. */
export async function expectRefusedWithin(url: string, accessToken: string, ms: number): Promise<number> {
  const start = Date.now();
  for (;;) {
    const res = await raw(url, {
      headers: { ...MCP_HEADERS, authorization: `Bearer ${accessToken}` },
      body: toolCall("list_standards"),
    });
    if (res.status === 401) return Date.now() - start;
    if (Date.now() - start > ms) throw new Error(`still accepted after ${ms} ms (status ${res.status})`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
