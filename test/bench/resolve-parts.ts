// The resolve_parts rows: 200 pasted lines (serial ids, external references, ids, titles, some
// mistyped or with a version, with quantities) resolved in one call at 100,000 parts, on the warm
// index (the catalogue read once with the tool's own cursor), through parts-mcp's plain bundle:
// the call's wall time (median of 10 rounds after 2) and the server's CPU per line. Each round
// pastes other parts' lines, so no answer kept from an earlier search helps.
import type { Part } from "../../src/api/schemas";
import type { TestApi } from "../../src/embedded/testing";
import { cpuMs, median, oursSpec, type Row, round } from "./lib";
import { RpcSession } from "./rpc";

const LINES = 200;
const WARMUP_ROUNDS = 2;
const ROUNDS = 10;
const MAX_COLD_CALLS = 20;
/** Pages of the listing the lines' parts are taken from, spread over the catalogue: four a round. */
const SAMPLE_PAGES = Array.from({ length: 4 * (WARMUP_ROUNDS + ROUNDS) }, (_, i) => 1 + i * 31);

/** One small change in the longest word of six letters or more: two letters swapped. */
function typo(title: string): string {
  const word = title.split(/[\s,]+/).find((each) => /^\p{L}{6,}$/u.test(each));
  if (!word) return title;
  const at = Math.floor(word.length / 2);
  return title.replace(word, word.slice(0, at) + word[at + 1] + word[at] + word.slice(at + 2));
}

function pasted(parts: readonly Part[]): string[] {
  return Array.from({ length: LINES }, (_, i) => {
    const part = parts[(i * 7) % parts.length] as Part;
    const forms = [
      `${(i % 9) + 1}x ${part.serialId}`,
      part.externalRef ? `${part.externalRef}\t${i}` : `qty ${i} ${part.title}`,
      part.id,
      `${typo(part.title)} - ${i % 12} pcs`,
      part.versionName ? `${part.title} ${part.versionName}` : part.title,
      `${part.title.toLowerCase()}; ${i}`,
    ];
    return forms[i % forms.length] as string;
  });
}

async function call(server: RpcSession, name: string, args: Record<string, unknown>) {
  const result = await server.call(name, args);
  if (result.isError) throw new Error(`${name} failed`);
  return result.structuredContent as Record<string, unknown>;
}

export async function resolvePartsRows(api: TestApi): Promise<Row[]> {
  const server = await RpcSession.start(oursSpec(api), "2026-07-28");
  try {
    const parts: Part[] = [];
    for (const page of SAMPLE_PAGES) {
      parts.push(...((await call(server, "list_parts", { page, pageSize: 50 })).items as Part[]));
    }
    const lineSets = Array.from({ length: WARMUP_ROUNDS + ROUNDS }, (_, round) =>
      pasted(parts.slice(round * 200, round * 200 + 200)),
    );
    const lines = lineSets[0] as string[];
    let cursor: string | undefined;
    for (let calls = 0, complete = false; !complete && calls < MAX_COLD_CALLS; calls++) {
      const answer = await call(server, "resolve_parts", { lines, ...(cursor && { cursor }) });
      complete = answer.complete as boolean;
      cursor = answer.cursor as string | undefined;
      if (!complete && !cursor) throw new Error("resolve_parts stopped without a cursor");
    }
    const wall: number[] = [];
    const cpu: number[] = [];
    for (let round = 0; round < WARMUP_ROUNDS + ROUNDS; round++) {
      const cpu0 = cpuMs(server.pid);
      const t0 = performance.now();
      await call(server, "resolve_parts", { lines: lineSets[round] });
      if (round < WARMUP_ROUNDS) continue;
      wall.push(performance.now() - t0);
      cpu.push((cpuMs(server.pid) - cpu0) / LINES);
    }
    const how = `${LINES} pasted lines, one call on the warm index, ${ROUNDS} rounds after ${WARMUP_ROUNDS}; median`;
    return [
      {
        name: `resolve_parts: ${LINES} lines at 100,000 parts, wall time`,
        measured: `median ${round(median(wall), 1)} ms, worst ${round(Math.max(...wall), 1)} ms`,
        value: median(wall),
        target: { limit: 1_000, unit: "ms" },
        how,
      },
      {
        name: "resolve_parts: server CPU per line",
        measured: `median ${round(median(cpu), 2)} ms, worst ${round(Math.max(...cpu), 2)} ms`,
        value: median(cpu),
        target: { limit: 5, unit: "ms" },
        how: `${how}; /proc sched`,
      },
    ];
  } finally {
    await server.close();
  }
}
