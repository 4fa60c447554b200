// `parts-mcp api`: flags (the shared parser), what it prints, stopping on a signal, and a
// start-up failure told in one line with a non-zero exit code.
import { createServer, type Server } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { VERSION } from "../../src/app/version";
import type { Output } from "../../src/config";
import { runStandaloneApi } from "../../src/embedded/standalone";

function capture() {
  const out = { stdout: "", stderr: "" };
  const output: Output = {
    stdout: (text) => {
      out.stdout += text;
    },
    stderr: (text) => {
      out.stderr += text;
    },
  };
  return { out, output };
}

let blocker: Server | undefined;
afterEach(async () => {
  await new Promise<void>((resolve) => (blocker ? blocker.close(() => resolve()) : resolve()));
  blocker = undefined;
});

describe("runStandaloneApi", () => {
  it.each([
    [["--port"], "parts-mcp api: --port needs a value: see parts-mcp api --help."],
    [["--port", "x"], 'parts-mcp api: --port must be a whole number from 0 to 65535 (got "x")'],
    [["--port", "70000"], "parts-mcp api: --port must be a whole number from 0 to 65535"],
    [["--host", "not a host"], "parts-mcp api: --host must be an IP address or host name"],
    [["--nope"], 'parts-mcp api: Unknown argument "--nope": see parts-mcp api --help for the flags.'],
    [["extra"], 'parts-mcp api: Unknown argument "extra"'],
    [["--large=yes"], 'parts-mcp api: --large takes no value: remove "=yes".'],
  ])("refuses %j in one line, exit code 2", async (argv, text) => {
    const { out, output } = capture();
    expect(await runStandaloneApi(argv, output)).toBe(2);
    expect(out.stderr.startsWith(text), out.stderr).toBe(true);
    expect(out.stderr.split("\n")).toEqual([expect.any(String), ""]);
    expect(out.stdout).toBe("");
  });

  it("answers --help and --version with exit code 0", async () => {
    const help = capture();
    expect(await runStandaloneApi(["--help"], help.output)).toBe(0);
    expect(help.out.stdout).toMatch(/^usage: parts-mcp api \[--port N\] \[--host H\] \[--large\]\n/);
    for (const flag of ["--port N", "--host H", "--large", "-h, --help", "--version"]) {
      expect(help.out.stdout).toContain(flag);
    }
    const version = capture();
    expect(await runStandaloneApi(["--version"], version.output)).toBe(0);
    expect(version.out.stdout).toBe(`parts-mcp ${VERSION}\n`);
  });

  it("on a busy port says so in one line, with the flag to change, and exits 2", async () => {
    blocker = createServer();
    await new Promise<void>((resolve) => blocker?.listen(0, "127.0.0.1", resolve));
    const { port } = blocker.address() as { port: number };
    const { out, output } = capture();
    expect(await runStandaloneApi(["--port", String(port)], output)).toBe(2);
    expect(out.stderr).toBe(`parts-mcp api: port ${port} is already in use; choose another with --port.\n`);
    expect(out.stdout).toBe("");
  });

  it("on an address of another machine says so in one line, naming --host", async () => {
    const { out, output } = capture();
    expect(await runStandaloneApi(["--host", "192.0.2.1", "--port", "0"], output)).toBe(2);
    expect(out.stderr).toBe(
      "parts-mcp api: 192.0.2.1 is not an address of this machine; choose another with --host.\n",
    );
  });

  it("prints the URL, the demo tokens and a curl example, serves, and stops on SIGINT", async () => {
    const { out, output } = capture();
    const running = runStandaloneApi(["--port", "0", "--host", "127.0.0.1"], output);
    await expect.poll(() => out.stdout, { timeout: 10_000 }).toContain("Press Ctrl+C");
    const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out.stdout)?.[1] as string;
    expect(url).toBeDefined();
    expect(out.stdout).toContain("pat_demo_acme_7f3k9q2m4x8v1b6n");
    expect(out.stdout).toContain("pat_demo_borealis_");
    expect(out.stdout).toMatch(
      /curl -H "Authorization: Bearer pat_demo_acme_\w+" "http:\/\/127\.0\.0\.1:\d+\/v1\/parts/,
    );
    const reply = await fetch(`${url}/v1/standards/ASTM%20F3001`, {
      headers: { authorization: "Bearer pat_demo_acme_7f3k9q2m4x8v1b6n" },
    });
    expect(reply.status).toBe(200);
    process.emit("SIGINT");
    expect(await running).toBe(0);
    await expect(fetch(`${url}/openapi.json`)).rejects.toThrow();
    expect(process.listenerCount("SIGINT")).toBeLessThan(10);
    expect(out.stderr).toBe("");
  });
});
