// The authorization server's state, in SQL that PostgreSQL and PGlite both run: the records of
// oidc-provider (clients, grants, codes, tokens, sessions, interactions), each grant's sealed
// Parts API token, the server's own sealed secrets (signing and cookie keys), the rate-limit
// windows every replica counts in (rate-limit.ts), and the ids of the confirmations already
// answered (src/confirm/ledger.ts: once across replicas). Migrations run
// at start under an advisory lock, so replicas starting together apply them once. Times are
// epoch milliseconds of this process's clock.
import { ConfigError } from "../config";
import type { OnceLedger } from "../confirm/ledger";
import type { Keyring } from "./keyring";
import type { Sql } from "./sql";

/** The advisory lock key of migrations and first-start secrets ("parts-mcp" in ASCII, folded). */
const LOCK_ID = 0x7061_7274;

const MIGRATIONS: readonly string[] = [
  `CREATE TABLE oauth_records (
     model text NOT NULL,
     id text NOT NULL,
     payload jsonb NOT NULL,
     grant_id text,
     uid text,
     user_code text,
     expires_at bigint,
     consumed_at bigint,
     PRIMARY KEY (model, id)
   );
   CREATE INDEX oauth_records_grant ON oauth_records (grant_id);
   CREATE INDEX oauth_records_uid ON oauth_records (uid);
   CREATE INDEX oauth_records_expiry ON oauth_records (expires_at);
   CREATE TABLE oauth_grant_tokens (
     grant_id text PRIMARY KEY,
     account_id text NOT NULL,
     sealed text NOT NULL,
     expires_at bigint NOT NULL
   );
   CREATE TABLE oauth_secrets (
     name text PRIMARY KEY,
     sealed text NOT NULL
   );`,
  // Rate limits shared by replicas; clients registered before unused ones expired get a day.
  `CREATE TABLE oauth_rate_limits (
     key text PRIMARY KEY,
     window_start bigint NOT NULL,
     count integer NOT NULL
   );
   CREATE INDEX oauth_rate_limits_window ON oauth_rate_limits (window_start);
   UPDATE oauth_records AS client SET expires_at = (extract(epoch FROM clock_timestamp()) * 1000)::bigint + 86400000
   WHERE client.model = 'Client' AND client.expires_at IS NULL AND NOT EXISTS (
     SELECT 1 FROM oauth_records AS g WHERE g.model = 'Grant' AND g.payload->>'clientId' = client.id
   );`,
  // Confirmations answered, each kept until its state expires (src/confirm/ledger.ts).
  `CREATE TABLE confirmations_answered (
     id text PRIMARY KEY,
     expires_at bigint NOT NULL
   );
   CREATE INDEX confirmations_answered_expiry ON confirmations_answered (expires_at);`,
];

/** How long a rate-limit window lasts. */
export const RATE_WINDOW_MS = 60_000;

/** The store did not answer a question a request waits on (a grant's existence, a rate limit's count). */
export class StoreUnavailable extends Error {}

export interface RateWindow {
  count: number;
  /** Epoch ms. */
  start: number;
}

export interface StoredRecord {
  payload: Record<string, unknown>;
  consumedAt: number | null;
}

export class OAuthStore implements OnceLedger {
  readonly sql: Sql;
  readonly #keyring: Keyring;

  constructor(sql: Sql, keyring: Keyring) {
    this.sql = sql;
    this.#keyring = keyring;
  }

  /** Applies the migrations this database lacks; one replica at a time. */
  migrate(): Promise<number> {
    return this.sql.exclusively(LOCK_ID, async () => {
      await this.sql.query(
        "CREATE TABLE IF NOT EXISTS parts_mcp_migrations (version integer PRIMARY KEY, applied_at bigint NOT NULL)",
      );
      const [row] = await this.sql.query<{ v: number | null }>(
        "SELECT max(version) AS v FROM parts_mcp_migrations",
      );
      const current = Number(row?.v ?? 0);
      for (let version = current + 1; version <= MIGRATIONS.length; version++) {
        for (const statement of (MIGRATIONS[version - 1] as string).split(";").map((s) => s.trim())) {
          if (statement !== "") await this.sql.query(statement);
        }
        await this.sql.query("INSERT INTO parts_mcp_migrations (version, applied_at) VALUES ($1, $2)", [
          version,
          Date.now(),
        ]);
      }
      return MIGRATIONS.length - current;
    });
  }

  // -- oidc-provider's records ---------------------------------------------------------------

  async upsert(model: string, id: string, payload: Record<string, unknown>, expiresAt: number | null) {
    // A client lives as long as its latest grant: one no one signed in with expires (adapter.ts).
    if (model === "Grant" && typeof payload.clientId === "string" && expiresAt !== null) {
      await this.sql.query(
        "UPDATE oauth_records SET expires_at = $2 WHERE model = 'Client' AND id = $1 AND expires_at < $2",
        [payload.clientId, expiresAt],
      );
    }
    await this.sql.query(
      `INSERT INTO oauth_records (model, id, payload, grant_id, uid, user_code, expires_at)
       VALUES ($1, $2, $3::jsonb, $4, $5, $6, $7)
       ON CONFLICT (model, id) DO UPDATE SET payload = EXCLUDED.payload, grant_id = EXCLUDED.grant_id,
         uid = EXCLUDED.uid, user_code = EXCLUDED.user_code, expires_at = EXCLUDED.expires_at`,
      [
        model,
        id,
        JSON.stringify(payload),
        stringOrNull(payload.grantId),
        stringOrNull(payload.uid),
        stringOrNull(payload.userCode),
        expiresAt,
      ],
    );
  }

  async find(
    model: string,
    column: "id" | "uid" | "user_code",
    value: string,
  ): Promise<StoredRecord | undefined> {
    const [row] = await this.sql.query<{ payload: Record<string, unknown>; consumed_at: string | null }>(
      `SELECT payload, consumed_at FROM oauth_records
       WHERE model = $1 AND ${column} = $2 AND (expires_at IS NULL OR expires_at > $3) LIMIT 1`,
      [model, value, Date.now()],
    );
    if (!row) return undefined;
    return { payload: row.payload, consumedAt: row.consumed_at === null ? null : Number(row.consumed_at) };
  }

  async consume(model: string, id: string): Promise<void> {
    await this.sql.query("UPDATE oauth_records SET consumed_at = $3 WHERE model = $1 AND id = $2", [
      model,
      id,
      Date.now(),
    ]);
  }

  /** Makes a consumed record usable again (a refresh refused after its token was rotated). */
  async unconsume(model: string, id: string): Promise<void> {
    await this.sql.query("UPDATE oauth_records SET consumed_at = NULL WHERE model = $1 AND id = $2", [
      model,
      id,
    ]);
  }

  async destroy(model: string, id: string): Promise<void> {
    await this.sql.query("DELETE FROM oauth_records WHERE model = $1 AND id = $2", [model, id]);
    if (model === "Grant") await this.deleteGrantToken(id);
  }

  async revokeByGrantId(model: string, grantId: string): Promise<void> {
    await this.sql.query("DELETE FROM oauth_records WHERE model = $1 AND grant_id = $2", [model, grantId]);
  }

  // -- each grant's Parts API token ------------------------------------------------------------

  async saveGrantToken(grantId: string, accountId: string, token: string, expiresAt: number): Promise<void> {
    await this.sql.query(
      `INSERT INTO oauth_grant_tokens (grant_id, account_id, sealed, expires_at) VALUES ($1, $2, $3, $4)
       ON CONFLICT (grant_id) DO UPDATE SET account_id = EXCLUDED.account_id, sealed = EXCLUDED.sealed,
         expires_at = EXCLUDED.expires_at`,
      [grantId, accountId, this.#keyring.seal(token, grantAad(grantId)), expiresAt],
    );
  }

  /** The grant's token, or undefined when the grant was revoked, expired or cannot be opened. */
  async grantToken(grantId: string): Promise<string | undefined> {
    const [row] = await this.sql.query<{ sealed: string }>(
      "SELECT sealed FROM oauth_grant_tokens WHERE grant_id = $1 AND expires_at > $2",
      [grantId, Date.now()],
    );
    return row === undefined ? undefined : this.#keyring.open(row.sealed, grantAad(grantId));
  }

  async deleteGrantToken(grantId: string): Promise<void> {
    await this.sql.query("DELETE FROM oauth_grant_tokens WHERE grant_id = $1", [grantId]);
  }

  /** Re-seals every grant token sealed by an older key under the newest; returns how many. */
  async resealGrantTokens(): Promise<number> {
    const rows = await this.sql.query<{ grant_id: string; sealed: string }>(
      "SELECT grant_id, sealed FROM oauth_grant_tokens",
    );
    let count = 0;
    for (const row of rows) {
      if (!this.#keyring.isStale(row.sealed)) continue;
      const token = this.#keyring.open(row.sealed, grantAad(row.grant_id));
      if (token === undefined) continue;
      await this.sql.query("UPDATE oauth_grant_tokens SET sealed = $2 WHERE grant_id = $1 AND sealed = $3", [
        row.grant_id,
        this.#keyring.seal(token, grantAad(row.grant_id)),
        row.sealed,
      ]);
      count++;
    }
    return count;
  }

  // -- confirmations answered (the once-use ledger of src/confirm/) -----------------------------

  /** True the first time `id` is claimed on any replica; false for a replay. */
  async claim(id: string, expiresAt: number): Promise<boolean> {
    const rows = await this.sql.query(
      "INSERT INTO confirmations_answered (id, expires_at) VALUES ($1, $2) ON CONFLICT (id) DO NOTHING RETURNING id",
      [id, expiresAt],
    );
    return rows.length === 1;
  }

  // -- the server's own secrets ----------------------------------------------------------------

  /** The secret `name`, made by `create` by whichever replica asks first. */
  secret(name: string, create: () => string): Promise<string> {
    return this.sql.exclusively(LOCK_ID, async () => {
      const [row] = await this.sql.query<{ sealed: string }>(
        "SELECT sealed FROM oauth_secrets WHERE name = $1",
        [name],
      );
      if (row) {
        const value = this.#keyring.open(row.sealed, secretAad(name));
        if (value === undefined) {
          throw new ConfigError(
            (n) =>
              `The stored ${name} does not open with any key of ${n("PARTS_MCP_OAUTH_KEYS")}: put back the key it was sealed with (after the newest one).`,
            "PARTS_MCP_OAUTH_KEYS",
          );
        }
        // Sealed by an older key: re-sealed under the newest, so the old key can be retired.
        if (this.#keyring.isStale(row.sealed)) {
          await this.sql.query("UPDATE oauth_secrets SET sealed = $2 WHERE name = $1", [
            name,
            this.#keyring.seal(value, secretAad(name)),
          ]);
        }
        return value;
      }
      const value = create();
      await this.sql.query("INSERT INTO oauth_secrets (name, sealed) VALUES ($1, $2)", [
        name,
        this.#keyring.seal(value, secretAad(name)),
      ]);
      return value;
    });
  }

  // -- rate limits ---------------------------------------------------------------------------

  /**
   * Counts one request against `key`'s window (it starts at the key's first request and lasts
   * RATE_WINDOW_MS): the window's count, this request included, and its start. Replicas counting
   * the same key at once are serialised by the row's lock.
   */
  async countRequest(key: string, now = Date.now()): Promise<RateWindow> {
    const [row] = await this.sql.query<{ count: number; window_start: string }>(
      `INSERT INTO oauth_rate_limits AS r (key, window_start, count) VALUES ($3, $1, 1)
       ON CONFLICT (key) DO UPDATE SET
         count = CASE WHEN r.window_start <= $2 THEN 1 ELSE r.count + 1 END,
         window_start = CASE WHEN r.window_start <= $2 THEN EXCLUDED.window_start ELSE r.window_start END
       RETURNING count, window_start`,
      [now, now - RATE_WINDOW_MS, key],
    );
    return { count: Number(row?.count ?? 1), start: Number(row?.window_start ?? now) };
  }

  /** Deletes what has expired; returns how many records and tokens went. */
  async sweep(): Promise<number> {
    const now = Date.now();
    await this.sql.query("DELETE FROM oauth_rate_limits WHERE window_start <= $1", [now - RATE_WINDOW_MS]);
    const records = await this.sql.query("DELETE FROM oauth_records WHERE expires_at <= $1 RETURNING id", [
      now,
    ]);
    const tokens = await this.sql.query(
      "DELETE FROM oauth_grant_tokens WHERE expires_at <= $1 RETURNING grant_id",
      [now],
    );
    const answered = await this.sql.query(
      "DELETE FROM confirmations_answered WHERE expires_at <= $1 RETURNING id",
      [now],
    );
    return records.length + tokens.length + answered.length;
  }

  async healthy(): Promise<boolean> {
    try {
      await this.sql.query("SELECT 1");
      return true;
    } catch {
      return false;
    }
  }
}

const grantAad = (grantId: string) => `grant:${grantId}`;
const secretAad = (name: string) => `secret:${name}`;
const stringOrNull = (value: unknown) => (typeof value === "string" ? value : null);
