// The `oauth` HTTP mode: the authorization server (oidc-provider, provider.ts), the person's
// sign-in (sign-in.ts) and the resource server (resource.ts), on the MCP server's own origin,
// with their state in the store (PostgreSQL or PGlite). Loaded only in this mode, by one
// dynamic import, so stdio and the other HTTP modes load none of it.
import { randomBytes } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import {
  type AuthInfo,
  bearerAuthChallengeResponse,
  buildOAuthProtectedResourceMetadata,
  type McpServer,
} from "@modelcontextprotocol/server";
import { exportJWK, generateKeyPair, type JWK } from "jose";
import { isLoopbackHost, type OAuthConfig } from "../config";
import { BodyTooLarge, readBody } from "../http/body";
import type { Logger } from "../log/logger";
import { servedMetadata } from "./client-fetch";
import { Keyring } from "./keyring";
import { createProvider, ROUTES, SCOPES } from "./provider";
import { clientAddress, RateLimit } from "./rate-limit";
import { ResourceServer, StoreUnavailable } from "./resource";
import { handleSignIn, SIGN_IN_PATH, type TokenCheck } from "./sign-in";
import { openEmbedded, openPostgres } from "./sql";
import { OAuthStore } from "./store";

const PRM_PATH = "/.well-known/oauth-protected-resource";
const AS_METADATA_PATHS = new Set([
  "/.well-known/oauth-authorization-server",
  "/.well-known/openid-configuration",
]);
const MAX_REGISTRATION_BYTES = 16 * 1024;
const SWEEP_INTERVAL_MS = 3_600_000;

type Authentication =
  | { ok: true; authInfo: AuthInfo }
  | { ok: false; status: number; headers: Record<string, string>; body: string };

export interface OAuthGate {
  /** Answers a request outside /mcp that is the authorization server's; false when it is not. */
  route(req: IncomingMessage, res: ServerResponse, path: string): boolean;
  /** Who is calling /mcp, from the Authorization header. */
  authenticate(req: IncomingMessage): Promise<Authentication>;
  /** Fits a request's server with the step-up challenge of the write tools. */
  prepare(server: McpServer): void;
  /** The store's kind and whether it answers, for /healthz. */
  health(): Promise<{ store: string; ok: boolean }>;
  close(): Promise<void>;
}

export interface OAuthOptions {
  config: OAuthConfig;
  logger: Logger;
  /** Asks the Parts API whether it accepts a person's token, before it is accepted here. */
  checkToken(token: string): Promise<TokenCheck>;
  /** Told the outcome of each token checked at sign-in (the telemetry's sign-ins). */
  onSignIn?: (outcome: TokenCheck) => void;
}

export async function startOAuth({ config, logger, checkToken, onSignIn }: OAuthOptions): Promise<OAuthGate> {
  const sql =
    config.store.kind === "postgres"
      ? await openPostgres(config.store.url)
      : await openEmbedded(config.store.dataDir);
  const store = new OAuthStore(sql, new Keyring(config.keys));
  const applied = await store.migrate();
  if (applied > 0) logger.info("store migrated", { store: sql.kind, migrations: applied });
  const keys = await loadKeys(store);
  const resealed = await store.resealGrantTokens();
  if (resealed > 0) logger.info("grant tokens re-sealed with the newest key", { count: resealed });

  const provider = createProvider(config, store, { signing: keys.signing, cookie: keys.cookie });
  provider.on("server_error", (_ctx, error) =>
    logger.error("authorization server error", { error: error.message }),
  );
  const resourceServer = await ResourceServer.create(config, store, publicJwk(keys.signing));
  const serveProvider = provider.callback();
  const limits = {
    signIn: new RateLimit(config.perMinute.signIn),
    register: new RateLimit(config.perMinute.register),
    token: new RateLimit(config.perMinute.token),
  };
  const behindProxy = config.publicUrl.protocol === "https:";
  const signInDeps = {
    behindProxy,
    provider,
    store,
    config,
    limit: limits.signIn,
    checkToken: async (token: string) => {
      const outcome = await checkToken(token);
      onSignIn?.(outcome);
      return outcome;
    },
    secret: Buffer.from(keys.signIn, "base64url"),
    logger,
  };
  const resourceMetadata = JSON.stringify(
    buildOAuthProtectedResourceMetadata({
      oauthMetadata: {
        issuer: config.issuer,
        authorization_endpoint: new URL(ROUTES.authorization, config.issuer).href,
        token_endpoint: new URL(ROUTES.token, config.issuer).href,
        response_types_supported: ["code"],
      },
      resourceServerUrl: config.publicUrl,
      scopesSupported: [SCOPES.read],
      resourceName: "Parts and Sourcing",
      dangerouslyAllowInsecureIssuerUrl: isLoopbackHost(config.publicUrl.hostname),
    }),
  );
  const prmPaths = new Set([PRM_PATH, `${PRM_PATH}${config.publicUrl.pathname.replace(/\/$/, "")}`]);
  const sweep = setInterval(() => void store.sweep().catch(() => {}), SWEEP_INTERVAL_MS);
  sweep.unref();
  const providerPrefixes = Object.values(ROUTES);

  const issuer = new URL(config.issuer);
  const forward = (req: IncomingMessage, res: ServerResponse) => {
    // Every URL the authorization server writes is under the issuer, whatever Host the request
    // came with (a balancer's, a loopback name).
    req.headers.host = issuer.host;
    delete req.headers["x-forwarded-host"];
    if (issuer.protocol === "https:") req.headers["x-forwarded-proto"] = "https";
    else delete req.headers["x-forwarded-proto"];
    Promise.resolve(serveProvider(req, res)).catch((error: unknown) => {
      logger.error("authorization server failed", { error });
      if (!res.headersSent) tooBad(res);
    });
  };

  return {
    route(req, res, path) {
      if (prmPaths.has(path)) {
        sendJson(res, req.method === "GET" || req.method === "HEAD" ? 200 : 405, resourceMetadata);
        return true;
      }
      if (AS_METADATA_PATHS.has(path)) {
        req.url = "/.well-known/openid-configuration";
        forward(req, res);
        return true;
      }
      if (path.startsWith(`${SIGN_IN_PATH}/`)) {
        handleSignIn(req, res, signInDeps).catch((error: unknown) => {
          logger.error("sign-in failed", { error: error instanceof Error ? error.message : String(error) });
          if (!res.headersSent) tooBad(res);
        });
        return true;
      }
      if (!providerPrefixes.some((prefix) => path === prefix || path.startsWith(`${prefix}/`))) return false;
      const address = clientAddress(req, behindProxy);
      const limit =
        path === ROUTES.token ? limits.token : path === ROUTES.registration ? limits.register : undefined;
      const wait = req.method === "POST" ? limit?.take(address) : undefined;
      if (wait !== undefined) {
        req.resume();
        sendJson(
          res,
          429,
          JSON.stringify({
            error: "slow_down",
            error_description: `Too many requests: retry in ${wait} seconds.`,
          }),
          { "Retry-After": String(wait) },
        );
        return true;
      }
      if (path === ROUTES.authorization && req.method === "GET") req.url = withDefaultScope(req.url ?? path);
      if (path === ROUTES.registration && req.method === "POST") {
        readRegistration(req).then(
          (body) => {
            if (body === undefined) {
              sendJson(
                res,
                400,
                JSON.stringify({
                  error: "invalid_client_metadata",
                  error_description: "The registration must be a JSON object of at most 16 KB.",
                }),
              );
              return;
            }
            Object.assign(req, { body });
            forward(req, res);
          },
          () => res.destroy(),
        );
        return true;
      }
      forward(req, res);
      return true;
    },

    async authenticate(req) {
      try {
        return { ok: true, authInfo: await resourceServer.authenticate(req.headers.authorization) };
      } catch (error) {
        if (error instanceof StoreUnavailable) {
          logger.warn("the store did not answer: a token could not be checked", { error: error.message });
          return {
            ok: false,
            status: 503,
            headers: { "Retry-After": "5", "Access-Control-Allow-Origin": "*" },
            body: JSON.stringify({
              error: "temporarily_unavailable",
              error_description:
                "The sign-in store (the database) does not answer, so the access token could not be checked: send the request again in a few seconds.",
            }),
          };
        }
        const response = bearerAuthChallengeResponse(error, {
          requiredScopes: [SCOPES.read],
          resourceMetadataUrl: resourceServer.resourceMetadataUrl,
        });
        return {
          ok: false,
          status: response.status,
          // The status, the challenge and CORS; the body's own headers are written with it.
          headers: Object.fromEntries(
            [...response.headers].filter(([name]) => name !== "content-type" && name !== "content-length"),
          ),
          body: await response.text(),
        };
      }
    },

    prepare: (server) => resourceServer.requireWriteScope(server),

    async health() {
      return { store: sql.kind, ok: await store.healthy() };
    },

    async close() {
      clearInterval(sweep);
      await sql.close();
    },
  };
}

interface Keys {
  signing: JWK;
  cookie: string;
  signIn: string;
}

async function loadKeys(store: OAuthStore): Promise<Keys> {
  const { privateKey } = await generateKeyPair("ES256", { extractable: true });
  const fresh = {
    ...(await exportJWK(privateKey)),
    alg: "ES256",
    use: "sig",
    kid: randomBytes(8).toString("base64url"),
  };
  const signing = JSON.parse(await store.secret("signing-key-es256", () => JSON.stringify(fresh))) as JWK;
  const cookie = await store.secret("cookie-key", () => randomBytes(32).toString("base64url"));
  const signIn = await store.secret("sign-in-key", () => randomBytes(32).toString("base64url"));
  return { signing, cookie, signIn };
}

function publicJwk({ d: _d, ...rest }: JWK): JWK {
  return rest;
}

/** An authorization request without `scope` asks for parts:read. */
function withDefaultScope(url: string): string {
  const parsed = new URL(url, "http://x");
  if (parsed.searchParams.has("scope")) return url;
  parsed.searchParams.set("scope", SCOPES.read);
  return `${parsed.pathname}${parsed.search}`;
}

/** A registration request as JSON, without the grant types this server does not serve and
 * without `scope`: registration does not cap what a person may later grant. */
async function readRegistration(req: IncomingMessage): Promise<Record<string, unknown> | undefined> {
  let text: string;
  try {
    text = (await readBody(req, MAX_REGISTRATION_BYTES)).toString("utf8");
  } catch (error) {
    if (error instanceof BodyTooLarge) return undefined;
    throw error;
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof body !== "object" || body === null || Array.isArray(body)) return undefined;
  return servedMetadata(body as Record<string, unknown>);
}

function sendJson(
  res: ServerResponse,
  status: number,
  body: string,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, {
    "Content-Type": "application/json",
    "Content-Length": Buffer.byteLength(body),
    "Access-Control-Allow-Origin": "*",
    "Cache-Control": "no-store",
    ...headers,
  });
  res.end(body);
}

function tooBad(res: ServerResponse): void {
  sendJson(
    res,
    500,
    JSON.stringify({
      error: "server_error",
      error_description: "The authorization server failed: try again.",
    }),
  );
}
