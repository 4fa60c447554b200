// Issue 13, item 3: an upstream that echoes the SAS URL of import_part_file back, in whatever
// form (the whole URL percent-encoded, a bare sig= query, X-Amz-Signature=, JSON-escaped, the
// signature alone), in an error or in a success. The signature must reach neither the tool's
// result nor a log line. The tool's handler runs against the API over real HTTP; the words are
// the ones the server loop sends.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Part } from "../../src/api/schemas";
import { PartsApiClient } from "../../src/client";
import { startTestApi, type TestApi } from "../../src/embedded/testing";
import { createLogger } from "../../src/log/logger";
import { toolErrorMessage } from "../../src/mcp/messages";
import type { ToolContext } from "../../tools/define";
import { importPartFile } from "../../tools/parts";

const SIGNATURE = "q5Uv0dPm3kQ8h2Yb7Lw9cX1rTn4Zs6Ae0Jf3Gk8Mp2E";
const AZURE = `https://acct.blob.core.windows.net/c/bracket.step?sv=2024-01-01&se=2030-01-01&sp=r&sig=${SIGNATURE}%3D`;
const AMAZON = `https://bucket.s3.amazonaws.com/bracket.step?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Expires=3600&X-Amz-Signature=${SIGNATURE}`;

let api: TestApi;
let part: Part;
const lines: string[] = [];
const logger = createLogger({ level: "debug", write: (line) => lines.push(line) });

beforeAll(async () => {
  api = await startTestApi();
  const owned = api.store.sampleParts().find((p) => p.ipOwnerId === api.accounts[0]?.orgId);
  if (!owned) throw new Error("no part owned by the first organisation");
  part = owned;
});
afterAll(() => api.close());

function client(baseUrl = api.url) {
  return new PartsApiClient({
    baseUrl,
    token: api.demoToken,
    timeoutMs: 5_000,
    attemptTimeoutMs: 2_000,
    maxRetries: 0,
    batchSize: 50,
    maxResponseBytes: 1024 * 1024,
    logger,
  });
}

/** Runs import_part_file as the server loop does: the result's text, or the failure's words (logged too). */
async function runImport(c: PartsApiClient, sasUrl: string): Promise<string> {
  const context = { api: c, call: {} } as unknown as ToolContext;
  try {
    return JSON.stringify(await importPartFile.handler({ partId: part.id, name: "b.step", sasUrl }, context));
  } catch (error) {
    const message = toolErrorMessage(error, {
      mode: "stdio",
      notFound: "",
      idempotent: false,
      timeoutMs: 5_000,
    });
    logger.warn("tool call failed", { tool: "import_part_file", error: message });
    return message;
  }
}

/** The signature parameter's value, decoded, in base64: as an upstream that encodes what it quotes. */
function signatureInBase64(sas: string): string {
  const { searchParams } = new URL(sas);
  const value = searchParams.get("sig") ?? searchParams.get("X-Amz-Signature") ?? "";
  return Buffer.from(value).toString("base64").replace(/=+$/, "");
}

const echoes = (sas: string): [string, string][] => [
  ["raw", `cannot read ${sas}`],
  ["the whole URL percent-encoded", `cannot read ${encodeURIComponent(sas)}`],
  ["percent-encoded twice", `source=${encodeURIComponent(encodeURIComponent(sas))}`],
  ["the bare query", `bad query ${new URL(sas).search.slice(1)}`],
  ["JSON-escaped", `bad body ${JSON.stringify({ sasUrl: sas })}`],
  ["JSON-escaped with \\u0026 and \\/", JSON.stringify(sas).replace(/&/g, "\\u0026").replace(/\//g, "\\/")],
  ["the signature alone", `signature ${SIGNATURE}= does not match`],
  ["the signature in base64", `sig ${signatureInBase64(sas)}`],
];

describe.each([
  ["an Azure SAS URL", AZURE],
  ["an S3 presigned URL", AMAZON],
])("%s echoed in an error message", (_, sas) => {
  it.each(echoes(sas))("%s: not in the result, not in a log line", async (_, message) => {
    api.faults.add({
      endpoint: "importPartFile",
      action: { kind: "status", status: 400, message },
      times: 1,
    });
    const c = client();
    const before = lines.length;
    const text = await runImport(c, sas);
    expect(text).toMatch(/^The Parts API rejected the request: /);
    const logged = lines.slice(before).join("\n");
    for (const secret of [SIGNATURE, signatureInBase64(sas)]) {
      expect(text).not.toContain(secret);
      expect(logged).not.toContain(secret);
    }
    expect(lines.slice(before).join("\n")).toMatch(/tool call failed/);
    for (const line of lines) JSON.parse(line);
    await c.close();
  });
});

describe("a SAS URL echoed in a success", () => {
  let echoing: Server;
  let url: string;
  beforeAll(async () => {
    echoing = createServer((req, res) => {
      let body = "";
      req.on("data", (chunk) => {
        body += chunk;
      });
      req.on("end", () => {
        const { sasUrl } = JSON.parse(body) as { sasUrl: string };
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ fileId: `file for ${encodeURIComponent(sasUrl)} (${sasUrl})` }));
      });
    });
    await new Promise<void>((resolve) => echoing.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(echoing.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => echoing.close(() => resolve())));

  it.each([AZURE, AMAZON])("the result of %s is redacted", async (sas) => {
    const c = client(url);
    const text = await runImport(c, sas);
    expect(text).toMatch(/^\{"fileId":"file for .*\[REDACTED\]/);
    expect(text).not.toContain(SIGNATURE);
    await c.close();
  });
});
