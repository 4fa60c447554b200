// Telemetry settings that cannot work stop the start with a message that names the setting: a metrics port that is no port, or one already taken.
import { createServer } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApi, type TestApi } from "../../src/embedded/testing";
import { spawnRefused } from "../http/support";

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api?.close());

describe("telemetry settings", () => {
  it("refuses a metrics port that is not a port number", async () => {
    const { code, stderr } = await spawnRefused({
      api,
      args: ["--http", "--port", "0"],
      env: { PARTS_MCP_METRICS_PORT: "9464x" },
    });
    expect(code).not.toBe(0);
    expect(stderr).toContain('PARTS_MCP_METRICS_PORT must be a port number from 0 to 65535 (it is "9464x")');
  });

  it("refuses a metrics port already taken, naming the setting to change", async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
    const { port } = taken.address() as { port: number };
    try {
      const { code, stderr } = await spawnRefused({
        api,
        args: ["--http", "--port", "0"],
        env: { PARTS_MCP_METRICS_PORT: String(port) },
      });
      expect(code).not.toBe(0);
      expect(stderr).toContain(
        `Cannot serve /metrics on 127.0.0.1:${port} (EADDRINUSE): choose another port with PARTS_MCP_METRICS_PORT`,
      );
    } finally {
      taken.close();
    }
  });
});
