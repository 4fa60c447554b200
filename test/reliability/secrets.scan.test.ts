// Runs after every other test file (vitest.config.ts: the "secret-scan" project, groupOrder 1):
// everything the servers spawned during the suite wrote to stderr is scanned for the test
// credentials. stdout is the protocol (tool results, checked by the tests themselves).
import { describe, expect, it } from "vitest";
import { serverLogDir } from "../support/mcp-server";
import { scanDirectory } from "./secret-scan";

describe("after the whole suite", () => {
  it("no server wrote a token, an access key or a SAS signature to stderr", () => {
    const { files, bytes, findings } = scanDirectory(serverLogDir);
    // Servers ran and their stderr was captured: an empty scan would prove nothing.
    expect(files, `no server logs in ${serverLogDir}`).toBeGreaterThan(0);
    expect(bytes).toBeGreaterThan(0);
    const report = findings
      .slice(0, 20)
      .map((f) => `${f.file}:${f.line}: ${f.what}: …${f.excerpt}…`)
      .join("\n");
    expect(findings.length, `secrets in server stderr:\n${report}`).toBe(0);
  });
});
