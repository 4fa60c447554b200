// `npm run bench`: one table of figures, each measured side by side in this one run against the
// yardstick it names (the minimal official-SDK server, test/bench/minimal-server.mjs) or against
// its absolute target, on the plain bundle (dist/parts-mcp.js, built by `npm run build`), with
// the embedded API's large catalogue (100,000 generated parts plus the sample data) in this
// process. The machine may be busy: the servers compared alternate, and targets are ratios where
// a yardstick exists. Method and today's table: docs/performance.md.
//
//   tsx test/bench/run.ts [stdio] [http] [search]
import { cpus, loadavg } from "node:os";
import { startTestApi } from "../../src/embedded/testing";
import { httpRows } from "./http";
import { formatRows, killChildren, type Row } from "./lib";
import { resolvePartsRows } from "./resolve-parts";
import { searchRows } from "./search";
import { stdioRows } from "./stdio";

const SECTIONS = ["stdio", "http", "search"] as const;
/** The whole run stops by itself past this, whatever hangs. */
const RUN_LIMIT_MS = 15 * 60_000;

const asked = process.argv.slice(2);
const sections = new Set(asked.length > 0 ? asked : SECTIONS);
const unknown = [...sections].filter((s) => !(SECTIONS as readonly string[]).includes(s));
if (unknown.length > 0) {
  console.error(`unknown section(s) ${unknown.join(", ")}; sections: ${SECTIONS.join(" ")}`);
  process.exit(2);
}

const watchdog = setTimeout(() => {
  console.error(`bench: still running after ${RUN_LIMIT_MS / 60_000} min; stopping`);
  killChildren();
  process.exit(1);
}, RUN_LIMIT_MS);
watchdog.unref();

const load = () =>
  loadavg()
    .map((v) => v.toFixed(1))
    .join(" ");
console.log(`parts-mcp bench: node ${process.version}, ${cpus().length} CPUs, load average ${load()}`);
const startedAt = Date.now();
const api = await startTestApi({ catalogue: "large" });
const rows: Row[] = [];
try {
  const org = api.accounts[0]?.orgId as string;
  const ids = api.store
    .sampleParts()
    .map((part) => part.id)
    .filter((id) => api.store.partFor(id, org) !== undefined)
    .slice(0, 50);
  const step = async (name: string, run: () => Promise<Row[] | undefined>) => {
    if (!sections.has(name)) return;
    const t0 = Date.now();
    process.stdout.write(`  ${name}...`);
    rows.push(...((await run()) ?? []));
    process.stdout.write(` ${((Date.now() - t0) / 1000).toFixed(1)} s\n`);
  };
  await step("stdio", () => stdioRows(api, ids));
  await step("http", () => httpRows(api, ids));
  await step("search", async () => [...(await searchRows(api)), ...(await resolvePartsRows(api))]);
} finally {
  await api.close();
}
console.log(`\n${formatRows(rows)}\n`);
const met = rows.filter((row) =>
  row.target.atLeast ? row.value >= row.target.limit : row.value <= row.target.limit,
).length;
console.log(
  `${met}/${rows.length} targets met; ${((Date.now() - startedAt) / 1000).toFixed(0)} s; load average at end ${load()}`,
);
clearTimeout(watchdog);
