// Sections that later work fills in, each named here with what it is to measure, so that the
// report says what is not measured yet instead of leaving it out:
// - search (issue 16): first search over the 100,000-part catalogue until `complete` (calls,
//   wall time, upstream requests), a repeat search on the warm index (median through the
//   protocol), the index's memory per 100,000 parts, each beside a plain list_parts call.
// - flood (issue 13): peak RSS under 2,000 concurrent calls on stdio and on HTTP, every call
//   answered.
// - views (issue 17): the size of each MCP Apps view document, and how much of it is ours.
import type { TestApi } from "../../src/embedded/testing";
import type { Report } from "./lib";

function pending(report: Report, section: string, what: string, issue: number): void {
  report.rows.push({ section, name: what, value: "not measured yet", how: `filled in by issue ${issue}` });
}

export async function benchSearch(report: Report, _api: TestApi): Promise<void> {
  pending(report, "9 search", "first complete search / repeat search / index memory at 100,000 parts", 16);
}

export async function benchFlood(report: Report, _api: TestApi): Promise<void> {
  pending(report, "10 flood", "peak RSS under 2,000 concurrent calls (stdio, HTTP)", 13);
}

export async function benchViews(report: Report): Promise<void> {
  pending(report, "11 views", "size of each view document, and ours in it", 17);
}
