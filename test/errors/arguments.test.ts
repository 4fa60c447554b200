// Tool arguments a careless or hostile client sends (issue 13, items 11 and 12), parsed from the
// raw JSON the client sends, as the server loop parses them (the tool's input schema, strict):
// SAS URLs that are not https, or carry credentials, and `__proto__`-like keys.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PartsApiClient } from "../../src/client";
import { startTestApi, type TestApi } from "../../src/embedded/testing";
import { silentLogger } from "../../src/log/logger";
import { invalidArgumentsMessage } from "../../src/mcp/messages";
import { createPart, importPartFile } from "../../tools/parts";

/** What the server loop answers for these raw arguments: undefined when they are accepted. */
function refusal(tool: typeof createPart | typeof importPartFile, rawJson: string): string | undefined {
  const input = tool.input.strict();
  const parsed = input.safeParse(JSON.parse(rawJson));
  return parsed.success ? undefined : invalidArgumentsMessage(tool.name, parsed.error, input);
}

const importing = (sasUrl: string) =>
  refusal(importPartFile, JSON.stringify({ partId: "prt_1", name: "a.step", sasUrl }));

describe("import_part_file accepts only https SAS URLs without credentials", () => {
  it.each([
    "https://acct.blob.core.windows.net/c/a.step?sv=2024-01-01&sig=abc",
    "https://files.example.com/a.step",
    "http://127.0.0.1:9000/a.step?sig=abc",
    "http://localhost:9000/a.step",
    "http://[::1]:9000/a.step",
  ])("accepts %s", (sasUrl) => {
    expect(importing(sasUrl)).toBeUndefined();
  });

  it.each([
    [
      "http on a remote host",
      "http://files.example.com/a.step?sv=1&sig=LeakMeSignature",
      "sasUrl: must be an https: URL (http: is accepted only for a loopback host such as 127.0.0.1)",
    ],
    [
      "a user and password",
      "https://user:LeakMePassword@files.example.com/a.step?sig=LeakMeSignature",
      "sasUrl: must not contain a user name or password (user:pass@): a SAS URL carries its credential in its query string only",
    ],
    [
      "a user name alone, on loopback",
      "http://LeakMeUser@127.0.0.1/a.step",
      "sasUrl: must not contain a user name or password (user:pass@): a SAS URL carries its credential in its query string only",
    ],
    [
      "another scheme",
      "ftp://files.example.com/a.step?sig=LeakMeSignature",
      "sasUrl: must be an absolute https: URL",
    ],
    ["no URL at all", "a.step?sig=LeakMeSignature", "sasUrl: must be an absolute https: URL"],
  ])("refuses %s, clearly, without echoing the URL", (_, sasUrl, problem) => {
    const text = importing(sasUrl);
    expect(text).toBe(
      `Invalid arguments for import_part_file: ${problem}. No request was sent; correct the arguments and call again.`,
    );
    expect(text).not.toMatch(/LeakMe|files\.example\.com/);
  });
});

describe("reserved keys are refused by name, never dropped", () => {
  it.each(["__proto__", "constructor", "prototype"])("metadata key %s", (key) => {
    const raw = `{"title":"Bracket","metadata":{"ok":"1","${key}":"x"}}`;
    expect(refusal(createPart, raw)).toBe(
      `Invalid arguments for create_part: metadata.${key}: "${key}" is not allowed as a key (nor are "__proto__", "constructor" and "prototype"): rename it. No request was sent; correct the arguments and call again.`,
    );
  });

  it('{"__proto__":{…}} no longer passes the check that values are strings', () => {
    expect(refusal(createPart, '{"title":"Bracket","metadata":{"__proto__":{"polluted":"yes"}}}')).toMatch(
      /^Invalid arguments for create_part: metadata\.__proto__: "__proto__" is not allowed as a key/,
    );
  });

  it("a top-level __proto__ is an unknown argument", () => {
    expect(refusal(createPart, '{"title":"Bracket","__proto__":{"internal":true}}')).toBe(
      'Invalid arguments for create_part: arguments: Unrecognized key: "__proto__". No request was sent; correct the arguments and call again.',
    );
  });

  it("ordinary metadata passes untouched", () => {
    const parsed = createPart.input
      .strict()
      .parse(JSON.parse('{"title":"B","metadata":{"proto":"1","a b":"2"}}'));
    expect(parsed.metadata).toEqual({ proto: "1", "a b": "2" });
  });
});

// The rules live in the shared schemas (src/api/schemas.ts): the embedded API refuses the same.
describe("the embedded API applies the same rules", () => {
  let api: TestApi;
  let client: PartsApiClient;
  beforeAll(async () => {
    api = await startTestApi();
    client = new PartsApiClient({
      baseUrl: api.url,
      token: api.demoToken,
      timeoutMs: 5_000,
      attemptTimeoutMs: 2_000,
      maxRetries: 0,
      batchSize: 50,
      maxResponseBytes: 1024 * 1024,
      logger: silentLogger,
    });
  });
  afterAll(async () => {
    await client.close();
    await api.close();
  });

  it("a metadata __proto__ sent as raw JSON is a 400 naming the key", async () => {
    const body = JSON.parse('{"title":"Raw proto","metadata":{"__proto__":{"a":"b"}}}');
    await expect(client.call("createPart", { body })).rejects.toMatchObject({
      kind: "http",
      status: 400,
      upstreamMessage: expect.stringMatching(/metadata.*__proto__/),
    });
    expect(api.store.countPartsWithTitle("Raw proto")).toBe(0);
  });

  it("a SAS URL over http to a remote host is a 400", async () => {
    const part = api.store.sampleParts().find((p) => p.ipOwnerId === api.accounts[0]?.orgId);
    await expect(
      client.call("importPartFile", {
        params: { partId: part?.id ?? "" },
        body: { name: "a.step", sasUrl: "http://files.example.com/a.step?sig=x" },
      }),
    ).rejects.toMatchObject({ status: 400, upstreamMessage: expect.stringMatching(/^sasUrl: /) });
  });
});
