// Prints `N passed, M failed` from vitest's JSON report. A test file that failed to load, and a
// run that failed with no failing test (an unhandled error), each count as one failure.
import { readFileSync } from "node:fs";

const [reportPath, exitCode] = process.argv.slice(2);
const report = JSON.parse(readFileSync(reportPath, "utf8"));
const filesFailedToLoad = report.testResults.filter(
  (file) => file.status === "failed" && file.assertionResults.length === 0,
).length;
let failed = report.numFailedTests + filesFailedToLoad;
if (failed === 0 && exitCode !== "0") failed = 1;
console.log(`${report.numPassedTests} passed, ${failed} failed`);
