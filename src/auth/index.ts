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
} from "@modelcontextprotocol/server";
import { exportJWK, generateKeyPair, type JWK } from "jose";
import { isLoopbackHost, type OAuthConfig } from "../config";
import type { ConfirmSecrets } from "../confirm/state";
import { answerOf, type HttpAnswer } from "../http/respond";
import type { Logger } from "../log/logger";
import { Keyring } from "./keyring";
import { createProvider, ROUTES, SCOPES } from "./provider";
import { RateLimits } from "./rate-limit";
import { keepRefusedRefreshTokens } from "./refused-refresh";
import { ResourceServer } from "./resource";
import { sendJson } from "./respond";
import { type ProviderDoor, routeToProvider } from "./routes";
import { handleSignIn, SIGN_IN_PAGE, type TokenCheck } from "./sign-in";
import { openEmbedded, openPostgres } from "./sql";
import { OAuthStore, StoreUnavailable } from "./store";

const PRM_PATH = "/.well-known/oauth-protected-resource";

type Authentication = { ok: true; authInfo: AuthInfo } | ({ ok: false } & HttpAnswer);

export interface OAuthGate {
  /** Answers a request outside /mcp that is the authorization server's; false when it is not. */
  route(req: IncomingMessage, res: ServerResponse, path: string): boolean;
  /** Who is calling /mcp, from the Authorization header. */
  authenticate(req: IncomingMessage): Promise<Authentication>;
  /** The 403 step-up challenge of a call of `tool`, which changes data, without parts:write, or undefined. */
  scopeChallenge(tool: string, authInfo: AuthInfo): Promise<HttpAnswer | undefined>;
  /** The key and ledger of confirmed writes, shared by every replica through the store. */
  confirmations: ConfirmSecrets;
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
  keepRefusedRefreshTokens(provider, logger);
  provider.on("server_error", (_ctx, error) =>
    logger.error("authorization server error", { error: error.message }),
  );
  const resourceServer = await ResourceServer.create(config, store, publicJwk(keys.signing));
  const serveProvider = provider.callback();
  const limits = new RateLimits(store, config.perMinute);
  const behindProxy = config.publicUrl.protocol === "https:";
  const signInDeps = {
    behindProxy,
    provider,
    store,
    config,
    limits,
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
  const sweep = setInterval(() => void store.sweep().catch(() => {}), config.sweepIntervalS * 1000);
  sweep.unref();

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

  const door: ProviderDoor = {
    limits,
    behindProxy,
    forward,
    unavailable(res: ServerResponse, error: unknown) {
      logger.warn("the store did not answer: a rate limit could not be counted", {
        error: error instanceof Error ? error.message : String(error),
      });
      if (res.headersSent) return;
      sendJson(res, 503, storeDown("the request could not be counted against its rate limit"), {
        "Retry-After": "5",
      });
    },
  };

  return {
    route(req, res, path) {
      if (prmPaths.has(path)) {
        sendJson(res, req.method === "GET" || req.method === "HEAD" ? 200 : 405, resourceMetadata);
        return true;
      }
      if (SIGN_IN_PAGE.test(path)) {
        handleSignIn(req, res, signInDeps).catch((error: unknown) => {
          // A sign-in whose rate limit could not be counted is answered as every other route's.
          if (error instanceof StoreUnavailable) return door.unavailable(res, error);
          logger.error("sign-in failed", { error: error instanceof Error ? error.message : String(error) });
          if (!res.headersSent) tooBad(res);
        });
        return true;
      }
      return routeToProvider(req, res, path, door);
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
            body: JSON.stringify(storeDown("the access token could not be checked")),
          };
        }
        const response = bearerAuthChallengeResponse(error, {
          requiredScopes: [SCOPES.read],
          resourceMetadataUrl: resourceServer.resourceMetadataUrl,
        });
        return { ok: false, ...(await answerOf(response)) };
      }
    },

    async scopeChallenge(tool, authInfo) {
      const challenge = resourceServer.scopeChallenge(tool, authInfo);
      return challenge && answerOf(challenge);
    },
    confirmations: { key: () => Buffer.from(keys.confirm, "base64url"), ledger: store },

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
  /** Seals the states of confirmed writes (src/confirm/state.ts). */
  confirm: string;
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
  const confirm = await store.secret("confirm-state-key", () => randomBytes(32).toString("base64url"));
  return { signing, cookie, signIn, confirm };
}

function publicJwk({ d: _d, ...rest }: JWK): JWK {
  return rest;
}

/** What a request the store could not serve is answered. */
function storeDown(what: string) {
  return {
    error: "temporarily_unavailable",
    error_description: `The sign-in store (the database) does not answer, so ${what}: send the request again in a few seconds.`,
  };
}

function tooBad(res: ServerResponse): void {
  sendJson(res, 500, {
    error: "server_error",
    error_description: "The authorization server failed: try again.",
  });
}
