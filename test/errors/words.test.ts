// The words for people and models, tested in one place (issue 14: "two error-text layers"): the
// client's errors carry facts, src/mcp/messages.ts says what happened and what to do, right for each way
// of serving: stdio (the user's own PARTS_API_* settings), HTTP with the server's token (an
// operator's settings), HTTP per-user (the caller's X-Parts-Api-Token header).
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { PartsApiError, type PartsApiErrorFacts } from "../../src/client";
import {
  describeIssues,
  type FailureContext,
  findPartAdvice,
  invalidArgumentsMessage,
  type ServingMode,
  shortErrorMessage,
  toolErrorMessage,
} from "../../src/mcp/messages";

const MODES: ServingMode[] = ["stdio", "http", "http-per-user"];

const error = (facts: Partial<PartsApiErrorFacts> & Pick<PartsApiErrorFacts, "kind">) =>
  new PartsApiError({ method: "GET", path: "/v1/parts/p1", attempts: 1, sent: true, ...facts });

const context = (mode: ServingMode, more: Partial<FailureContext> = {}): FailureContext => ({
  mode,
  notFound: "Use list_parts to find part ids.",
  idempotent: true,
  timeoutMs: 30_000,
  ...more,
});

const say = (e: unknown, mode: ServingMode = "stdio", more: Partial<FailureContext> = {}) =>
  toolErrorMessage(e, context(mode, more));

describe("the client says facts, never advice", () => {
  it("no file of src/client names a setting or the token header", () => {
    const dir = join(__dirname, "../../src/client");
    for (const name of readdirSync(dir)) {
      expect(readFileSync(join(dir, name), "utf8"), name).not.toMatch(/PARTS_API_|X-Parts-Api-Token/);
    }
  });
});

describe("a refused token is explained for the way the server runs", () => {
  const refused = error({
    kind: "http",
    status: 401,
    code: "unauthenticated",
    upstreamMessage: "invalid or expired token",
  });

  it("stdio: the user's own PARTS_API_TOKEN", () => {
    expect(say(refused, "stdio")).toBe(
      "The Parts API refused the token: invalid or expired token. Set PARTS_API_TOKEN to a valid personal access token for the selected PARTS_API_ENV, then start parts-mcp again. (GET /v1/parts/p1 → 401 unauthenticated)",
    );
  });

  it("HTTP with the server's token: the operator's PARTS_API_TOKEN", () => {
    expect(say(refused, "http")).toMatch(
      /refused the token.*This server's token \(PARTS_API_TOKEN\) is set by its operator/,
    );
  });

  it("HTTP per user: the caller's header, and no word of PARTS_API_TOKEN", () => {
    const text = say(refused, "http-per-user");
    expect(text).toMatch(/Send a valid personal access token in the X-Parts-Api-Token header\./);
    expect(text).not.toContain("PARTS_API");
  });

  it("a 403 likewise", () => {
    const forbidden = error({ kind: "http", status: 403 });
    expect(say(forbidden, "stdio")).toMatch(/not allowed to do this\. Use a token \(PARTS_API_TOKEN\)/);
    expect(say(forbidden, "http-per-user")).toMatch(/X-Parts-Api-Token/);
    expect(say(forbidden, "http-per-user")).not.toContain("PARTS_API");
  });
});

describe("settings are named to whoever can change them", () => {
  const cases: [string, PartsApiError, string][] = [
    ["a time-out", error({ kind: "timeout", detail: "the call's deadline passed" }), "PARTS_API_TIMEOUT_MS"],
    [
      "a network failure",
      error({ kind: "network", code: "ECONNREFUSED", detail: "the connection was refused" }),
      "PARTS_API_BASE_URL",
    ],
    [
      "a redirect",
      error({ kind: "redirect", status: 302, detail: "HTTP 302 to elsewhere.example, not followed" }),
      "PARTS_API_BASE_URL",
    ],
    [
      "a response too large",
      error({ kind: "too_large", detail: "the response is larger than the limit of 8388608 bytes" }),
      "PARTS_API_MAX_RESPONSE_BYTES",
    ],
  ];

  it.each(cases)("%s on stdio: the user's setting", (_, e, setting) => {
    expect(say(e, "stdio")).toContain(setting);
    expect(say(e, "stdio")).not.toMatch(/operator/);
  });

  it.each(cases)("%s over HTTP: the operator's business, never an instruction to the caller", (_, e) => {
    for (const mode of ["http", "http-per-user"] as const) {
      const text = say(e, mode);
      if (text.includes("PARTS_API_"))
        expect(text).toMatch(/operator of this parts-mcp server can raise PARTS_API_/);
      expect(text).not.toMatch(/(?:^|\. )(?:Raise|Set|Check) PARTS_API_/);
    }
  });

  it("the exact words of a time-out", () => {
    const e = error({ kind: "timeout", attempts: 2, detail: "the call's deadline passed" });
    expect(say(e, "stdio")).toBe(
      "The Parts API did not answer within 30 s after 2 attempts. Try again; if it keeps happening, raise PARTS_API_TIMEOUT_MS. (GET /v1/parts/p1)",
    );
    expect(say(e, "http")).toBe(
      "The Parts API did not answer within 30 s after 2 attempts. Try again; if it keeps happening, the operator of this parts-mcp server can raise PARTS_API_TIMEOUT_MS. (GET /v1/parts/p1)",
    );
  });
});

describe("when to try again", () => {
  it.each([
    [undefined, "shortly"],
    [0, "now"],
    [30, "in 30 s"],
    [120, "in 120 s"],
    [900, "in 15 min"],
    [3_601, "in more than an hour"],
    [86_400, "in more than an hour"],
  ])("Retry-After %s: try again %s", (retryAfterSeconds, words) => {
    const limited = error({
      kind: "http",
      status: 429,
      ...(retryAfterSeconds !== undefined && { retryAfterSeconds }),
    });
    expect(say(limited)).toContain(`rate limiting requests. Try again ${words}.`);
    const unavailable = error({
      kind: "http",
      status: 503,
      ...(retryAfterSeconds !== undefined && { retryAfterSeconds }),
    });
    expect(say(unavailable)).toContain(`The fault is on the API's side; try again ${words}.`);
  });
});

describe("a call that is not idempotent says what may have happened", () => {
  const create = { idempotent: false } as const;
  const post = { method: "POST", path: "/v1/parts" };

  it("nothing sent: safe to call again", () => {
    const e = error({
      ...post,
      kind: "network",
      attempts: 3,
      sent: false,
      code: "ECONNREFUSED",
      detail: "the connection was refused",
    });
    expect(say(e, "stdio", create)).toBe(
      "Could not reach the Parts API after 3 attempts: the connection was refused. Check PARTS_API_BASE_URL (or PARTS_API_ENV) and the network, then try again. Nothing reached the Parts API, so nothing was done: it is safe to call again. (POST /v1/parts → ECONNREFUSED)",
    );
  });

  it("sent, then the connection dropped: it may or may not have taken effect", () => {
    const e = error({ ...post, kind: "network", code: "ECONNRESET", detail: "the connection was reset" });
    expect(say(e, "stdio", create)).toMatch(
      /This call is not idempotent, so it was not repeated: it may or may not have taken effect, so check \(for a part, search_parts by its title\) before calling again\./,
    );
  });

  it("says how to find the part with the tools served", () => {
    const e = error({ ...post, kind: "network", code: "ECONNRESET", detail: "the connection was reset" });
    const served = (...tools: string[]) => findPartAdvice((tool) => tools.includes(tool));
    expect(say(e, "stdio", { ...create, findPart: served("list_parts") })).toMatch(
      /check \(for a part, with list_parts view IP_OWNER\) before calling again/,
    );
    expect(say(e, "stdio", { ...create, findPart: served() })).toMatch(
      /check \(for a part, in the Parts API\)/,
    );
  });

  it("a 5xx: may or may not; a 4xx: nothing to check", () => {
    expect(say(error({ ...post, kind: "http", status: 503 }), "stdio", create)).toMatch(
      /may or may not have taken effect/,
    );
    expect(
      say(
        error({ ...post, kind: "http", status: 400, upstreamMessage: "title: is required" }),
        "stdio",
        create,
      ),
    ).toBe(
      "The Parts API rejected the request: title: is required. Correct it and call again. (POST /v1/parts → 400)",
    );
  });

  it("a 200 whose body was spoiled: it most likely took effect", () => {
    const e = error({
      ...post,
      kind: "contract",
      status: 200,
      detail: "HTTP 200 with a body that is not valid JSON (truncated or garbled)",
    });
    expect(say(e, "stdio", create)).toMatch(
      /The API answered 200, so it most likely took effect: check .* or it will be done twice\./,
    );
  });
});

describe("what was wrong is named", () => {
  it("a contract error lists the fields its schema found wrong", () => {
    const e = error({
      kind: "contract",
      status: 200,
      detail: "HTTP 200 with a body that does not match the API's contract",
      issues: [
        { path: ["items", 1, "name"], message: "Invalid input: expected string, received number" },
        { path: ["items", 2, "code"], message: "Invalid input: expected string, received undefined" },
      ],
    });
    expect(say(e)).toBe(
      "The Parts API sent a response that does not match its specification: HTTP 200 with a body that does not match the API's contract: items[1].name: expected string, received number; items[2].code: expected string, received undefined. The data cannot be trusted, so none is returned; this is a problem on the API's side (or of a proxy in front of it), not of the request. (GET /v1/parts/p1 → 200)",
    );
  });

  it("a 404 says where valid ids come from", () => {
    const e = error({ kind: "http", status: 404, code: "NOT_FOUND", upstreamMessage: "Part zz not found" });
    expect(say(e)).toBe(
      "Not found: Part zz not found. Use list_parts to find part ids. (GET /v1/parts/p1 → 404 NOT_FOUND)",
    );
  });

  it("a cancelled call says so", () => {
    expect(say(error({ kind: "cancelled", detail: "cancelled by the client" }))).toBe(
      "The call was cancelled before the Parts API answered. (GET /v1/parts/p1)",
    );
  });

  it("one line inside a larger answer", () => {
    expect(shortErrorMessage(error({ kind: "http", status: 503, upstreamMessage: "busy" }))).toBe(
      "503: busy",
    );
    expect(shortErrorMessage(error({ kind: "network", detail: "the connection was reset" }))).toBe(
      "network: the connection was reset",
    );
  });
});

describe("every message leaves through one gate", () => {
  it("an internal error's text is redacted and its control characters escaped", () => {
    const text = say(new Error("fetch https://f.example.com/a?sig=LeakMe failed \u001b[2J\u202e"));
    expect(text).toBe(
      "Internal error in parts-mcp: fetch https://f.example.com/a?[REDACTED] failed \\u001B[2J\\u202E. This is a bug in the server, not in your request; report it.",
    );
  });

  it("no mode gets a message with a control character or a signature, whatever the facts", () => {
    const hostile = error({
      kind: "http",
      status: 500,
      upstreamMessage: "x\u0007 sig=LeakMe",
      code: "C\u202e",
    });
    for (const mode of MODES) {
      const text = say(hostile, mode);
      for (const leak of ["LeakMe", "\u0007", "\u202e"]) expect(text).not.toContain(leak);
    }
  });
});

describe("the one formatter of zod issues", () => {
  const schema = z
    .object({
      pageSize: z.number().max(50),
      customFields: z.array(z.object({ dropdownId: z.string() })),
      metadata: z.record(z.string(), z.string()),
    })
    .strict();

  it("names nested fields, quotes odd keys, and counts what it leaves out", () => {
    const result = schema.safeParse({
      pageSize: 51,
      customFields: [{ dropdownId: 1 }],
      metadata: { "a b": 2, c: 3 },
      extra: true,
    });
    expect(result.success).toBe(false);
    if (result.success) return;
    expect(describeIssues(result.error.issues, { max: 3, root: "arguments" })).toBe(
      'pageSize: Too big: expected number to be <=50; customFields[0].dropdownId: expected string, received number; metadata["a b"]: expected string, received number (and 2 more)',
    );
  });

  it("invalid arguments: every field named, and that nothing was sent", () => {
    const result = schema.safeParse({ pageSize: 51, customFields: [], metadata: {}, "\u001bevil": 1 });
    if (result.success) throw new Error("expected a failure");
    expect(invalidArgumentsMessage("list_parts", result.error)).toBe(
      'Invalid arguments for list_parts: pageSize: Too big: expected number to be <=50; arguments: Unrecognized key: "\\u001Bevil". No request was sent; correct the arguments and call again.',
    );
  });
});
