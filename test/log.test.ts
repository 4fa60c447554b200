import { afterEach, describe, expect, it, vi } from "vitest";
import { captureConsole, createLogger, type LogLevel, REDACTED, redact, redactUrl } from "../src/log";

const TOKEN = "pat_live_0123456789abcdefABCDEF";

function capture(level: LogLevel, secrets: string[] = []) {
  const lines: string[] = [];
  const logger = createLogger({ level, secrets: () => secrets, write: (line) => lines.push(line) });
  return { logger, lines, parsed: () => lines.map((l) => JSON.parse(l) as Record<string, unknown>) };
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe("createLogger", () => {
  it("writes one compact JSON object per line with time, level, msg and fields", () => {
    const { logger, lines, parsed } = capture("debug");
    logger.info("hello", { a: 1, b: "x" });
    expect(lines).toHaveLength(1);
    expect(lines[0]).not.toContain("\n");
    expect(parsed()[0]).toMatchObject({ level: "info", msg: "hello", a: 1, b: "x" });
    expect(Number.isNaN(Date.parse(parsed()[0]!.time as string))).toBe(false);
  });

  it("filters by level", () => {
    const { logger, parsed } = capture("warn");
    logger.debug("d");
    logger.info("i");
    logger.warn("w");
    logger.error("e");
    expect(parsed().map((l) => l.level)).toEqual(["warn", "error"]);
  });

  it("silent writes nothing", () => {
    const { logger, lines } = capture("silent");
    logger.error("e");
    expect(lines).toEqual([]);
  });

  it("child loggers add their fields", () => {
    const { logger, parsed } = capture("info");
    logger.child({ tool: "get_part" }).child({ call: 7 }).info("x", { y: 1 });
    expect(parsed()[0]).toMatchObject({ tool: "get_part", call: 7, y: 1 });
  });

  it("serialises errors, bigints and survives cycles", () => {
    const { logger, parsed } = capture("info");
    const err = Object.assign(new Error("boom"), { code: "ECONNRESET" });
    logger.error("failed", { err, n: 10n });
    expect(parsed()[0]).toMatchObject({
      err: { name: "Error", message: "boom", code: "ECONNRESET" },
      n: "10",
    });
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    logger.info("cyclic", { cyclic });
    expect(parsed()[1]).toMatchObject({ msg: "cyclic", logError: "fields could not be serialised" });
  });

  it("writes to stderr by default, never stdout", () => {
    const err = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    const out = vi.spyOn(process.stdout, "write").mockImplementation(() => true);
    createLogger({ level: "info" }).info("to stderr");
    expect(err).toHaveBeenCalledTimes(1);
    expect(String(err.mock.calls[0]![0])).toMatch(/"msg":"to stderr"\}\n$/);
    expect(out).not.toHaveBeenCalled();
  });

  it("redacts every line, whatever was logged", () => {
    const secrets = new Set<string>();
    const lines: string[] = [];
    const logger = createLogger({ level: "debug", secrets: () => secrets, write: (l) => lines.push(l) });
    secrets.add(TOKEN); // learned after the logger was made
    logger.info(`token is ${TOKEN}`, {
      nested: { deep: [TOKEN] },
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    logger.warn("sas", {
      url: "https://acct.blob.core.windows.net/c/f.step?sv=2022&se=2030&sp=r&sig=abc%2Bdef",
    });
    const all = lines.join("\n");
    expect(all).not.toContain(TOKEN);
    expect(all).not.toContain("sig=abc");
    expect(all).toContain("https://acct.blob.core.windows.net/c/f.step?[REDACTED]");
    for (const line of lines) JSON.parse(line); // still valid JSON
  });

  it("redacts a secret containing JSON-escaped characters", () => {
    const secret = 'we"ird\\token';
    const { logger, lines } = capture("info", [secret]);
    logger.info("x", { secret });
    expect(lines[0]).not.toContain(JSON.stringify(secret).slice(1, -1));
    expect(lines[0]).toContain(REDACTED);
  });
});

describe("redact", () => {
  it.each([
    [`Authorization: Bearer ${TOKEN}`, "Authorization: [REDACTED]"],
    [`"authorization":"Basic dXNlcjpwYXNz"`, `"authorization":"[REDACTED]"`],
    [`authorization=xyz123 next=1`, "authorization=[REDACTED] next=1"],
    [`sent bearer abc.def-ghi to api`, "sent bearer [REDACTED] to api"],
    ["see https://h.example.com/a/b?sig=1&se=2 now", "see https://h.example.com/a/b?[REDACTED] now"],
    ["see http://127.0.0.1:9/f?sv=1", "see http://127.0.0.1:9/f?[REDACTED]"],
    ["https://user:pw@h.example.com/x", "https://[REDACTED]@h.example.com/x"],
    ["query sv=1&sig=SIGNATURE&x=1", "query sv=1&sig=[REDACTED]&x=1"],
    ["nothing to hide in /v1/parts/abc", "nothing to hide in /v1/parts/abc"],
  ])("%s", (input, expected) => {
    expect(redact(input)).toBe(expected);
  });

  it("replaces every occurrence of every known secret", () => {
    expect(redact(`a ${TOKEN} b ${TOKEN} c other`, [TOKEN, "other", ""])).toBe(
      `a ${REDACTED} b ${REDACTED} c ${REDACTED}`,
    );
  });
});

describe("redactUrl", () => {
  it.each([
    [
      "https://acct.blob.core.windows.net/c/f.step?sv=1&sig=X",
      "https://acct.blob.core.windows.net/c/f.step?[REDACTED]",
    ],
    ["https://h.example.com/a#frag", "https://h.example.com/a"],
    ["https://u:p@h.example.com:8443/a", "https://h.example.com:8443/a"],
    ["https://h.example.com", "https://h.example.com/"],
    ["not a url?sig=X", "not a url?[REDACTED]"],
  ])("%s", (input, expected) => {
    expect(redactUrl(input)).toBe(expected);
  });
});

describe("captureConsole", () => {
  it("sends what libraries print through the logger, redacted, and nothing to stdout", () => {
    const saved = { ...console };
    const lines: string[] = [];
    const stdout = vi.spyOn(process.stdout, "write");
    try {
      captureConsole(
        createLogger({ level: "info", secrets: () => [TOKEN], write: (line) => lines.push(line) }),
      );
      console.info("The user aborted a request.");
      console.log("calling", { url: "https://h.example.com/f?sig=S3cret" }, `with ${TOKEN}`);
      console.debug("below the level");
      expect(stdout).not.toHaveBeenCalled();
    } finally {
      Object.assign(console, saved);
      stdout.mockRestore();
    }
    expect(lines).toHaveLength(2);
    expect(JSON.parse(lines[0] ?? "")).toMatchObject({ level: "info", msg: "The user aborted a request." });
    expect(lines[1]).not.toContain("S3cret");
    expect(lines[1]).not.toContain(TOKEN);
  });
});
