// The authorization server: oidc-provider configured for MCP clients. Authorization code with
// PKCE (S256) only, `iss` in responses, resource indicators with the MCP URL as the one resource,
// ES256 JWT access tokens carrying the grant id, opaque refresh tokens rotated on use and issued
// without offline_access, revocation, dynamic registration and Client ID Metadata Documents.
// Off, so neither advertised nor served: DPoP (the resource server, the SDK's verifyBearerToken,
// checks Bearer tokens only; a DPoP-bound token it cannot check the proof of must not be issued,
// and the hosts this serves use Bearer with PKCE), pushed authorization requests and logout
// (/request, /session/end: not routed, routes.ts).
import Provider, { type Configuration, errors } from "oidc-provider";
import type { OAuthConfig } from "../config";
import { adapterFor } from "./adapter";
import { clientFetch, MAX_CLIENT_DOCUMENT_BYTES } from "./client-fetch";
import { messagePage } from "./page";
import { SIGN_IN_PATH } from "./sign-in";
import type { OAuthStore } from "./store";

export const SCOPES = { read: "parts:read", write: "parts:write" } as const;
export const ROUTES = {
  authorization: "/authorize",
  token: "/token",
  registration: "/register",
  revocation: "/revoke",
  jwks: "/jwks",
} as const;

export interface ProviderKeys {
  /** The private signing key (ES256), as a JWK. */
  signing: Record<string, unknown>;
  cookie: string;
}

export function createProvider(config: OAuthConfig, store: OAuthStore, keys: ProviderKeys): Provider {
  const resource = config.publicUrl.href;
  const configuration: Configuration = {
    adapter: adapterFor(store, config.unusedClientTtlS),
    jwks: { keys: [keys.signing as never] },
    cookies: { keys: [keys.cookie] },
    scopes: [SCOPES.read, SCOPES.write],
    claims: { openid: ["sub"] },
    responseTypes: ["code"],
    pkce: { required: () => true },
    clientAuthMethods: ["none", "private_key_jwt"],
    clientDefaults: {
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
      id_token_signed_response_alg: "ES256",
    },
    routes: ROUTES,
    ttl: {
      AccessToken: config.accessTtlS,
      AuthorizationCode: 60,
      Grant: config.refreshTtlS,
      Interaction: 600,
      RefreshToken: config.refreshTtlS,
      Session: 86_400,
    },
    features: {
      devInteractions: { enabled: false },
      userinfo: { enabled: false },
      dPoP: { enabled: false },
      pushedAuthorizationRequests: { enabled: false },
      rpInitiatedLogout: { enabled: false },
      revocation: { enabled: true },
      registration: { enabled: true, issueRegistrationAccessToken: false },
      clientIdMetadataDocument: { enabled: true, ack: "draft-02" } as never,
      resourceIndicators: {
        enabled: true,
        defaultResource: () => resource,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, indicator) => {
          if (indicator !== resource)
            throw new errors.InvalidTarget(`this server's only resource is ${resource}`);
          return {
            scope: `${SCOPES.read} ${SCOPES.write}`,
            audience: resource,
            accessTokenTTL: config.accessTtlS,
            accessTokenFormat: "jwt",
            jwt: { sign: { alg: "ES256" } },
          };
        },
      },
    },
    interactions: { url: (_ctx, interaction) => `${SIGN_IN_PATH}/${interaction.uid}` },
    findAccount: async (_ctx, sub) => ({ accountId: sub, claims: async () => ({ sub }) }),
    // Refresh tokens for every client allowed the grant, without asking for offline_access.
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed("refresh_token"),
    rotateRefreshToken: true,
    // Every authorization asks the person for their token: one grant per sign-in, the one the
    // sign-in just made (never one remembered in the browser's session).
    loadExistingGrant: async (ctx) => {
      const grantId = ctx.oidc.result?.consent?.grantId;
      return typeof grantId === "string" ? ctx.oidc.provider.Grant.find(grantId) : undefined;
    },
    extraTokenClaims: async (_ctx, token) => ("grantId" in token ? { grant_id: token.grantId } : undefined),
    fetch: clientFetch(config.trustedClientHosts) as never,
    fetchResponseBodyLimits: {
      "client_id metadata document": MAX_CLIENT_DOCUMENT_BYTES,
      jwks_uri: MAX_CLIENT_DOCUMENT_BYTES,
    },
    enabledJWA: {
      clientAuthSigningAlgValues: ["RS256", "PS256", "ES256", "EdDSA"],
    },
    renderError: async (ctx, out) => {
      ctx.type = "html";
      ctx.body = messagePage(
        "Sign-in failed",
        `${out.error}${out.error_description ? `: ${out.error_description}` : ""}. Go back to your assistant and connect again.`,
      );
    },
  } as Configuration;
  const provider = new Provider(config.issuer, configuration);
  if (config.publicUrl.protocol === "https:") provider.proxy = true;
  return provider;
}
