// The suite-wide secret scan: what every spawned server wrote to stderr (test/support/mcp-server.ts
// copies it into .test-logs/) must hold no test credential: the embedded API's demo tokens and any
// other `pat_…` token a test uses, access keys (PARTS_MCP_ACCESS_KEYS values, which tests prefix
// `pmk_test_`), SAS and presigned-URL signatures (any `sig=`, `sig%3D`, `X-Amz-Signature=` or
// `X-Goog-Signature=` value not redacted) and the secret values tests send.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { DEMO_ACCOUNTS } from "../../src/embedded";

export interface Finding {
  file: string;
  line: number;
  what: string;
  /** The line, shortened around the match. */
  excerpt: string;
}

/** Exact values tests use as secrets (tokens, signatures); scanned for verbatim. */
const KNOWN_SECRETS: readonly string[] = [
  ...DEMO_ACCOUNTS.map((account) => account.token),
  "SuperSecretSignature123",
  "TopSecretSig",
  "FuzzSig",
  "LeakMe",
  // The signature of secrets-exercise.test.ts's SAS URLs, echoed back in every form.
  "q5Uv0dPm3kQ8h2Yb7Lw9cX1rTn4Zs6Ae0Jf3Gk8Mp2E",
];

/** Shapes of credentials, whatever their value. */
const SECRET_PATTERNS: readonly { what: string; pattern: RegExp }[] = [
  { what: "a personal access token (pat_…)", pattern: /\bpat_[A-Za-z0-9_]{4,}/g },
  { what: "an access key (pmk_test_…)", pattern: /\bpmk_test_[A-Za-z0-9_-]+/g },
  { what: "a SAS signature (sig=…)", pattern: /\bsig=(?!\[REDACTED\])[^\s&"'\\]+/gi },
  {
    what: "a percent-encoded SAS signature (sig%3D…)",
    pattern: /(?<![A-Za-z_])sig%(?:25)*3D(?!\[REDACTED\])[^\s&"'\\%]+/gi,
  },
  {
    what: "a presigned-URL signature (X-Amz-Signature=…, X-Goog-Signature=…)",
    pattern: /\bx-(?:amz|goog)-signature(?:=|%(?:25)*3D)(?!\[REDACTED\])[^\s&"'\\%]+/gi,
  },
  { what: "a bearer credential", pattern: /\bbearer\s+(?!\[REDACTED\])[A-Za-z0-9._~+/-]{8,}=*/gi },
];

export function scanText(text: string, file: string): Finding[] {
  const findings: Finding[] = [];
  const lines = text.split("\n");
  lines.forEach((content, index) => {
    const seen = new Set<number>(); // one finding per place, whichever rule saw it first
    const found = (what: string, at: number) => {
      if (seen.has(at)) return;
      seen.add(at);
      const excerpt = content.slice(Math.max(0, at - 60), at + 60);
      findings.push({ file, line: index + 1, what, excerpt });
    };
    for (const secret of KNOWN_SECRETS) {
      const at = content.indexOf(secret);
      if (at >= 0) found(`the test secret ${secret.slice(0, 12)}…`, at);
    }
    for (const { what, pattern } of SECRET_PATTERNS) {
      for (const match of content.matchAll(pattern)) found(what, match.index ?? 0);
    }
  });
  return findings;
}

/** Every finding in every file of `dir`, and how many files and bytes were scanned. */
export function scanDirectory(dir: string): { files: number; bytes: number; findings: Finding[] } {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return { files: 0, bytes: 0, findings: [] };
  }
  const findings: Finding[] = [];
  let bytes = 0;
  for (const name of names) {
    const text = readFileSync(join(dir, name), "utf8");
    bytes += text.length;
    findings.push(...scanText(text, name));
  }
  return { files: names.length, bytes, findings };
}
