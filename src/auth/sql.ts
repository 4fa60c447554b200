// The two SQL back ends of the store, behind one small interface: PostgreSQL through the `pg`
// driver (shared by replicas) and PGlite, PostgreSQL compiled to WebAssembly, persisting to a
// data directory (one machine). Both run the same statements. `pg` is bundled with the rest of
// the oauth mode (scripts/build.mjs), which loads only in that mode; PGlite (15 MB of WebAssembly)
// is an optional package, loaded only when the oauth mode runs without PostgreSQL.
import { mkdirSync } from "node:fs";
import pg from "pg";
import { ConfigError } from "../config";

export interface Sql {
  query<Row = Record<string, unknown>>(text: string, params?: unknown[]): Promise<Row[]>;
  /** Runs `fn` holding a lock that other processes on the same database wait for. */
  exclusively<T>(lockId: number, fn: () => Promise<T>): Promise<T>;
  close(): Promise<void>;
  readonly kind: "postgres" | "embedded";
}

export async function openPostgres(url: string): Promise<Sql> {
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

/** The package of the embedded store, installed beside parts-mcp by who wants it. */
const PGLITE = "@electric-sql/pglite";

export async function openEmbedded(dataDir: string): Promise<Sql> {
  const { PGlite } = await loadPGlite();
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
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

/** PGlite, or a ConfigError naming what to install (or to set instead) when it is not installed. */
async function loadPGlite(): Promise<typeof import("@electric-sql/pglite")> {
  try {
    return await import("@electric-sql/pglite");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== "MODULE_NOT_FOUND" && code !== "ERR_MODULE_NOT_FOUND") throw error;
    throw new ConfigError(
      (n) =>
        `The oauth mode's embedded store needs the optional package ${PGLITE}: run npm install ${PGLITE} beside parts-mcp, or set ${n("PARTS_MCP_DATABASE_URL")} to a PostgreSQL database.`,
      "PARTS_MCP_DATABASE_URL",
    );
  }
}
