// A fleet as an operator runs one: replicas of the image (podman, host network, each on its own
// loopback port) behind Debian's nginx with deploy/nginx.conf, on one PostgreSQL that can be
// restarted, and an embedded Parts API; plus SDK clients that note which replica answered.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/client";
import { expect } from "vitest";
import { freePort } from "../auth/support";
import { buildImage as buildImageTagged, podman, podmanEnv, podmanRun, waitFor } from "../deploy/podman";
import { repoRoot, serverLogDir } from "../support/mcp-server";

const run = `${process.pid}-${randomBytes(3).toString("hex")}`;
export const image = `localhost/parts-mcp-fleet:${run}`;

/** Builds the image under this run's tag. */
export const buildImage = () => buildImageTagged(image);

export interface Replica {
  name: string;
  port: number;
  /** host:port as nginx's $upstream_addr names it. */
  address: string;
}

/** Starts a replica's container (or starts it again) and waits for /healthz on its own port. */
export async function startReplica(replica: Replica, env: Record<string, string>, again = false) {
  if (again) await podman(["start", replica.name]);
  else {
    const names = Object.keys(env).flatMap((name) => ["-e", name]);
    await podman(
      [
        ...[
          "run",
          "-d",
          "--name",
          replica.name,
          "--network=host",
          "--read-only",
          "--health-interval=disable",
        ],
        ...["-e", "PARTS_MCP_HTTP_HOST=127.0.0.1", "-e", `PARTS_MCP_HTTP_PORT=${replica.port}`],
        ...names,
        image,
      ],
      { ...podmanEnv, ...env },
    );
  }
  await waitFor(`${replica.name} to answer /healthz`, 30_000, async () => {
    try {
      return (await fetch(`http://${replica.address}/healthz`)).status === 200;
    } catch {
      return false;
    }
  });
}

export async function replicaLogs(replica: Replica): Promise<string> {
  const { stdout, stderr } = await podmanRun(["logs", replica.name]);
  return stdout + stderr;
}

/** Keeps each replica's log with the suite's server logs (the secret scan reads them), then removes it. */
export async function removeReplica(replica: Replica): Promise<void> {
  mkdirSync(serverLogDir, { recursive: true });
  appendFileSync(join(serverLogDir, `fleet-${replica.name}.log`), await replicaLogs(replica));
  await podmanRun(["rm", "--force", "--volumes", "--time=0", replica.name]);
}

export async function newReplicas(count: number): Promise<Replica[]> {
  const replicas: Replica[] = [];
  for (let i = 1; i <= count; i++) {
    const port = await freePort();
    replicas.push({ name: `parts-mcp-fleet-${run}-${i}`, port, address: `127.0.0.1:${port}` });
  }
  return replicas;
}

/** nginx with deploy/nginx.conf rendered into a directory of its own. */
export interface Balancer {
  origin: string;
  /** Renders the configuration again with these replicas marked `down`, and reloads. */
  reload(down: Replica[]): Promise<void>;
  stop(): Promise<void>;
}

function render(prefix: string, listen: string, replicas: Replica[], down: Replica[]): string {
  const servers = replicas
    .map((r) => `server ${r.address}${down.includes(r) ? " down" : ""};`)
    .join("\n    ");
  // Comment lines name the placeholders: left as they are.
  return readFileSync(join(repoRoot, "deploy", "nginx.conf"), "utf8")
    .split("\n")
    .map((line) =>
      line.trimStart().startsWith("#")
        ? line
        : line
            .replaceAll("{{prefix}}", prefix)
            .replaceAll("{{listen}}", listen)
            .replaceAll("{{servers}}", servers),
    )
    .join("\n");
}

function nginx(args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn("nginx", args, { stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk;
    });
    child.once("error", reject);
    child.once("exit", (code) =>
      code === 0 ? resolve() : reject(new Error(`nginx ${args.join(" ")} exited ${code}: ${stderr}`)),
    );
  });
}

export async function startBalancer(port: number, replicas: Replica[]): Promise<Balancer> {
  const prefix = mkdtempSync(join(tmpdir(), "parts-mcp-fleet-nginx-"));
  const conf = join(prefix, "nginx.conf");
  const listen = `127.0.0.1:${port}`;
  writeFileSync(conf, render(prefix, listen, replicas, []));
  // nginx's master runs as this user; workers too when it is not root (else as `nobody`, who
  // needs to reach the prefix).
  const args = ["-p", prefix, "-c", conf, "-e", join(prefix, "error.log")];
  const userLine = process.getuid?.() === 0 ? ["-g", "user root;"] : [];
  await nginx([...args, ...userLine]);
  const origin = `http://${listen}`;
  await waitFor("nginx to listen", 10_000, async () => {
    try {
      await fetch(`${origin}/healthz`);
      return true;
    } catch {
      return false;
    }
  });
  return {
    origin,
    async reload(down) {
      writeFileSync(conf, render(prefix, listen, replicas, down));
      await nginx([...args, "-s", "reload"]);
      // The new workers take over within a moment; the old ones finish what they were answering.
      await new Promise((resolve) => setTimeout(resolve, 500));
    },
    async stop() {
      await nginx([...args, "-s", "stop"]).catch(() => {});
      mkdirSync(serverLogDir, { recursive: true });
      try {
        appendFileSync(join(serverLogDir, `fleet-nginx-${run}.log`), readFileSync(join(prefix, "error.log")));
      } catch {}
      rmSync(prefix, { recursive: true, force: true });
    },
  };
}

/** A fetch that notes the replica (nginx's X-Upstream) of every response to `seen`. */
export function notingFetch(seen: string[], through: typeof fetch = fetch): typeof fetch {
  return async (input, init) => {
    const response = await through(input, init);
    const upstream = response.headers.get("x-upstream");
    if (upstream) seen.push(upstream);
    return response;
  };
}

/**
 * In each protocol era, a client made by `connect` (which notes in `seen` the address of each
 * replica that answers) makes six calls with `check`; with round-robin and no stickiness they
 * reach every replica.
 */
export async function expectEveryReplicaInBothEras(
  replicas: readonly Replica[],
  connect: (era: "2025" | "2026", seen: string[]) => Promise<Client>,
  check: (client: Client) => Promise<void>,
): Promise<void> {
  const replicaOf = (address: string) => replicas.findIndex((replica) => replica.address === address);
  for (const era of ["2025", "2026"] as const) {
    const seen: string[] = [];
    const client = await connect(era, seen);
    expect(client.getProtocolEra()).toBe(era === "2026" ? "modern" : "legacy");
    const before = seen.length;
    for (let i = 0; i < 6; i++) await check(client);
    expect(new Set(seen.slice(before).map(replicaOf)), `${era}: ${seen.join(" ")}`).toEqual(
      new Set(replicas.map((_, i) => i)),
    );
    await client.close();
  }
}
