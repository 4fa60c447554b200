// The OCI image as an operator meets it: built once by `npm run image`'s script (deploy/image.mjs)
// under a tag of this run, then started with the `podman run` lines of docs/deploying.md ("Container
// image"), on a free loopback port and with names of this run. It checks the size podman reports,
// the label, the user, the read-only root, its own health check, MCP over HTTP in both protocol
// eras, stdio, the refusal to start open, SIGTERM, and the CA bundle it trusts.
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync } from "node:fs";
import { createServer } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tools } from "../../tools";
import { call, connect, initializeBody, MCP_HEADERS, ok, raw } from "../http/support";
import { repoRoot, serverLogDir } from "../support/mcp-server";
import { buildImage, podman, podmanEnv, podmanRun, waitFor } from "./podman";

const packageJson = JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8"));
const deploying = readFileSync(join(repoRoot, "docs", "deploying.md"), "utf8");

const run = `${process.pid}-${randomBytes(3).toString("hex")}`;
const image = `localhost/parts-mcp-test:${run}`;
const name = `parts-mcp-test-${run}`;
const accessKey = `pmk_test_${randomBytes(16).toString("hex")}`;
/** What `-e PARTS_MCP_ACCESS_KEYS` in the documented command passes on by name. */
const env = { ...podmanEnv, PARTS_MCP_ACCESS_KEYS: accessKey };

/** The `podman run` lines of the "Container image" section of docs/deploying.md. */
function deployingRunLines(): string[] {
  const section = deploying.split("\n## Container image\n")[1]?.split("\n## ")[0] ?? "";
  return section.split("\n").filter((line) => line.startsWith("podman run "));
}

const [httpLine, stdioLine] = [
  deployingRunLines().find((line) => line.includes(" -d ")),
  deployingRunLines().find((line) => line.endsWith(" stdio")),
];

/**
 * A documented line made to run here: this run's image, container and volume, a free port on
 * loopback, and no health-check timer (podman would need systemd for it: the test runs the check).
 */
function adapt(line: string): string[] {
  const args = line.split(/\s+/).slice(1);
  const replaced = args.map((arg, i) => {
    if (arg === "parts-mcp:latest") return image;
    if (args[i - 1] === "--name") return name;
    if (args[i - 1] === "-v") return arg.replace(/^parts-mcp-data:/, `${name}:`);
    if (args[i - 1] === "-p") return "127.0.0.1::8788";
    return arg;
  });
  return line.includes("--no-healthcheck")
    ? replaced
    : ["run", "--health-interval=disable", ...replaced.slice(1)];
}

let mcpUrl: string;

async function inspect(format: string, what = image, kind = "image"): Promise<string> {
  return podman([kind, "inspect", `--format=${format}`, what]);
}

beforeAll(async () => {
  expect(httpLine, "docs/deploying.md shows a detached `podman run -d` for HTTP").toBeDefined();
  expect(stdioLine, "docs/deploying.md shows a `podman run … stdio`").toBeDefined();
  await buildImage(image);
  await podman(adapt(httpLine as string), env);
  const published = await podman(["port", name, "8788"]);
  mcpUrl = `http://${published.split("\n")[0]}/mcp`;
}, 240_000);

afterAll(async () => {
  const logs = await podmanRun(["logs", name]);
  mkdirSync(serverLogDir, { recursive: true });
  appendFileSync(join(serverLogDir, `image-${run}.log`), logs.stdout + logs.stderr);
  await podmanRun(["rm", "--force", "--time=0", name]);
  await podmanRun(["volume", "rm", "--force", name]);
  await podmanRun(["rmi", "--force", image]);
}, 60_000);

describe("the image (npm run image)", () => {
  it("is under 100 MB as podman images reports it", async () => {
    const shown = await podman(["images", "--format={{.Size}}", image]);
    const match = /^([\d.]+)\s*(kB|MB|GB)$/.exec(shown);
    expect(match, `podman images says ${shown}`).not.toBeNull();
    const megabytes = Number(match?.[1]) * { kB: 1e-3, MB: 1, GB: 1e3 }[match?.[2] as "MB"];
    expect(megabytes).toBeLessThan(100);
    expect(Number(await inspect("{{.Size}}"))).toBeLessThan(100e6);
  });

  it("carries the MCP Registry label, a non-root user, the health check and the HTTP default", async () => {
    const labels = JSON.parse(await inspect("{{json .Config.Labels}}"));
    expect(labels["io.modelcontextprotocol.server.name"]).toBe(packageJson.mcpName);
    expect(labels["org.opencontainers.image.version"]).toBe(packageJson.version);
    expect(await inspect("{{.Config.User}}")).toBe("10001:10001");
    expect(JSON.parse(await inspect("{{json .Config.Healthcheck.Test}}"))).toEqual([
      "CMD",
      "/usr/local/bin/node",
      "/app/parts-mcp.js",
      "healthcheck",
    ]);
    expect(JSON.parse(await inspect("{{json .Config.Cmd}}"))).toEqual(["--http"]);
    expect(await inspect("{{json .Config.ExposedPorts}}")).toContain("8788/tcp");
  });

  it("refuses to start open on every interface, and says what to set", async () => {
    const bare = await podmanRun(["run", "--rm", "--read-only", "--no-healthcheck", image]);
    expect(bare.code).toBe(2);
    expect(bare.stderr).toMatch(
      /not a loopback address, and no access control is set: set PARTS_MCP_ACCESS_KEYS/,
    );
    const keysOnly = await podmanRun(
      ["run", "--rm", "--read-only", "--no-healthcheck", "-e", "PARTS_MCP_ACCESS_KEYS", image],
      env,
    );
    expect(keysOnly.code).toBe(2);
    expect(keysOnly.stderr).toMatch(/is 0\.0\.0\.0 \(every interface\).*set PARTS_MCP_ALLOWED_HOSTS/);
    // Flags after the image name replace the default command `--http`: still HTTP, still refused.
    const flagsOnly = await podmanRun([
      "run",
      "--rm",
      "--read-only",
      "--no-healthcheck",
      image,
      "--read-only",
    ]);
    expect(flagsOnly.code).toBe(2);
    expect(flagsOnly.stderr).toMatch(/not a loopback address, and no access control is set/);
  });

  it("refuses the oauth mode without PostgreSQL, which the image leaves out, in one line", async () => {
    const oauth = await podmanRun([
      "run",
      "--rm",
      "--read-only",
      "--no-healthcheck",
      "-e",
      "PARTS_MCP_AUTH=oauth",
      "-e",
      "PARTS_MCP_PUBLIC_URL=https://mcp.example.com/mcp",
      "-e",
      "PARTS_MCP_ALLOWED_HOSTS=mcp.example.com",
      "-e",
      `PARTS_MCP_OAUTH_KEYS=k1:${Buffer.alloc(32, 7).toString("base64")}`,
      image,
    ]);
    expect(oauth.code, oauth.stderr).toBe(2);
    expect(oauth.stderr).toMatch(
      /embedded store needs the optional package @electric-sql\/pglite.*set PARTS_MCP_DATABASE_URL/,
    );
    expect(oauth.stderr).not.toMatch(/\n\s+at /);
  });
});

describe("the documented HTTP container", () => {
  it("becomes healthy by its own health check, which fails when nothing answers", async () => {
    await waitFor(
      "podman healthcheck run",
      30_000,
      async () => (await podmanRun(["healthcheck", "run", name])).code === 0,
    );
    expect(await inspect("{{.State.Health.Status}}", name, "container")).toBe("healthy");
    const elsewhere = await podmanRun([
      "exec",
      name,
      "/usr/local/bin/node",
      "/app/parts-mcp.js",
      "healthcheck",
      "--port",
      "9",
    ]);
    expect(elsewhere.code).toBe(1);
    expect(elsewhere.stderr).toContain("unhealthy: could not ask http://127.0.0.1:9/healthz (ECONNREFUSED)");
  }, 45_000);

  it("runs as parts-mcp (10001) on a read-only root, writing only under /data", async () => {
    expect(await inspect("{{.HostConfig.ReadonlyRootfs}}", name, "container")).toBe("true");
    const probe = `
      const fs = require("node:fs");
      const tryWrite = (path) => { try { fs.writeFileSync(path, "x"); return "written"; } catch (e) { return e.code; } };
      console.log(JSON.stringify({
        uid: process.getuid(), user: require("node:os").userInfo().username,
        dataDir: process.env.PARTS_MCP_DATA_DIR, app: tryWrite("/app/x"), etc: tryWrite("/etc/x"),
        data: tryWrite("/data/x"),
      }));`;
    const seen = JSON.parse(await podman(["exec", name, "/usr/local/bin/node", "-e", probe]));
    expect(seen).toEqual({
      uid: 10001,
      user: "parts-mcp",
      dataDir: "/data",
      app: "EROFS",
      etc: "EROFS",
      data: "written",
    });
    const server = await podman(["top", name, "user", "args"]);
    expect(server).toMatch(
      /parts-mcp\s+\/usr\/local\/bin\/node --use-openssl-ca \/app\/parts-mcp\.js --http/,
    );
  });

  it("serves MCP in both protocol eras to a client with an access key, and 401 without", async () => {
    for (const era of ["2025", "2026"] as const) {
      const client = await connect(mcpUrl, { Authorization: `Bearer ${accessKey}` }, era);
      try {
        expect(client.getProtocolEra()).toBe(era === "2026" ? "modern" : "legacy");
        expect((await client.listTools()).tools).toHaveLength(tools.length);
        expect(ok(await call(client, "get_material", { code: "ti64" })).code).toBe("ti64");
      } finally {
        await client.close();
      }
    }
    const refused = await raw(mcpUrl, { headers: MCP_HEADERS, body: initializeBody });
    expect(refused.status).toBe(401);
  });

  it("logged its ready line and no key", async () => {
    const { stdout, stderr } = await podmanRun(["logs", name]);
    expect(stdout + stderr).toMatch(/ready on http:\/\/127\.0\.0\.1:8788\/mcp.*"access":"shared"/);
    expect(stdout + stderr).not.toContain(accessKey);
  });
});

describe("the documented stdio container", () => {
  it("serves MCP on stdin/stdout with the command stdio", async () => {
    const transport = new StdioClientTransport({
      command: "podman",
      args: adapt(stdioLine as string),
      env: Object.fromEntries(
        Object.entries(podmanEnv).filter((entry): entry is [string, string] => entry[1] !== undefined),
      ),
      stderr: "pipe",
    });
    const client = new Client({ name: "parts-mcp-image-test", version: "1.0.0" });
    await client.connect(transport);
    try {
      expect((await client.listTools()).tools.map((tool) => tool.name).sort()).toEqual(
        tools.map((tool) => tool.name).sort(),
      );
      expect(ok(await call(client, "get_process", { code: "lpbf" })).code).toBe("lpbf");
    } finally {
      await client.close();
    }
  }, 30_000);
});

describe("the image's trust store", () => {
  /** A self-signed certificate for 127.0.0.1, made with Debian's openssl (ca-certificates needs it). */
  function selfSigned(): { key: string; cert: string } {
    const folder = mkdtempSync(join(tmpdir(), "parts-mcp-image-ca-"));
    const [key, cert] = [join(folder, "key.pem"), join(folder, "cert.pem")];
    const made = spawnSync(
      "openssl",
      [
        "req",
        "-x509",
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:prime256v1",
        "-nodes",
        "-days",
        "1",
      ].concat([
        "-keyout",
        key,
        "-out",
        cert,
        "-subj",
        "/CN=127.0.0.1",
        "-addext",
        "subjectAltName=IP:127.0.0.1",
      ]),
      { encoding: "utf8" },
    );
    expect(made.status, made.stderr).toBe(0);
    return { key, cert };
  }

  it("is the CA bundle at /etc/ssl/certs/ca-certificates.crt: a PEM file mounted over it is trusted", async () => {
    const { key, cert } = selfSigned();
    const server = createServer({ key: readFileSync(key), cert: readFileSync(cert) }, (_req, res) =>
      res.end("ok"),
    );
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    // The entrypoint's Node with the entrypoint's flags, asking the test's server over the host's loopback.
    const [node, ...nodeFlags] = JSON.parse(await inspect("{{json .Config.Entrypoint}}")).slice(0, -1);
    const script = `require("node:https").get(${JSON.stringify(url)}, (r) => console.log(r.statusCode)).on("error", (e) => console.log(e.code))`;
    const ask = async (mounts: string[]) =>
      (
        await podman([
          ...["run", "--rm", "--network=host", "--no-healthcheck", "--read-only", ...mounts],
          ...[`--entrypoint=${node}`, image, ...nodeFlags, "-e", script],
        ])
      ).trim();
    try {
      expect(await ask([])).toBe("DEPTH_ZERO_SELF_SIGNED_CERT");
      expect(await ask(["-v", `${cert}:/etc/ssl/certs/ca-certificates.crt:ro`])).toBe("200");
    } finally {
      server.close();
    }
  }, 30_000);
});

describe("stopping the HTTP container", () => {
  it("drains on SIGTERM (podman stop) and exits 0 at once", async () => {
    const started = performance.now();
    await podman(["stop", "--time=20", name]);
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(await inspect("{{.State.ExitCode}}", name, "container")).toBe("0");
    const { stdout, stderr } = await podmanRun(["logs", name]);
    expect(stdout + stderr).toMatch(/"msg":"stopped","reason":"SIGTERM"/);
  });
});
