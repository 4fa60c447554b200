// The scanner of the suite-wide secret scan (secrets.scan.test.ts) finds what it must, and only
// that: proof that the scan can fail.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DEMO_ACCOUNTS } from "../../src/embedded";
import { REDACTED, redact } from "../../src/text/redact";
import { scanDirectory, scanText } from "./secret-scan";

const token = DEMO_ACCOUNTS[0]?.token as string;

describe("the secret scanner", () => {
  it.each([
    ["a demo token", `{"msg":"calling","token":"${token}"}`],
    ["another pat_ token", "refused pat_wrong_token for /v1/parts"],
    ["an access key", `{"key":"pmk_test_reliability_1"}`],
    ["a SAS signature", "GET https://files.example.com/a.step?sv=1&sig=abcDEF%3D"],
    ["a percent-encoded SAS signature", "source https%3A%2F%2Ff.example.com%2Fa%3Fsv%3D1%26sig%3DabcDEF"],
    ["an S3 signature", "X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Signature=0f1e2d3c4b5a6978"],
    ["a GCS signature", "X-Goog-Signature=0f1e2d3c4b5a6978 expired"],
    ["a fuzzed signature value", "name FuzzSig%0D%0A"],
    ["a bearer header", "authorization: Bearer eyJhbGciOiJIUzI1NiJ9.payload"],
  ])("finds %s", (_, line) => {
    expect(scanText(`{"level":"info"}\n${line}\n`, "server.log")).toHaveLength(1);
    expect(scanText(line, "server.log")[0]?.line).toBe(1);
  });

  it("passes what the logger redacted", () => {
    const lines = [
      redact(`authorization: Bearer ${token}`, [token]),
      redact("https://files.example.com/a.step?sv=1&sig=abcDEF", []),
      redact("sv=1&sig=abcDEF", []),
      redact("source https%3A%2F%2Ff.example.com%2Fa%3Fsv%3D1%26sig%3DabcDEF", []),
      redact("bare sig%3DabcDEF%26sv%3D1 and X-Amz-Signature=0f1e2d3c4b5a6978", []),
      `{"level":"info","msg":"parts-mcp ready","token":"${REDACTED}"}`,
    ];
    for (const line of lines) expect(scanText(line, "server.log"), line).toEqual([]);
  });

  it("reads every file of a folder, and finds a secret planted in one of them", () => {
    const dir = mkdtempSync(join(tmpdir(), "scan-"));
    try {
      writeFileSync(join(dir, "a.log"), '{"level":"info","msg":"ok"}\n');
      writeFileSync(join(dir, "b.log"), `{"level":"debug"}\n{"level":"warn","msg":"x ${token}"}\n`);
      const { files, findings } = scanDirectory(dir);
      expect(files).toBe(2);
      expect(findings).toEqual([expect.objectContaining({ file: "b.log", line: 2 })]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
