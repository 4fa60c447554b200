// The two SQL back ends of the store, behind one small interface: PostgreSQL through the `pg`
// driver (shared by replicas) and PGlite, PostgreSQL compiled to WebAssembly, persisting to a
// data directory (one machine). Both run the same statements; each driver loads only when used.
import { mkdirSync } from "node:fs";
import { load } from "./load";

export interface Sql {
  query<Row = Record<string, unknown>>(text: string, params?: unknown[]): Promise<Row[]>;
  /** Runs `fn` holding a lock that other processes on the same database wait for. */
  exclusively<T>(lockId: number, fn: () => Promise<T>): Promise<T>;
  close(): Promise<void>;
  readonly kind: "postgres" | "embedded";
}

export async function openPostgres(url: string): Promise<Sql> {
  const pg = load("pg") as typeof import("pg");
  const pool = new pg.Pool({ connectionString: url, max: 5, idleTimeoutMillis: 30_000 });
  // An idle connection dropped by the database must not crash the process.
  pool.on("error", () => {});
  return {
    kind: "postgres",
    async query<Row>(text: string, params: unknown[] = []) {
      return (await pool.query(text, params)).rows as Row[];
    },
    async exclusively(lockId, fn) {
      const client = await pool.connect();
      try {
        await client.query("SELECT pg_advisory_lock($1)", [lockId]);
        try {
          return await fn();
        } finally {
          await client.query("SELECT pg_advisory_unlock($1)", [lockId]);
        }
      } finally {
        client.release();
      }
    },
    close: () => pool.end(),
  };
}

export async function openEmbedded(dataDir: string): Promise<Sql> {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const { PGlite } = load("@electric-sql/pglite") as typeof import("@electric-sql/pglite");
  const db = await PGlite.create(dataDir);
  return {
    kind: "embedded",
    async query<Row>(text: string, params: unknown[] = []) {
      return (await db.query(text, params)).rows as Row[];
    },
    // PGlite is one process's database: nobody else to wait for.
    exclusively: (_lockId, fn) => fn(),
    close: () => db.close(),
  };
}
