// The resource server: who is calling /mcp. A Bearer token is accepted only when it is one of
// our ES256 JWTs for this resource (signature, issuer, audience through the SDK's
// `expectedResource`, expiry) and its grant still exists, checked in the store with a cache of
// GRANT_CACHE_MS, so a revocation on any replica is honoured within that bound (a signature once
// checked is known by the token's digest for a minute). What the
// request then carries upstream is the grant's own Parts API token.
import { createHash } from "node:crypto";
import {
  type AuthInfo,
  bearerAuthChallengeResponse,
  OAuthError,
  OAuthErrorCode,
  verifyBearerToken,
} from "@modelcontextprotocol/server";
import { type CryptoKey, importJWK, type JWK, jwtVerify } from "jose";
import { LRUCache } from "lru-cache";
import type { OAuthConfig } from "../config";
import { entriesAtMost } from "../data/bounded-cache";
import { SCOPES } from "./provider";
import { type OAuthStore, StoreUnavailable } from "./store";

/** How long a grant's existence (or absence) is trusted before the store is asked again. */
const GRANT_CACHE_MS = 2_000;
/**
 * How long a token whose signature was checked is known by its digest: its signature cannot
 * change, so a person's calls pay the ES256 check once a minute instead of on every request
 * (expiry and the grant are still checked on each).
 */
const VERIFIED_CACHE_MS = 60_000;

export class ResourceServer {
  readonly #config: OAuthConfig;
  readonly #store: OAuthStore;
  readonly #key: CryptoKey | Uint8Array;
  readonly #grants = new LRUCache<string, { token: string | null }>({
    ...entriesAtMost(10_000),
    ttl: GRANT_CACHE_MS,
  });
  readonly #grantQueries = new Map<string, Promise<string | undefined>>();
  readonly #verified = new LRUCache<string, Record<string, unknown>>({
    ...entriesAtMost(10_000),
    ttl: VERIFIED_CACHE_MS,
  });
  readonly resourceMetadataUrl: string;

  private constructor(config: OAuthConfig, store: OAuthStore, key: CryptoKey | Uint8Array) {
    this.#config = config;
    this.#store = store;
    this.#key = key;
    this.resourceMetadataUrl = new URL(
      `/.well-known/oauth-protected-resource${config.publicUrl.pathname.replace(/\/$/, "")}`,
      config.issuer,
    ).href;
  }

  static async create(config: OAuthConfig, store: OAuthStore, publicJwk: JWK): Promise<ResourceServer> {
    return new ResourceServer(config, store, await importJWK(publicJwk, "ES256"));
  }

  /** The caller's AuthInfo (its `token` the grant's Parts API token), or the OAuthError to answer. */
  authenticate(authorization: string | undefined): Promise<AuthInfo> {
    return verifyBearerToken(authorization, {
      verifier: { verifyAccessToken: (token) => this.#verify(token) },
      expectedResource: this.#config.publicUrl,
      requiredScopes: [SCOPES.read],
      resourceMetadataUrl: this.resourceMetadataUrl,
    });
  }

  async #verify(jwt: string): Promise<AuthInfo> {
    const digest = createHash("sha256").update(jwt).digest("base64url");
    let claims = this.#verified.get(digest);
    try {
      if (!claims) {
        ({ payload: claims } = await jwtVerify(jwt, this.#key, {
          issuer: this.#config.issuer,
          algorithms: ["ES256"],
          typ: "at+jwt",
          requiredClaims: ["exp", "aud", "grant_id"],
        }));
        this.#verified.set(digest, claims);
      } else if (Number(claims.exp) * 1000 <= Date.now()) {
        this.#verified.delete(digest);
        throw new Error("expired");
      }
    } catch {
      throw new OAuthError(
        OAuthErrorCode.InvalidToken,
        "The access token is not one this server issued, or it has expired: sign in again.",
      );
    }
    const grantId = String(claims.grant_id);
    const token = await this.#grantToken(grantId);
    if (token === undefined) {
      throw new OAuthError(
        OAuthErrorCode.InvalidToken,
        "This connection was revoked or has expired: sign in again.",
      );
    }
    const audience = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
    return {
      token,
      clientId: String(claims.client_id ?? ""),
      scopes: typeof claims.scope === "string" ? claims.scope.split(" ") : [],
      expiresAt: Number(claims.exp),
      // The SDK compares this with expectedResource; a token for several audiences names ours only if it has it.
      ...(audience.length === 1 && typeof audience[0] === "string" && URL.canParse(audience[0])
        ? { resource: new URL(audience[0]) }
        : {}),
      extra: { grantId },
    };
  }

  async #grantToken(grantId: string): Promise<string | undefined> {
    const cached = this.#grants.get(grantId);
    if (cached) return cached.token ?? undefined;
    // One store query per grant at a time: a person's concurrent calls, arriving as the cached
    // answer expires, wait for the same one.
    let pending = this.#grantQueries.get(grantId);
    if (!pending) {
      pending = this.#queryGrant(grantId).finally(() => this.#grantQueries.delete(grantId));
      this.#grantQueries.set(grantId, pending);
    }
    return pending;
  }

  async #queryGrant(grantId: string): Promise<string | undefined> {
    let token: string | undefined;
    try {
      token = await this.#store.grantToken(grantId);
    } catch (error) {
      throw new StoreUnavailable(error instanceof Error ? error.message : String(error));
    }
    this.#grants.set(grantId, { token: token ?? null });
    return token;
  }

  /**
   * The 403 step-up challenge for a call of `name`, a tool that changes data, by a token without
   * parts:write, or undefined. The SDK's own per-tool `scopeChallenge` applies only to tools
   * registered through `registerTool`, and this server serves its tools through one tools/call
   * handler, so the HTTP layer (which knows which tools write) asks here before the SDK sees the call.
   */
  scopeChallenge(name: string, authInfo: AuthInfo): Response | undefined {
    if (authInfo.scopes.includes(SCOPES.write)) return undefined;
    const error = new OAuthError(
      OAuthErrorCode.InsufficientScope,
      `${name} changes data and needs the parts:write scope: authorize again with it`,
    );
    return bearerAuthChallengeResponse(error, {
      requiredScopes: [SCOPES.read, SCOPES.write],
      resourceMetadataUrl: this.resourceMetadataUrl,
    });
  }
}
