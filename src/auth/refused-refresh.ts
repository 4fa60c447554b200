// A refused refresh leaves the refresh token and its grant usable. oidc-provider rotates the
// refresh token (consumes it and saves the next) before it checks the request's resource and
// builds the access token (lib/actions/grants/refresh_token.js in its package): a refresh
// refused there (invalid_target, a store error) would spend the token, and the owner's next
// refresh would count as reuse and revoke the whole grant. So when the token endpoint answers an
// error after a rotation, the rotated token is made usable again and the one that replaced it,
// which no one received, is deleted, before the answer leaves.
import type Provider from "oidc-provider";
import type { Logger } from "../log/logger";

interface Token {
  jti: string;
}

/** The store adapter's (adapter.ts). */
interface RefreshTokenRecords {
  unconsume(id: string): Promise<void>;
  destroy(id: string): Promise<void>;
}

export function keepRefusedRefreshTokens(provider: Provider, logger: Logger): void {
  provider.use(async (ctx, next) => {
    await next();
    if (ctx.status < 400 || !("oidc" in ctx)) return;
    const entities = (ctx.oidc as { entities?: Record<string, unknown> } | undefined)?.entities;
    const rotated = entities?.RotatedRefreshToken as Token | undefined;
    if (rotated === undefined) return;
    const replacement = entities?.RefreshToken as Token | undefined;
    const records = provider.RefreshToken.adapter as unknown as RefreshTokenRecords;
    try {
      await records.unconsume(rotated.jti);
      if (replacement !== undefined && replacement !== rotated) await records.destroy(replacement.jti);
    } catch (error) {
      // The refusal is answered as it was; the token stays spent (the store did not answer).
      logger.warn("a refused refresh could not give its refresh token back", {
        error: error instanceof Error ? error.message : String(error),
      });
    }
  });
}
