// The large generated catalogue (option `catalogue: "large"`): N parts that are never stored.
// Every field of part i is a pure function of i (a hash seeds the same builder as the sample
// data), so start-up only computes three small facts per part (owner, published, internal) to
// build the paging indexes, and a page materialises just its own parts.
//
// Ids encode the index: "prt_c" + 7 base-36 digits of an invertible scramble of i, so a get by id
// needs no map. Sample and created ids are "prt_" + 10 characters and can never collide.
import type { Part } from "../../api/schemas";
import { hash32, Rng } from "../prng";
import { buildPart } from "./parts";
import { FAMILIES, ORG_BY_KEY, ORGS, type PartFamily } from "./reference";
import { SAMPLE_BASE_MS } from "./sample";

/**
 * Creation time of generated part 0; part i was created about i × 15 minutes later (less for a
 * catalogue so large that it would reach the sample data, which must stay newer).
 */
const LARGE_BASE_MS = Date.UTC(2019, 0, 7, 6, 0, 0);
const MAX_STEP_MS = 15 * 60_000;

const SALT_FAMILY = 0x1f;
const SALT_PUBLISHED = 0x2e;
const SALT_INTERNAL = 0x3d;
const SALT_VERSION = 0x4c;
const SALT_VARIANT = 0x5b;
const SALT_BODY = 0x6a;
const SALT_TIME = 0x79;

const ID_PREFIX = "prt_c";
const ID_DIGITS = 7;
const MUL = 0x2c1b3c6d;
const XOR = 0x5bd1e995;
const MUL_INVERSE = (() => {
  let inv = MUL;
  for (let i = 0; i < 5; i++) inv = Math.imul(inv, 2 - Math.imul(MUL, inv));
  return inv;
})();

const ORG_INDEX_OF_FAMILY = FAMILIES.map((f) => ORGS.indexOf(ORG_BY_KEY[f.org]));

export class LargeCatalogue {
  private readonly stepMs: number;

  constructor(readonly size: number) {
    this.stepMs = Math.max(
      1,
      Math.min(MAX_STEP_MS, Math.floor((SAMPLE_BASE_MS - LARGE_BASE_MS) / Math.max(1, size))),
    );
  }

  private familyIndex(i: number): number {
    return hash32(Math.floor(i / 3), SALT_FAMILY) % FAMILIES.length;
  }

  private family(i: number): PartFamily {
    return FAMILIES[this.familyIndex(i)] as PartFamily;
  }

  /** Index in ORGS of the organisation owning part i. */
  ownerIndex(i: number): number {
    return ORG_INDEX_OF_FAMILY[this.familyIndex(i)] as number;
  }

  published(i: number): boolean {
    return hash32(i, SALT_PUBLISHED) % 100 < 80;
  }

  internal(i: number): boolean {
    return hash32(i, SALT_INTERNAL) % 100 < 10;
  }

  id(i: number): string {
    const scrambled = (Math.imul(i, MUL) ^ XOR) >>> 0;
    return ID_PREFIX + scrambled.toString(36).padStart(ID_DIGITS, "0");
  }

  /** The index of a generated part id, or -1. */
  indexOf(id: string): number {
    if (id.length !== ID_PREFIX.length + ID_DIGITS || !id.startsWith(ID_PREFIX)) return -1;
    const scrambled = Number.parseInt(id.slice(ID_PREFIX.length), 36);
    if (!Number.isSafeInteger(scrambled) || scrambled > 0xffffffff) return -1;
    const i = Math.imul((scrambled ^ XOR) >>> 0, MUL_INVERSE) >>> 0;
    return i < this.size && this.id(i) === id ? i : -1;
  }

  /** Index of the root part when part i is a revision of it, else -1. */
  private rootOf(i: number): number {
    const j = i % 3;
    return j > 0 && hash32(i, SALT_VERSION) % 2 === 0 ? i - j : -1;
  }

  title(i: number): string {
    const root = this.rootOf(i);
    const base = root < 0 ? i : root;
    const family = this.family(base);
    return `${family.title}, ${family.variants[hash32(base, SALT_VARIANT) % family.variants.length]}`;
  }

  createdMs(i: number): number {
    return LARGE_BASE_MS + i * this.stepMs + (hash32(i, SALT_TIME) % this.stepMs);
  }

  part(i: number): Part {
    const family = this.family(i);
    const org = ORG_BY_KEY[family.org];
    const root = this.rootOf(i);
    const serial = `${org.serialPrefix}-${family.abbrev}-C${String((root < 0 ? i : root) + 1).padStart(6, "0")}`;
    const j = i % 3;
    return buildPart(new Rng(hash32(i, SALT_BODY)), {
      id: this.id(i),
      family,
      title: this.title(i),
      serialId: root < 0 ? serial : `${serial}-${j === 1 ? "B" : "C"}`,
      createdMs: this.createdMs(i),
      published: this.published(i),
      internal: this.internal(i),
      ...(root < 0 ? {} : { parentId: this.id(root), versionName: j === 1 ? "Rev B" : "Rev C" }),
    });
  }
}
