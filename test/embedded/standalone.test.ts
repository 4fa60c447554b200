// `parts-mcp api`: flags, what it prints, and stopping on a signal.
import { afterEach, describe, expect, it, vi } from "vitest";
import { parseStandaloneArgs, runStandaloneApi } from "../../src/embedded/standalone";

afterEach(() => {
  vi.restoreAllMocks();
});

describe("runStandaloneApi", () => {
  it("parses --port, --host, --large, and refuses the rest", () => {
    expect(parseStandaloneArgs([])).toEqual({ port: 8787 });
    expect(parseStandaloneArgs(["--port", "0", "--host", "127.0.0.1", "--large"])).toEqual({
      port: 0,
      host: "127.0.0.1",
      catalogue: "large",
    });
    expect(parseStandaloneArgs(["--port=9000"])).toMatchObject({ port: 9000 });
    for (const bad of [["--port"], ["--port", "x"], ["--port", "70000"], ["--nope"], ["extra"]]) {
      expect(() => parseStandaloneArgs(bad), bad.join(" ")).toThrow();
    }
  });

  it("prints the URL, the demo tokens and a curl example, serves, and stops on SIGINT", async () => {
    let out = "";
    vi.spyOn(process.stdout, "write").mockImplementation((chunk: string | Uint8Array) => {
      out += String(chunk);
      return true;
    });
    const running = runStandaloneApi(["--port", "0"]);
    await vi.waitFor(() => expect(out).toContain("Press Ctrl+C"));
    const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out)?.[1] as string;
    expect(url).toBeDefined();
    expect(out).toContain("pat_demo_acme_7f3k9q2m4x8v1b6n");
    expect(out).toContain("pat_demo_borealis_");
    expect(out).toMatch(
      /curl -H "Authorization: Bearer pat_demo_acme_\w+" "http:\/\/127\.0\.0\.1:\d+\/v1\/parts/,
    );
    const reply = await fetch(`${url}/v1/standards/ASTM%20F3001`, {
      headers: { authorization: "Bearer pat_demo_acme_7f3k9q2m4x8v1b6n" },
    });
    expect(reply.status).toBe(200);
    process.emit("SIGINT");
    await running;
    await expect(fetch(`${url}/openapi.json`)).rejects.toThrow();
    expect(process.listenerCount("SIGINT")).toBeLessThan(10);
  });
});
