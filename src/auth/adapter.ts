// oidc-provider's storage adapter (one instance per model: Client, Grant, Session,
// AuthorizationCode, RefreshToken, Interaction, ...) over the OAuthStore's SQL. Records whose id
// is itself a credential (codes, refresh tokens) are kept under a SHA-256 digest of it, without
// the id in their payload, so a copy of the database holds no usable code or refresh token.
// oidc-provider stores a registered client with no lifetime: it gets `unusedClientTtlS` here, and
// the store extends it to each grant's end (store.ts), so a registration no one signs in with
// expires and is swept.
import { createHash } from "node:crypto";
import type { Adapter, AdapterPayload } from "oidc-provider";
import type { OAuthStore } from "./store";

const CREDENTIAL_MODELS = new Set([
  "AccessToken",
  "AuthorizationCode",
  "RefreshToken",
  "ClientCredentials",
  "RegistrationAccessToken",
  "InitialAccessToken",
  "DeviceCode",
  "BackchannelAuthenticationRequest",
  "PushedAuthorizationRequest",
]);

export function adapterFor(store: OAuthStore, unusedClientTtlS: number) {
  return class StoreAdapter implements Adapter {
    readonly #model: string;
    readonly #hashed: boolean;

    constructor(model: string) {
      this.#model = model;
      this.#hashed = CREDENTIAL_MODELS.has(model);
    }

    async upsert(id: string, payload: AdapterPayload, expiresIn: number): Promise<void> {
      const ttlS = expiresIn || (this.#model === "Client" ? unusedClientTtlS : 0);
      const expiresAt = ttlS ? Date.now() + ttlS * 1000 : null;
      const { jti, ...rest } = payload as Record<string, unknown>;
      const kept = this.#hashed && jti === id ? rest : (payload as Record<string, unknown>);
      await store.upsert(this.#model, this.#key(id), kept, expiresAt);
    }

    async find(id: string): Promise<AdapterPayload | undefined> {
      const payload = await this.#find("id", this.#key(id));
      return payload && this.#hashed ? { ...payload, jti: id } : payload;
    }

    findByUid(uid: string) {
      return this.#find("uid", uid);
    }

    findByUserCode(userCode: string) {
      return this.#find("user_code", userCode);
    }

    consume(id: string): Promise<void> {
      return store.consume(this.#model, this.#key(id));
    }

    /** Not oidc-provider's: undoes `consume` (refused-refresh.ts). */
    unconsume(id: string): Promise<void> {
      return store.unconsume(this.#model, this.#key(id));
    }

    destroy(id: string): Promise<void> {
      return store.destroy(this.#model, this.#key(id));
    }

    revokeByGrantId(grantId: string): Promise<void> {
      return store.revokeByGrantId(this.#model, grantId);
    }

    #key(id: string): string {
      return this.#hashed ? createHash("sha256").update(id).digest("base64url") : id;
    }

    async #find(column: "id" | "uid" | "user_code", value: string): Promise<AdapterPayload | undefined> {
      const record = await store.find(this.#model, column, value);
      if (!record) return undefined;
      const payload = record.payload as AdapterPayload;
      return record.consumedAt === null
        ? payload
        : { ...payload, consumed: Math.floor(record.consumedAt / 1000) };
    }
  };
}
