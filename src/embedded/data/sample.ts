// The sample catalogue: about 200 parts of the three demo organisations (roots and their
// revisions) and RFQs in every state. Seeded and based on a fixed date, so it is identical on
// every start.
import { type Part, RFQ_STATES, type Rfq } from "../../api/schemas";
import { Rng } from "../prng";
import { buildPart, isoSeconds } from "./parts";
import { FAMILIES, ORG_BY_KEY, type OrgKey } from "./reference";

/** Creation time of the first sample part. Every sample timestamp derives from it. */
export const SAMPLE_BASE_MS = Date.UTC(2024, 0, 8, 8, 0, 0);
const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
const SAMPLE_SEED = 0x5eed2024;
const RFQ_SEED = 0x0af0_2024;

export interface SamplePart {
  part: Part;
  createdMs: number;
}

/** Sample parts, oldest first. */
export function generateSampleParts(): SamplePart[] {
  const rng = new Rng(SAMPLE_SEED);
  const out: SamplePart[] = [];
  const ids = new Set<string>();
  const serials: Record<OrgKey, number> = { acme: 10_000, borealis: 40_000, cobalt: 70_000 };
  let t = SAMPLE_BASE_MS;
  const newId = () => {
    let id: string;
    do id = `prt_${rng.base36(10)}`;
    while (ids.has(id));
    ids.add(id);
    return id;
  };
  for (let round = 0; round < 5; round++) {
    for (const family of FAMILIES) {
      if (round >= 4 && !rng.chance(0.5)) continue;
      const org = ORG_BY_KEY[family.org];
      serials[family.org] += rng.int(1, 40);
      const serialId = `${org.serialPrefix}-${family.abbrev}-${serials[family.org]}`;
      const title = `${family.title}, ${rng.pick(family.variants)}`;
      t += rng.int(2, 30) * HOUR_MS + rng.int(0, 59) * 60_000;
      const rootId = newId();
      const revisions = rng.chance(0.3) ? rng.int(1, 2) : 0;
      out.push({
        createdMs: t,
        part: buildPart(rng, {
          id: rootId,
          family,
          title,
          serialId,
          createdMs: t,
          published: rng.chance(0.75),
          internal: rng.chance(0.15),
          ...(revisions > 0 || rng.chance(0.3) ? { versionName: "Rev A" } : {}),
        }),
      });
      for (let r = 1; r <= revisions; r++) {
        t += rng.int(1, 12) * HOUR_MS;
        const letter = String.fromCharCode(65 + r);
        out.push({
          createdMs: t,
          part: buildPart(rng, {
            id: newId(),
            family,
            title,
            serialId: `${serialId}-${letter}`,
            createdMs: t,
            published: rng.chance(0.75),
            internal: rng.chance(0.15),
            parentId: rootId,
            versionName: `Rev ${letter}`,
          }),
        });
      }
    }
  }
  return out;
}

const QUANTITY: Record<string, readonly [number, number]> = {
  "org-acme-aero": [1, 60],
  "org-borealis-med": [50, 2000],
  "org-cobalt-mobility": [200, 20_000],
};

/**
 * RFQs for 42 sample parts, six in each state, oldest first. The first is for the first sample
 * part, which the first demo organisation owns, so `rfqs()[0]` is readable with the demo token.
 */
export function generateRfqs(parts: readonly SamplePart[]): Rfq[] {
  const rng = new Rng(RFQ_SEED);
  const chosen = parts.length === 0 ? [] : [parts[0] as SamplePart, ...rng.subset(parts.slice(1), 41, 41)];
  return chosen.map(({ part, createdMs }, i) => {
    const state = RFQ_STATES[i % RFQ_STATES.length] as Rfq["state"];
    const [qMin, qMax] = QUANTITY[part.ipOwnerId] ?? [1, 100];
    const issued = createdMs + rng.int(1, 20) * DAY_MS;
    const deadline = issued + rng.int(14, 45) * DAY_MS;
    const rfq: Rfq = { id: `rfq-2024-${String(101 + i * 7).padStart(4, "0")}`, state, partId: part.id };
    const draftWithoutTerms = state === "DRAFT" && i % 2 === 0;
    if (!(state === "DRAFT" && i === 0)) rfq.quantity = rng.int(qMin, qMax);
    rfq.maxLeadTime = rng.pick([14, 21, 28, 42, 56, 84, 120]);
    if (!draftWithoutTerms) {
      rfq.deadlineTime = isoSeconds(deadline);
      rfq.expireTime = isoSeconds(deadline + rng.int(30, 90) * DAY_MS);
    }
    return rfq;
  });
}
