import { afterEach, describe, expect, it, vi } from "vitest";
import { captureConsole, createLogger, type LogLevel } from "../src/log/logger";
import { escapeInvisible } from "../src/text/gate";
import {
  LEARNED_SECRETS_LIMIT,
  MIN_SECRET_LENGTH,
  REDACTED,
  redact,
  SecretSet,
  urlSecrets,
} from "../src/text/redact";

const TOKEN = "pat_live_0123456789abcdefABCDEF";
/** A realistic SAS signature: base64 of an HMAC-SHA256, percent-encoded in the URL. */
const SIG = "q5Uv0dPm3kQ8h2Yb7Lw9cX1rTn4Zs6Ae0Jf3Gk8Mp2E%3D";
const SAS = `https://acct.blob.core.windows.net/c/f.step?sv=2024-01-01&se=2030-01-01&sp=r&sig=${SIG}`;

function capture(level: LogLevel, secrets: string[] = []) {
  const lines: string[] = [];
  const logger = createLogger({ level, secrets, write: (line) => lines.push(line) });
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

  it("redacts every string of a line, configured and learned secrets alike", () => {
    const { logger, lines } = capture("debug");
    expect(logger.addSecret(TOKEN)).toBe(true); // learned after the logger was made
    logger.info(`token is ${TOKEN}`, {
      nested: { deep: [TOKEN] },
      headers: { authorization: `Bearer ${TOKEN}` },
      [TOKEN]: "a secret as a key",
    });
    logger.warn("sas", { url: SAS });
    const all = lines.join("\n");
    expect(all).not.toContain(TOKEN);
    expect(all).not.toContain(SIG);
    expect(all).toContain("https://acct.blob.core.windows.net/c/f.step?[REDACTED]");
    for (const line of lines) JSON.parse(line);
  });

  it("a secret made of JSON's own characters is redacted and the line stays JSON", () => {
    const secret = 'we"ird\\token:{"x":1},"y"';
    const { logger, lines } = capture("info", [secret]);
    logger.info(`msg ${secret}`, { secret, other: "kept" });
    const line = JSON.parse(lines[0]!) as Record<string, unknown>;
    expect(line.secret).toBe(REDACTED);
    expect(line.msg).toBe(`msg ${REDACTED}`);
    expect(line.other).toBe("kept");
  });
});

// Issue 13, item 4: with per-user auth any client could send `X-Parts-Api-Token: "` (or `e`, `:`)
// and every later line of every user became `{[REDACTED]tim[REDACTED]…`, no longer JSON.
describe("log poisoning", () => {
  it.each(['"', "e", ":", "{", "time", "level", "a".repeat(MIN_SECRET_LENGTH - 1)])(
    "a learned value as short as %j is refused and changes nothing",
    (junk) => {
      const { logger, lines, parsed } = capture("info");
      expect(logger.addSecret(junk)).toBe(false);
      logger.info("every line keeps its time and level", { user: "someone", note: "e:{}" });
      expect(parsed()[0]).toMatchObject({
        level: "info",
        msg: "every line keeps its time and level",
        user: "someone",
        note: "e:{}",
      });
      expect(lines[0]).not.toContain(REDACTED);
    },
  );

  it("configured values that are too short are ignored too", () => {
    const { logger, parsed } = capture("info", ["e", ""]);
    logger.info("hello there");
    expect(parsed()[0]!.msg).toBe("hello there");
  });

  it("learned secrets are bounded: the oldest goes, configured ones never do", () => {
    const { logger, lines } = capture("info", [TOKEN]);
    const learned = Array.from(
      { length: LEARNED_SECRETS_LIMIT + 1 },
      (_, i) => `pat_user_${String(i).padStart(12, "0")}`,
    );
    for (const token of learned) logger.addSecret(token);
    logger.info(`${TOKEN} ${learned[0]} ${learned[1]} ${learned.at(-1)}`);
    expect(JSON.parse(lines[0]!).msg).toBe(`${REDACTED} ${learned[0]} ${REDACTED} ${REDACTED}`);
  });

  it("patterns still redact credentials of any length", () => {
    const { logger, lines } = capture("info");
    logger.info("sent", { header: "Authorization: Bearer abc", query: "sig=xyz" });
    expect(lines[0]).not.toMatch(/abc|xyz/);
  });
});

describe("control and bidi characters from upstream text", () => {
  const hostile = "a\u001b[31mred\u0007 \u202eevil\u202c \u2066iso\u2069 \u200bzw \u0085nel";

  it("are escaped in log lines, which still parse to the same text", () => {
    const { logger, lines } = capture("info");
    logger.warn(hostile, { upstream: hostile });
    // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
    expect(lines[0]).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u200b\u202a-\u202e\u2066-\u2069]/);
    const line = JSON.parse(lines[0]!) as Record<string, unknown>;
    expect(line.msg).toBe(hostile);
    expect(line.upstream).toBe(hostile);
  });

  it("become visible \\uXXXX marks in plain text", () => {
    expect(escapeInvisible(hostile)).toBe(
      "a\\u001B[31mred\\u0007 \\u202Eevil\\u202C \\u2066iso\\u2069 \\u200Bzw \\u0085nel",
    );
    expect(escapeInvisible("tab\tand newline\nstay")).toBe("tab\tand newline\nstay");
  });

  it("tag characters and every other format character are escaped too, and the line parses back", () => {
    // Tags spell hidden text for models; soft hyphen, Arabic letter mark, word joiner, interlinear
    // annotation and the Mongolian vowel separator are format characters a person does not see.
    const hidden = "ok\u{E0001}\u{E0049}\u{E0047}\u{E007F} \u00AD\u061C\u2060\uFFF9\u180E\u2028end";
    const { logger, lines } = capture("info");
    logger.warn(hidden, { upstream: hidden });
    expect(lines[0]).not.toMatch(/[\p{Cf}\p{Zl}\u{E0000}-\u{E007F}]/u);
    expect(lines[0]).toContain("\\uDB40\\uDC49");
    const line = JSON.parse(lines[0]!) as Record<string, unknown>;
    expect(line.msg).toBe(hidden);
    expect(line.upstream).toBe(hidden);
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
    const other = "another-secret-value-0123";
    expect(redact(`a ${TOKEN} b ${TOKEN} c ${other}`, [TOKEN, other, ""])).toBe(
      `a ${REDACTED} b ${REDACTED} c ${REDACTED}`,
    );
  });

  it("scans a line once, however many secrets are known", () => {
    const set = new SecretSet(
      Array.from({ length: 1_000 }, (_, i) => `pat_user_${String(i).padStart(12, "0")}`),
    );
    const line = `${"x".repeat(200)} pat_user_000000000999 ${"y".repeat(200)}`;
    const start = performance.now();
    for (let i = 0; i < 1_000; i++) redact(line, set);
    expect(redact(line, set)).toBe(`${"x".repeat(200)} ${REDACTED} ${"y".repeat(200)}`);
    expect(performance.now() - start).toBeLessThan(1_000);
  });

  it("never matches a value shorter than MIN_SECRET_LENGTH", () => {
    expect(redact("the time is e", ["e", "time", "is"])).toBe("the time is e");
  });

  // Issue 13, item 3: an upstream that echoes the SAS URL back in an unexpected form.
  describe("a SAS signature in every form an upstream could echo it", () => {
    const encoded = encodeURIComponent(SAS);
    it.each([
      ["raw", `cannot read ${SAS}`],
      ["percent-encoded whole", `cannot read ${encoded}`],
      ["percent-encoded twice", `cannot read ${encodeURIComponent(encoded)}`],
      ["percent-encoded, lower-case hex", `cannot read ${encoded.toLowerCase()}`],
      ["as a parameter of another URL", `see https://proxy.example.com/r?url=${encoded}&x=1`],
      ["JSON-escaped", `body ${JSON.stringify({ url: SAS })}`],
      [
        "JSON-escaped with \\/ and \\u0026",
        `body ${JSON.stringify(SAS).replace(/\//g, "\\/").replace(/&/g, "\\u0026")}`,
      ],
      ["a bare query", `query sv=2024-01-01&sp=r&sig=${SIG} refused`],
      ["a bare sig= at the start", `sig=${SIG}`],
      ["a bare sig%3D", `sig%3D${encodeURIComponent(SIG)}%26sv%3D1`],
      ["HTML-escaped", `<a href="${SAS.replace(/&/g, "&amp;")}">`],
    ])("%s", (_, text) => {
      const out = redact(text);
      expect(out).not.toContain("q5Uv0dPm3kQ8h2Yb7Lw9cX1rTn4Zs6Ae0Jf3Gk8Mp2E");
      expect(out).toContain(REDACTED);
    });

    it.each([
      [
        "X-Amz-Signature",
        "https://b.s3.amazonaws.com/k?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Signature=0f1e2d3c4b5a69788796a5b4c3d2e1f0",
      ],
      ["bare X-Amz-Signature", "X-Amz-Signature=0f1e2d3c4b5a69788796a5b4c3d2e1f0 expired"],
      ["X-Amz-Security-Token", "X-Amz-Security-Token=FwoGZXIvYXdzEJr0f1e2d3c4b5a6978"],
      [
        "X-Goog-Signature",
        "X-Goog-Algorithm=GOOG4-RSA-SHA256&X-Goog-Signature=0f1e2d3c4b5a69788796a5b4c3d2e1f0",
      ],
      ["Signature", "Expires=1700000000&Signature=0f1e2d3c4b5a69788796a5b4c3d2e1f0"],
    ])("%s", (_, text) => {
      expect(redact(text)).not.toContain("0f1e2d3c4b5a6978");
    });

    it("keeps the SAS fields that are not the credential in a bare query", () => {
      expect(redact(`sv=2024-01-01&se=2030-01-01&sp=r&sig=${SIG}`)).toBe(
        `sv=2024-01-01&se=2030-01-01&sp=r&sig=${REDACTED}`,
      );
    });
  });

  it("a known secret is found raw, percent-encoded, JSON-escaped and in base64", () => {
    const secret = 'tok/en+with "odd" chars=1234';
    for (const form of [
      secret,
      encodeURIComponent(secret),
      encodeURIComponent(encodeURIComponent(secret)),
      JSON.stringify(secret).slice(1, -1),
      Buffer.from(secret).toString("base64").replace(/=+$/, ""),
      Buffer.from(secret).toString("base64url"),
    ]) {
      expect(redact(`x ${form} y`, [secret]), form).toBe(`x ${REDACTED} y`);
    }
  });
});

describe("SecretSet and urlSecrets", () => {
  it("keeps only values long enough to be secrets", () => {
    const set = new SecretSet(["short", TOKEN]);
    expect(set.learn("e")).toBe(false);
    expect(set.replaceIn(`a ${TOKEN} short e`)).toBe(`a ${REDACTED} short e`);
  });

  it("a SAS URL's secrets are its query, raw and decoded, and the long parameter values", () => {
    const secrets = urlSecrets(SAS);
    expect(secrets).toContain(new URL(SAS).search.slice(1));
    expect(secrets).toContain(decodeURIComponent(SIG));
    expect(secrets).not.toContain("r");
    expect(urlSecrets("not a url")).toEqual([]);
  });
});

describe("captureConsole", () => {
  it("sends what libraries print through the logger, redacted, and nothing to stdout", () => {
    const saved = { ...console };
    const lines: string[] = [];
    const stdout = vi.spyOn(process.stdout, "write");
    try {
      captureConsole(createLogger({ level: "info", secrets: [TOKEN], write: (line) => lines.push(line) }));
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
