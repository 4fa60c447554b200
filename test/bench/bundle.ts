// 8. The product bundle (issue 14): the size of the server bundle that the script mcp.json starts
// loads, raw and gzipped, and whether any of the embedded API's test-only code (fault injection,
// request statistics) got into it. Its cold start is section 2's figure: the benchmarks spawn that
// same script.
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { gzipSync } from "node:zlib";
// @ts-expect-error the build script is plain JavaScript
import { FILES } from "../../scripts/build.mjs";
import { type Report, repoRoot, serverCommand } from "./lib";

/** Strings that only the embedded API's test entry (src/embedded/testing/) contains. */
const TEST_ONLY_MARKERS = ["reset-mid-body", "slow-drip", "redirect-other-host"];

export function benchBundle(report: Report) {
  const launcher = serverCommand().args.find((arg) => arg.endsWith(".js")) as string;
  const script = join(dirname(launcher), FILES.bundle);
  const source = readFileSync(resolve(repoRoot, script));
  const bytes = source.length;
  const gzipBytes = gzipSync(source).length;
  const text = source.toString("utf8");
  const testOnly = TEST_ONLY_MARKERS.filter((marker) => text.includes(marker));
  report.rows.push(
    {
      section: "8 bundle",
      name: script,
      value: `${Math.round(bytes / 1024)} KiB (gzip ${Math.round(gzipBytes / 1024)} KiB)`,
      how: "size of the bundle the script mcp.json starts loads, as built by `npm run build`; cold start: section 2",
    },
    {
      section: "8 bundle",
      name: "test-only code in the bundle",
      value: testOnly.length === 0 ? "none" : `found: ${testOnly.join(", ")}`,
      how: `strings only the embedded API's test entry has (${TEST_ONLY_MARKERS.join(", ")}); scripts/build.mjs also refuses to bundle src/embedded/testing/`,
    },
  );
  report.data.bundle = { script, bytes, gzipBytes, testOnly };
  return { bytes, gzipBytes, testOnly };
}
