// The two commands the image is run with besides its default `--http`, on the built launcher:
// `parts-mcp healthcheck` (the image's HEALTHCHECK) and `parts-mcp stdio`.
import { spawn } from "node:child_process";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApi, type TestApi } from "../../src/embedded/testing";
import { tools } from "../../tools";
import { type HttpServerProcess, spawnHttpServer } from "../http/support";
import { clientEnv, elsewhere, launcher, startAsClient } from "../install/support";

/** Runs the built `parts-mcp ...args`; its exit code and stderr. */
function parts(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [launcher, ...args], {
      cwd: elsewhere(),
      env: clientEnv(env),
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk;
    });
    child.once("exit", (code) => resolve({ code, stderr }));
  });
}

/** A loopback server that answers every request with `status`. */
async function answering(status: number): Promise<Server> {
  const server = createServer((_req, res) => res.writeHead(status).end('{"status":"draining"}'));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return server;
}

const portOf = (server: Server) => String((server.address() as AddressInfo).port);

describe("parts-mcp healthcheck", () => {
  let api: TestApi;
  let server: HttpServerProcess;

  beforeAll(async () => {
    api = await startTestApi();
    server = await spawnHttpServer({ api });
  });

  afterAll(async () => {
    await server?.stop();
    await api?.close();
  });

  it("exits 0 when the server on the port answers /healthz, also for a wildcard host", async () => {
    const port = new URL(server.url).port;
    expect(await parts(["healthcheck", "--port", port])).toEqual({ code: 0, stderr: "" });
    expect(
      await parts(["healthcheck"], { PARTS_MCP_HTTP_HOST: "0.0.0.0", PARTS_MCP_HTTP_PORT: port }),
    ).toEqual({
      code: 0,
      stderr: "",
    });
  });

  it("exits 1 and says why when nothing listens or the answer is not 200", async () => {
    const closed = await answering(200);
    const port = portOf(closed);
    await new Promise((resolve) => closed.close(resolve));
    const refused = await parts(["healthcheck", "--port", port]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(
      `parts-mcp healthcheck: unhealthy: could not ask http://127.0.0.1:${port}/healthz (ECONNREFUSED): is parts-mcp serving --http on port ${port} here?\n`,
    );

    const draining = await answering(503);
    try {
      const answered = await parts(["healthcheck", "--port", portOf(draining)]);
      expect(answered.code).toBe(1);
      expect(answered.stderr).toContain(`/healthz answered 503 {"status":"draining"}`);
    } finally {
      draining.close();
    }
  });

  it("refuses a bad port as a configuration error", async () => {
    const { code, stderr } = await parts(["healthcheck", "--port", "http"]);
    expect(code).toBe(2);
    expect(stderr).toMatch(/^parts-mcp healthcheck: --port must be a whole number/);
  });
});

describe("parts-mcp stdio", () => {
  it("serves stdio even when PARTS_MCP_TRANSPORT says http (the image's environment may)", async () => {
    const started = await startAsClient(
      process.execPath,
      [launcher, "stdio"],
      clientEnv({ PARTS_API_ENV: "local", PARTS_MCP_TRANSPORT: "http" }),
      elsewhere(),
    );
    try {
      expect((await started.client.listTools()).tools).toHaveLength(tools.length);
    } finally {
      await started.close();
    }
  });

  it("refuses --http, which contradicts it", async () => {
    const { code, stderr } = await parts(["stdio", "--http"]);
    expect(code).toBe(2);
    expect(stderr).toBe(
      "parts-mcp: stdio serves MCP on stdin/stdout: remove --http, or run parts-mcp --http to serve over HTTP.\n",
    );
  });
});
