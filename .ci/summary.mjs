// Prints `N passed, M failed` from vitest's JSON reports, given as pairs of report path and exit
// code (npm test's, then npm run test:fleet's). A test file that failed to load, and a run that
// failed with no failing test (an unhandled error) or left no report, each count as one failure.
import { existsSync, readFileSync } from "node:fs";

const args = process.argv.slice(2);
let passed = 0;
let failed = 0;
for (let i = 0; i < args.length; i += 2) {
  const [reportPath, exitCode] = [args[i], args[i + 1]];
  if (!existsSync(reportPath)) {
    failed += 1;
    continue;
  }
  const report = JSON.parse(readFileSync(reportPath, "utf8"));
  const filesFailedToLoad = report.testResults.filter(
    (file) => file.status === "failed" && file.assertionResults.length === 0,
  ).length;
  let failedHere = report.numFailedTests + filesFailedToLoad;
  if (failedHere === 0 && exitCode !== "0") failedHere = 1;
  passed += report.numPassedTests;
  failed += failedHere;
}
console.log(`${passed} passed, ${failed} failed`);
