// oidc-provider's storage adapter (one instance per model: Client, Grant, Session,
// AuthorizationCode, RefreshToken, Interaction, ...) over the OAuthStore's SQL.
import type { Adapter, AdapterPayload } from "oidc-provider";
import type { OAuthStore } from "./store";

export function adapterFor(store: OAuthStore) {
  return class StoreAdapter implements Adapter {
    readonly #model: string;

    constructor(model: string) {
      this.#model = model;
    }

    async upsert(id: string, payload: AdapterPayload, expiresIn: number): Promise<void> {
      const expiresAt = expiresIn ? Date.now() + expiresIn * 1000 : null;
      await store.upsert(this.#model, id, payload as Record<string, unknown>, expiresAt);
    }

    find(id: string) {
      return this.#find("id", id);
    }

    findByUid(uid: string) {
      return this.#find("uid", uid);
    }

    findByUserCode(userCode: string) {
      return this.#find("user_code", userCode);
    }

    consume(id: string): Promise<void> {
      return store.consume(this.#model, id);
    }

    destroy(id: string): Promise<void> {
      return store.destroy(this.#model, id);
    }

    revokeByGrantId(grantId: string): Promise<void> {
      return store.revokeByGrantId(this.#model, grantId);
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
