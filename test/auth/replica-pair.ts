// Two replicas of the oauth mode on one real PostgreSQL behind one public URL (the issuer): either
// replica `a` serves that URL itself, or a balancer there sends every request to the replica
// named `target` (replica `a` until a test names another).
import { randomBytes } from "node:crypto";
import { createServer, request, type Server } from "node:http";
import { startTestApi, type TestApi } from "../../src/embedded/testing";
import { startPostgres, type TestPostgres } from "./postgres";
import { freePort, type OAuthServer, startOAuthServer } from "./support";

export interface ReplicaPair {
  api: TestApi;
  db: TestPostgres;
  /** The key both replicas seal their secrets with (PARTS_MCP_OAUTH_KEYS, kid k1). */
  key: Buffer;
  a: OAuthServer;
  b: OAuthServer;
  /** Where the balancer sends requests. */
  target: OAuthServer;
  stop(): Promise<void>;
}

export interface ReplicaPairOptions {
  /** A balancer at the public URL (default); without it, `a` serves the public URL itself. */
  balancer?: boolean;
  env?: Record<string, string>;
}

export async function startReplicaPair(options: ReplicaPairOptions = {}): Promise<ReplicaPair> {
  const [api, db] = await Promise.all([startTestApi(), startPostgres()]);
  const key = randomBytes(32);
  const publicPort = await freePort();
  const shared = {
    api,
    store: { databaseUrl: db.url },
    keys: `k1:${key.toString("base64")}`,
    publicPort,
    ...(options.env && { env: options.env }),
  };
  const withBalancer = options.balancer ?? true;
  // Started together: the migrations and the first-start secrets are made once, under a lock.
  const [a, b] = await Promise.all([
    startOAuthServer(withBalancer ? shared : { ...shared, port: String(publicPort) }),
    startOAuthServer(shared),
  ]).catch(async (error: unknown) => {
    await Promise.all([api.close(), db.stop()]);
    throw error;
  });
  const pair: ReplicaPair = { api, db, key, a, b, target: a, stop: async () => {} };
  const balancer = withBalancer ? await startBalancer(publicPort, () => pair.target) : undefined;
  pair.stop = async () => {
    balancer?.closeAllConnections();
    balancer?.close();
    await Promise.all([a.stop(), b.stop()]);
    await Promise.all([api.close(), db.stop()]);
  };
  return pair;
}

function startBalancer(port: number, target: () => OAuthServer): Promise<Server> {
  const server = createServer((req, res) => {
    const { port: to } = new URL(target().origin);
    const upstream = request(
      { host: "127.0.0.1", port: Number(to), path: req.url, method: req.method, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on("error", () => res.destroy());
    req.pipe(upstream);
  });
  return new Promise((resolve) => server.listen(port, "127.0.0.1", () => resolve(server)));
}
