// Drives every way a credential could reach a log line, so that the suite-wide scan
// (secrets.scan.test.ts, after every other file) has something to catch if redaction fails:
// access keys (pmk_test_…) right and wrong over HTTP, per-user tokens, SAS URLs in arguments,
// and upstream error messages that quote the token and a signature in every form an upstream
// might echo it, all with debug logging. Per-user tokens too short to be secrets must not poison
// the log: every line stays JSON.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApi, type TestApi } from "../../src/embedded/testing";
import { call, connect, initializeBody, MCP_HEADERS, raw, spawnHttpServer } from "../http/support";
import { textOf } from "../support/mcp-server";
import { somePart, startWatchedServer } from "./support";

const KEYS = ["pmk_test_reliability_3c1f9e7a2b6d", "pmk_test_reliability_91d2e4c6a8b0"];
const WRONG_KEY = "pmk_test_wrong_00000000000000";
const SAS = "https://files.example.com/bracket.step?sv=2024-01-01&se=2030&sig=TopSecretSig%3D";
/** A realistic signature (base64 of an HMAC-SHA256): long enough to be redacted wherever it appears. */
const SIGNATURE = "q5Uv0dPm3kQ8h2Yb7Lw9cX1rTn4Zs6Ae0Jf3Gk8Mp2E";
const AZURE = `https://acct.blob.core.windows.net/c/bracket.step?sv=2024-01-01&sp=r&sig=${SIGNATURE}%3D`;
const AMAZON = `https://bucket.s3.amazonaws.com/bracket.step?X-Amz-Expires=3600&X-Amz-Signature=${SIGNATURE}`;

/** What an upstream might send back of a SAS URL it was given. */
const echoes = (sas: string) => [
  sas,
  encodeURIComponent(sas),
  new URL(sas).search.slice(1),
  JSON.stringify({ sasUrl: sas }).replace(/&/g, "\\u0026"),
  `signature ${SIGNATURE}= does not match`,
];

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api?.close());

describe("credentials that pass through a server never reach its stderr", () => {
  it("stdio: SAS URLs and upstream messages quoting the token and a signature", async () => {
    const server = await startWatchedServer({
      sharedApi: api,
      env: { PARTS_MCP_LOG_LEVEL: "debug" },
    });
    try {
      const part = somePart(api);
      const imported = await server.call("import_part_file", {
        partId: part.id,
        name: "a.step",
        sasUrl: SAS,
      });
      expect(imported.isError, textOf(imported)).toBeFalsy();
      api.faults.add({
        endpoint: "getPart",
        action: {
          kind: "status",
          status: 400,
          message: `bad token ${api.demoToken} for ${SAS}`,
        },
        times: 1,
      });
      api.faults.add({ endpoint: "importPartFile", action: { kind: "status", status: 503 }, times: 1 });
      const refused = await server.call("get_part", { id: part.id });
      const failed = await server.call("import_part_file", { partId: part.id, name: "b.step", sasUrl: SAS });
      for (const result of [refused, failed]) {
        expect(result.isError).toBe(true);
        expect(textOf(result)).not.toMatch(/TopSecretSig|pat_demo/);
      }
      expect(server.stderr()).toMatch(/tool call failed/);

      // Issue 13, item 3: the SAS URL echoed back in every form, in an import's error.
      for (const sas of [AZURE, AMAZON]) {
        for (const message of echoes(sas)) {
          api.faults.add({
            endpoint: "importPartFile",
            action: { kind: "status", status: 400, message },
            times: 1,
          });
          const echoed = await server.call("import_part_file", {
            partId: part.id,
            name: "c.step",
            sasUrl: sas,
          });
          expect(echoed.isError).toBe(true);
          expect(textOf(echoed)).not.toContain(SIGNATURE);
        }
      }
      expect(server.stderr()).not.toContain(SIGNATURE);
    } finally {
      api.faults.clear();
      await server.close();
    }
  });

  it("HTTP: right and wrong access keys, and a per-user token", async () => {
    const shared = await spawnHttpServer({ api, env: { PARTS_MCP_ACCESS_KEYS: KEYS.join(",") } });
    const perUser = await spawnHttpServer({
      api,
      args: ["--auth", "per-user"],
      env: { PARTS_API_TOKEN: "" },
    });
    try {
      const wrong = await raw(shared.url, {
        headers: { ...MCP_HEADERS, authorization: `Bearer ${WRONG_KEY}` },
        body: initializeBody,
      });
      expect(wrong.status).toBe(401);
      const client = await connect(shared.url, { authorization: `Bearer ${KEYS[1]}` });
      try {
        const result = await call(client, "import_part_file", {
          partId: "no-such-part",
          name: "c.step",
          sasUrl: SAS,
        });
        expect(textOf(result)).not.toContain("TopSecretSig");
      } finally {
        await client.close();
      }
      const user = await connect(perUser.url, { "x-parts-api-token": api.accounts[1]?.token ?? "" });
      try {
        const result = await call(user, "get_part", { id: "no-such-part" });
        expect(result.isError).toBe(true);
      } finally {
        await user.close();
      }
      const wrongUser = await raw(perUser.url, {
        headers: { ...MCP_HEADERS, "x-parts-api-token": "pat_not_a_real_token_reliability" },
        body: initializeBody,
      });
      expect(wrongUser.status).toBeLessThan(500);
      // Issue 13, item 4: tokens that would redact `"`, `e` or `:` in every later line.
      for (const junk of ['"', "e", ":", "time"]) {
        await raw(perUser.url, {
          headers: { ...MCP_HEADERS, "x-parts-api-token": junk },
          body: initializeBody,
        });
      }
      const after = await connect(perUser.url, { "x-parts-api-token": api.accounts[0]?.token ?? "" });
      try {
        await call(after, "get_part", { id: "no-such-part" });
      } finally {
        await after.close();
      }
      const lines = perUser
        .stderr()
        .split("\n")
        .filter((line) => line.trim() !== "");
      expect(lines.length).toBeGreaterThan(3);
      for (const line of lines) expect(() => JSON.parse(line), line).not.toThrow();
    } finally {
      await Promise.all([shared.stop(), perUser.stop()]);
    }
    // The scan of .test-logs/ at the end of the suite covers both processes' stderr.
  });
});
