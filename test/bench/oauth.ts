// 12. Remote connectors (PARTS_MCP_AUTH=oauth): what token verification costs a tool call, and
// what signing in costs a person. The built server twice over HTTP against the same embedded API:
// in `per-user` mode (the caller's token in X-Parts-Api-Token, no verification) and in `oauth` mode
// (an ES256 JWT verified, its grant checked in the store with a 2 s cache); the same list_standards
// call, sequential, interleaved in rounds. Then whole sign-ins (SDK client as the host, a scripted
// person) counted in HTTP round trips and timed. Then throughput with every token verified: 64
// concurrent get_part with the signed-in person's JWT, in windows alternating with the minimal
// server of section 3; target ≥ 1.0× its calls a second.
import { randomBytes } from "node:crypto";
import type { TestApi } from "../../src/embedded/testing";
import {
  connectWithSignIn,
  embeddedDataDir,
  newKey,
  Person,
  startOAuthServer,
  TestHost,
} from "../auth/support";
import { spawnHttpServer } from "../http/support";
import { load, spawnHttp } from "./http";
import { checkRatio, minimalSpec, type Report, round, summarize, visibleSampleIds } from "./lib";

const CALLS = 200;
/** Nothing logged per call, as in the HTTP section (the test helpers log at debug; info still says where it listens). */
const QUIET = { PARTS_MCP_LOG_LEVEL: "info" };
const ROUNDS = 4;
const SIGN_INS = 8;

export async function benchOAuth(report: Report, api: TestApi): Promise<void> {
  const pat = api.demoToken;
  const [oauth, perUser] = await Promise.all([
    startOAuthServer({
      api,
      store: { dataDir: await embeddedDataDir("bench") },
      keys: `k1:${newKey()}`,
      env: QUIET,
    }),
    spawnHttpServer({ api, env: { PARTS_MCP_AUTH: "per-user", ...QUIET } }),
  ]);
  try {
    // Round trips of one sign-in: every request the host and the person make, counted.
    const requests = { host: 0, person: 0 };
    const counting =
      (kind: keyof typeof requests): typeof fetch =>
      (input, init) => {
        requests[kind]++;
        return fetch(input, init);
      };
    const signInMs: number[] = [];
    let bearer = "";
    for (let i = 0; i < SIGN_INS; i++) {
      requests.host = 0;
      requests.person = 0;
      const host = new TestHost(`Bench ${randomBytes(3).toString("hex")}`);
      const t0 = performance.now();
      const client = await connectWithSignIn(
        oauth.url,
        host,
        new Person(pat),
        counting("host"),
        counting("person"),
      );
      signInMs.push(performance.now() - t0);
      await client.close();
      bearer = String(host.saved?.access_token);
    }
    const roundTrips = { ...requests };

    const body = JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "list_standards", arguments: {} },
    });
    const base = {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2025-11-25",
    };
    const timeCalls = async (url: string, headers: Record<string, string>) => {
      const samples: number[] = [];
      for (let i = 0; i < CALLS / ROUNDS; i++) {
        const t0 = performance.now();
        const response = await fetch(url, { method: "POST", headers: { ...base, ...headers }, body });
        const text = await response.text();
        if (response.status !== 200 || text.includes('"isError":true'))
          throw new Error(`call failed: ${response.status} ${text.slice(0, 200)}`);
        samples.push(performance.now() - t0);
      }
      return samples;
    };
    const withOAuth: number[] = [];
    const without: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      without.push(...(await timeCalls(perUser.url, { "x-parts-api-token": pat })));
      withOAuth.push(...(await timeCalls(oauth.url, { authorization: `Bearer ${bearer}` })));
    }
    const a = summarize(withOAuth);
    const b = summarize(without);
    const ratio = a.median / b.median;
    const sign = summarize(signInMs);
    report.rows.push(
      {
        section: "12 oauth",
        name: "tool call with token verification / without",
        value: `${round(ratio, 2)}× (median ${round(a.median, 2)} ms vs ${round(b.median, 2)} ms; p95 ${round(a.p95, 2)} vs ${round(b.p95, 2)} ms)`,
        how: `list_standards, ${CALLS} sequential calls each, in ${ROUNDS} interleaved rounds: oauth mode (ES256 JWT + grant check) vs per-user mode (X-Parts-Api-Token)`,
      },
      {
        section: "12 oauth",
        name: "sign-in round trips",
        value: `${roundTrips.host + roundTrips.person} HTTP requests (host ${roundTrips.host}, person ${roundTrips.person}); median ${round(sign.median, 0)} ms`,
        how: `a whole first connection, counted at the host (its 401, discovery, registration, code exchange, then initialize again) and the person (authorize, form, post, return); the PAT check is the server's own request; ${SIGN_INS} sign-ins`,
      },
    );
    const throughput = await oauthThroughput(api, oauth.url, oauth.child.pid as number, bearer);
    report.rows.push({
      section: "12 oauth",
      name: "get_part, 64 concurrent, every token verified (2026-07-28)",
      value: `parts-mcp ${Math.round(throughput.ours)} calls/s vs minimal ${Math.round(throughput.minimal)} calls/s: ${round(throughput.ours / throughput.minimal, 2)}× (windows ${throughput.windows.ours.join(", ")} vs ${throughput.windows.minimal.join(", ")})`,
      how: `oauth mode (the signed-in person's ES256 JWT on every request, its grant checked in the store with a 2 s cache, the person's PAT upstream) against the minimal server of section 3 (no verification); ${THROUGHPUT_WINDOWS} windows of ${THROUGHPUT_WINDOW_MS / 1000} s each alternating, after a warm-up: the median ones`,
    });
    checkRatio(
      report,
      "HTTP calls/s, get_part 64 concurrent, OAuth token verified",
      throughput.ours,
      throughput.minimal,
      1.0,
      (rate) => `${Math.round(rate)}/s`,
      true,
    );
    report.data.oauth = { ratio, withOAuth: a, without: b, roundTrips, signInMs: sign, throughput };
  } finally {
    await Promise.all([oauth.stop(), perUser.stop()]);
  }
}

const THROUGHPUT_WINDOWS = 3;
const THROUGHPUT_WINDOW_MS = 1_500;

/** Calls a second of the oauth server (with `bearer`) and of the minimal server, median windows. */
async function oauthThroughput(api: TestApi, url: string, pid: number, bearer: string) {
  const ids = visibleSampleIds(api);
  const minimal = await spawnHttp(minimalSpec(api));
  const windows = { ours: [] as number[], minimal: [] as number[] };
  try {
    // Each warmed up right before its first window: a server idle for 2 s runs its idle collection.
    await load(minimal.url, minimal.pid, ids, 64, "2026-07-28", 0, 2_000);
    await load(url, pid, ids, 64, "2026-07-28", 0, 2_000, bearer);
    for (let w = 0; w < THROUGHPUT_WINDOWS; w++) {
      const ours = await load(url, pid, ids, 64, "2026-07-28", THROUGHPUT_WINDOW_MS, 300, bearer);
      const theirs = await load(minimal.url, minimal.pid, ids, 64, "2026-07-28", THROUGHPUT_WINDOW_MS, 300);
      if (ours.wrong > 0) throw new Error(`${ours.wrong} calls with the JWT failed`);
      windows.ours.push(Math.round(ours.callsPerSecond));
      windows.minimal.push(Math.round(theirs.callsPerSecond));
    }
  } finally {
    await minimal.close();
  }
  const median = (values: number[]) =>
    [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)] as number;
  return { ours: median(windows.ours), minimal: median(windows.minimal), windows };
}
