// Every error class, in the Error shape with a stable code, and inputs that must not hurt the server.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApi, type TestApi } from "../../src/embedded/testing";
import { call, errorOf, parseRaw, rawRequest } from "./helpers";

let api: TestApi;
let partId: string;

beforeAll(async () => {
  api = await startTestApi();
  partId = api.store.sampleParts().find((p) => p.ipOwnerId === api.accounts[0]!.orgId)!.id;
});
afterAll(() => api.close());

const expectError = async (
  reply: Promise<Awaited<ReturnType<typeof call>>>,
  status: number,
  code: string,
) => {
  const r = await reply;
  expect(r.status, r.text).toBe(status);
  expect(r.headers.get("content-type")).toMatch(/^application\/json/);
  const body = errorOf(r);
  expect(body.code).toBe(code);
  return body.message;
};

describe("authentication", () => {
  it("answers 401 with WWW-Authenticate: Bearer for a missing, malformed or unknown token", async () => {
    const cases: Parameters<typeof call>[2][] = [
      { token: null },
      { token: "pat_demo_acme_wrong" },
      { token: null, headers: { authorization: `Basic ${Buffer.from("a:b").toString("base64")}` } },
      { token: null, headers: { authorization: "Bearer" } },
      { token: null, headers: { authorization: "Bearer " } },
    ];
    for (const init of cases) {
      const reply = await call(api, `/v1/parts/${partId}`, init);
      expect(reply.status, JSON.stringify(init)).toBe(401);
      expect(errorOf(reply).code).toBe("unauthenticated");
      expect(reply.headers.get("www-authenticate")).toMatch(/^Bearer\b/);
    }
  });

  it("protects every endpoint, POSTs included, and never creates without a token", async () => {
    const before = api.store.partCount;
    await expectError(call(api, "/v1/parts", { token: null, body: { title: "x" } }), 401, "unauthenticated");
    await expectError(call(api, "/v1/standards", { token: null }), 401, "unauthenticated");
    await expectError(
      call(api, "/v1/categories:batch-get", { token: null, body: { ids: [] } }),
      401,
      "unauthenticated",
    );
    expect(api.store.partCount).toBe(before);
  });

  it("accepts the scheme in any case", async () => {
    const reply = await call(api, "/v1/standards", {
      token: null,
      headers: { authorization: `bearer ${api.demoToken}` },
    });
    expect(reply.status).toBe(200);
  });
});

describe("routing", () => {
  it("answers 404 for unknown routes", async () => {
    for (const path of [
      "/",
      "/v1",
      "/v2/parts",
      "/v1/parts/",
      "/v1/widgets",
      "/v1/parts/x/y",
      "/v1//parts",
    ]) {
      expect(await expectError(call(api, path), 404, "not_found"), path).toMatch(/no endpoint|not found/);
    }
  });

  it("answers 405 with Allow for a wrong method on a known path", async () => {
    const cases: [string, string, string][] = [
      ["DELETE", `/v1/parts/${partId}`, "GET"],
      ["PUT", "/v1/parts", "GET, POST"],
      ["GET", "/v1/standards:batch-get", "POST"],
      ["POST", "/v1/standards", "GET"],
      ["GET", `/v1/parts/${partId}/import-file`, "POST"],
      ["PATCH", "/v1/rfqs/x", "GET"],
    ];
    for (const [method, path, allow] of cases) {
      const reply = await call(api, path, { method });
      expect(reply.status, `${method} ${path}`).toBe(405);
      expect(errorOf(reply).code).toBe("method_not_allowed");
      expect(reply.headers.get("allow")).toBe(allow);
    }
  });

  it("answers 404 for an unknown id, quoting it", async () => {
    expect(await expectError(call(api, "/v1/parts/prt_nope"), 404, "not_found")).toBe(
      'part "prt_nope" not found',
    );
    expect(await expectError(call(api, "/v1/standards/ASTM%20Z9"), 404, "not_found")).toBe(
      'standard "ASTM Z9" not found',
    );
  });
});

describe("request bodies", () => {
  it("answers 415 for a POST without Content-Type: application/json", async () => {
    const body = JSON.stringify({ title: "x" });
    await expectError(call(api, "/v1/parts", { rawBody: body }), 415, "unsupported_media_type");
    await expectError(
      call(api, "/v1/parts", { rawBody: body, headers: { "content-type": "text/plain" } }),
      415,
      "unsupported_media_type",
    );
    const charset = await call(api, "/v1/parts", {
      rawBody: body,
      headers: { "content-type": "Application/JSON; charset=utf-8" },
    });
    expect(charset.status).toBe(200);
  });

  it("answers 413 for a body over 1 MiB, and keeps serving on the same connection", async () => {
    const big = JSON.stringify({ title: "x", description: "d".repeat(1024 * 1024) });
    const message = await expectError(
      call(api, "/v1/parts", { rawBody: big, headers: { "content-type": "application/json" } }),
      413,
      "payload_too_large",
    );
    expect(message).toContain("1048576");
    const small = JSON.stringify({ title: "x", description: "d".repeat(1000 * 1024) });
    expect(
      (await call(api, "/v1/parts", { rawBody: small, headers: { "content-type": "application/json" } }))
        .status,
    ).toBe(200);
    // Chunked, without Content-Length: counted while it arrives.
    const chunked = await rawRequest(
      api,
      `POST /v1/parts HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${api.demoToken}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n` +
        `${(1024 * 1024 + 10).toString(16)}\r\n${"a".repeat(1024 * 1024 + 10)}\r\n0\r\n\r\n`,
    );
    expect(parseRaw(chunked).status).toBe(413);
  });

  it("a smaller maxBodyBytes applies", async () => {
    const small = await startTestApi({ maxBodyBytes: 64 });
    try {
      const reply = await call(small, "/v1/criticalities:batch-get", { body: { ids: ["a".repeat(100)] } });
      expect(reply.status).toBe(413);
    } finally {
      await small.close();
    }
  });

  it("answers 400 for malformed JSON, an empty body and a body that is not an object", async () => {
    const json = { "content-type": "application/json" };
    expect(
      await expectError(
        call(api, "/v1/parts", { rawBody: '{"title": "x",', headers: json }),
        400,
        "invalid_argument",
      ),
    ).toBe("body: malformed JSON");
    expect(
      await expectError(call(api, "/v1/parts", { rawBody: "", headers: json }), 400, "invalid_argument"),
    ).toMatch(/^body: is required/);
    expect(
      await expectError(call(api, "/v1/parts", { body: [{ title: "x" }] }), 400, "invalid_argument"),
    ).toBe("body: must be an object");
    expect(await expectError(call(api, "/v1/parts", { body: "title" }), 400, "invalid_argument")).toBe(
      "body: must be an object",
    );
  });

  it("answers 400 naming the field for wrong types, missing fields and unknown enum values", async () => {
    const cases: [unknown, string][] = [
      [{}, "title: is required"],
      [{ title: "" }, "title: must not be empty"],
      [{ title: 42 }, "title: must be a string"],
      [{ title: "x", internal: "yes" }, "internal: must be a boolean"],
      [{ title: "x", keywords: "bracket" }, "keywords: must be an array"],
      [{ title: "x", standardIds: ["ok", ""] }, "standardIds[1]: must not be empty"],
      [{ title: "x", boundingBox: { x: "10" } }, "boundingBox.x: must be a number"],
      [{ title: "x", metadata: { a: 1 } }, "metadata.a: must be a string"],
      [{ title: "x", metadata: { "line\nbreak": true } }, 'metadata["line\\nbreak"]: must be a string'],
      [
        { title: "x", materialType: "wood" },
        "materialType: must be one of metal, polymer, ceramic, composite, sand, wax, other",
      ],
      [{ title: "x", unitSystem: "metric" }, "unitSystem: must be one of METRIC, IMPERIAL"],
      [{ title: "x", customFields: [{ dropdownId: "d" }] }, "customFields[0].selectedOptionIds: is required"],
    ];
    for (const [body, message] of cases) {
      expect(
        await expectError(call(api, "/v1/parts", { body }), 400, "invalid_argument"),
        JSON.stringify(body),
      ).toBe(message);
    }
    expect(
      await expectError(call(api, "/v1/standards:batch-get", { body: { ids: [] } }), 400, "invalid_argument"),
    ).toBe("codes: is required");
    expect(
      await expectError(
        call(api, "/v1/categories:batch-get", { body: { ids: "cat-medical" } }),
        400,
        "invalid_argument",
      ),
    ).toBe("ids: must be an array");
    expect(
      await expectError(
        call(api, `/v1/parts/${partId}/import-file`, { body: { name: "a.step" } }),
        400,
        "invalid_argument",
      ),
    ).toBe("sasUrl: is required");
  });

  it("tolerates unknown body fields", async () => {
    expect((await call(api, "/v1/parts", { body: { title: "x", colour: "blue" } })).status).toBe(200);
  });
});

describe("query strings", () => {
  it("converts numbers and names the field when they are not numbers", async () => {
    const cases: [string, string][] = [
      ["page=abc", "page: must be an integer"],
      ["page=1.5", "page: must be an integer"],
      ["page=", "page: must be an integer"],
      ["pageSize=0x10", "pageSize: must be an integer"],
      ["pageSize=2e1", "pageSize: must be an integer"],
      ["page=0", "page: must be at least 1"],
      ["page=-3", "page: must be at least 1"],
      ["pageSize=0", "pageSize: must be between 1 and 50"],
      ["pageSize=51", "pageSize: must be between 1 and 50"],
      ["view=OWNER", "view: must be one of CONSUMER, IP_OWNER"],
      ["page=1&page=2", "page: must be given once"],
    ];
    for (const [query, message] of cases) {
      expect(await expectError(call(api, `/v1/parts?${query}`), 400, "invalid_argument"), query).toBe(
        message,
      );
    }
    expect((await call(api, "/v1/parts?page=1&pageSize=50&view=IP_OWNER&unknown=1")).status).toBe(200);
    expect((await call(api, "/v1/parts?page=99999999999999999999")).status).toBe(400);
  });
});

describe("hostile input never hurts the server", () => {
  it("answers ids with control characters, encoded slashes and dots, unicode and huge lengths", async () => {
    const paths = [
      "/v1/parts/%00",
      "/v1/parts/a%0Ab%0D%0Ac",
      "/v1/parts/%2E%2E",
      "/v1/parts/..",
      "/v1/parts/%2E%2E%2F%2E%2E%2Fetc%2Fpasswd",
      "/v1/parts/..%2F..%2Fopenapi.json",
      "/v1/parts/%F0%9F%94%A9",
      "/v1/parts/%EF%BF%BF",
      `/v1/parts/${"x".repeat(8000)}`,
      "/v1/standards/%25",
      "/v1/parts/prt_c0000000",
      "/v1/rfqs/%7B%7D",
    ];
    for (const path of paths) {
      const reply = await call(api, path);
      expect(reply.status, path).toBe(404);
      const { message } = errorOf(reply);
      expect(message.length).toBeLessThan(200);
      expect(message).not.toMatch(/\p{Cc}/u);
    }
  });

  it("answers 400 for bad percent-encoding in a path parameter", async () => {
    for (const path of ["/v1/parts/%", "/v1/parts/%E0%A4%A", "/v1/parts/%zz", "/v1/standards/%C0%AF"]) {
      const message = await expectError(call(api, path), 400, "invalid_argument");
      expect(message, path).toMatch(/^(id|code): invalid percent-encoding/);
    }
  });

  it("answers what Node's parser rejects in the Error shape, then keeps serving", async () => {
    const huge = parseRaw(
      await rawRequest(api, `GET /v1/parts HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(20_000)}\r\n\r\n`),
    );
    expect(huge.status).toBe(431);
    expect(huge.body).toMatchObject({ status: 431, code: "request_header_fields_too_large" });
    const garbage = parseRaw(await rawRequest(api, "THIS IS NOT HTTP\r\n\r\n"));
    expect(garbage.status).toBe(400);
    expect(garbage.body).toMatchObject({ status: 400, code: "invalid_argument" });
    const badLength = parseRaw(
      await rawRequest(api, "POST /v1/parts HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n"),
    );
    expect(badLength.status).toBe(400);
    expect((await call(api, "/v1/standards")).status).toBe(200);
  });

  it("survives a client that disconnects mid-body, creating nothing", async () => {
    const before = api.store.partCount;
    const closedBefore = api.stats.closedEarly("createPart");
    await rawRequest(
      api,
      `POST /v1/parts HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${api.demoToken}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"title":`,
      50,
    );
    expect((await call(api, "/v1/standards")).status).toBe(200);
    expect(api.store.partCount).toBe(before);
    expect(api.stats.closedEarly("createPart")).toBe(closedBefore + 1);
  });

  it("handles deeply nested and huge JSON bodies", async () => {
    const nested = `${"[".repeat(50_000)}${"]".repeat(50_000)}`;
    const reply = await call(api, "/v1/parts", {
      rawBody: nested,
      headers: { "content-type": "application/json" },
    });
    expect(reply.status).toBe(400);
    const many = { codes: Array.from({ length: 100 }, (_, i) => `C-${i}`) };
    expect((await call(api, "/v1/standards:batch-get", { body: many })).status).toBe(200);
    expect((await call(api, "/v1/standards")).status).toBe(200);
  });
});
