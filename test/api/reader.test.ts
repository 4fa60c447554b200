// The compiled readers of the API's records (src/api/reader.ts) against zod, whose parse they
// stand in for: on every record the sample API holds, and on those records changed at random
// (a field of another type, removed, added, a record nested wrong). A reader must never take what
// zod refuses, must give exactly what zod gives (unknown keys dropped, zod's key order), and must
// take every record zod takes, or it saves nothing.
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { endpoints } from "../../src/api/endpoints";
import { NOT_READ, readRecord } from "../../src/api/reader";
import { startTestApi, type TestApi } from "../../src/embedded/testing";

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.close());

/** Valid records of each endpoint's answer, from the sample data. */
function samplesOf(name: keyof typeof endpoints): unknown[] {
  const { store } = api;
  const parts = store.sampleParts();
  const items = <T>(records: T[]) => [{ items: records }, { items: records.slice(0, 1) }, { items: [] }];
  switch (name) {
    case "getPart":
      return parts;
    case "listParts":
      return [
        { items: parts, hasMore: true },
        { items: [], hasMore: false },
      ];
    case "getRfq":
      return store.rfqs();
    case "getFactory":
      return store.factories();
    case "getProcess":
      return store.processes();
    case "getMaterial":
      return store.materials();
    case "getStandard":
      return store.standards();
    case "listStandards":
    case "batchGetStandards":
      return items(store.standards());
    case "getCriticality":
      return store.criticalities();
    case "batchGetCriticalities":
      return items(store.criticalities());
    case "batchGetCategories":
      return items(store.categories());
    case "createPart":
      return [{ id: parts[0]?.id, partUrl: "https://parts.example/p/1" }];
    case "importPartFile":
      return [{ fileId: "file_1" }];
  }
}

/** Every key in order, with `undefined` values shown (JSON text would drop them). */
const keysOf = (value: unknown): unknown =>
  Array.isArray(value)
    ? value.map(keysOf)
    : value && typeof value === "object"
      ? Object.entries(value).map(([key, item]) => [key, keysOf(item)])
      : value === undefined
        ? "(undefined)"
        : value;

function expectAsZod(schema: z.ZodType, value: unknown): void {
  const parsed = schema.safeParse(value);
  const read = readRecord(schema, value);
  if (!parsed.success) {
    expect(read).toBe(NOT_READ);
    return;
  }
  expect(read).not.toBe(NOT_READ);
  expect(read).toStrictEqual(parsed.data);
  expect(keysOf(read)).toEqual(keysOf(parsed.data));
}

/** A JSON value with one place in it changed: a value replaced, a key removed or added. */
function mutated(record: unknown): fc.Arbitrary<unknown> {
  const paths: (string | number)[][] = [];
  const walk = (value: unknown, path: (string | number)[]): void => {
    paths.push(path);
    if (Array.isArray(value)) {
      for (const [i, item] of value.slice(0, 3).entries()) walk(item, [...path, i]);
    } else if (value && typeof value === "object") {
      for (const [key, item] of Object.entries(value)) walk(item, [...path, key]);
    }
  };
  walk(record, []);
  const change = fc.oneof(
    fc.record({ kind: fc.constant("set" as const), value: fc.jsonValue() }),
    fc.record({ kind: fc.constant("remove" as const) }),
    fc.record({
      kind: fc.constant("add" as const),
      key: fc.string({ maxLength: 12 }),
      value: fc.jsonValue(),
    }),
  );
  return fc.tuple(fc.constantFrom(...paths), change).map(([path, how]) => {
    const copy = JSON.parse(JSON.stringify(record));
    if (path.length === 0) return how.kind === "set" ? how.value : copy;
    const parent = path.slice(0, -1).reduce((at, key) => at[key], copy);
    const last = path.at(-1) as string | number;
    if (how.kind === "set") parent[last] = how.value;
    else if (how.kind === "remove")
      Array.isArray(parent) ? parent.splice(Number(last), 1) : delete parent[last];
    else if (parent[last] && typeof parent[last] === "object" && !Array.isArray(parent[last])) {
      parent[last][how.key] = how.value;
    }
    return copy;
  });
}

describe("the compiled readers of the API's records", () => {
  it("read every record of the sample data as zod does", () => {
    for (const [name, endpoint] of Object.entries(endpoints)) {
      const samples = samplesOf(name as keyof typeof endpoints);
      expect(samples.length, name).toBeGreaterThan(0);
      for (const sample of samples) expectAsZod(endpoint.response, sample);
    }
  });

  it("never take what zod refuses, and give what zod gives, on records changed at random", () => {
    for (const [name, endpoint] of Object.entries(endpoints)) {
      const [sample] = samplesOf(name as keyof typeof endpoints);
      fc.assert(
        fc.property(mutated(sample), (value) => expectAsZod(endpoint.response, value)),
        { numRuns: 200, seed: 0x7ead },
      );
    }
  });

  it("refuse what JSON cannot carry but a caller might pass: NaN, Infinity, undefined for a required key", () => {
    const [part] = api.store.sampleParts();
    for (const value of [
      { ...part, dimensions: { length: Number.NaN } },
      { ...part, dimensions: { length: Number.POSITIVE_INFINITY } },
      { ...part, title: undefined },
      { ...part, parentId: undefined },
    ]) {
      expectAsZod(endpoints.getPart.response, value);
    }
  });

  it("drop a __proto__ key as zod does, and never change a record's prototype", () => {
    const [part] = api.store.sampleParts();
    const hostile = JSON.parse(`{"__proto__": {"polluted": true}, ${JSON.stringify(part).slice(1)}`);
    const read = readRecord(endpoints.getPart.response, hostile) as Record<string, unknown>;
    expect(Object.getPrototypeOf(read)).toBe(Object.prototype);
    expect(Object.hasOwn(read, "__proto__")).toBe(false);
    expect(read.polluted).toBeUndefined();
    expectAsZod(endpoints.getPart.response, hostile);
  });

  it("follow zod where a type carries its own check, an enum maps names, a default sits in an optional, a key is a symbol, or a schema holds itself", () => {
    enum Numeric {
      One = 1,
      Two = 2,
    }
    const symbolKey = Symbol("key");
    const tree = z.object({
      name: z.string(),
      get children() {
        return z.array(tree).optional();
      },
    });
    const cases: [z.ZodType, unknown[]][] = [
      [z.object({ count: z.int() }), [{ count: 2 }, { count: 1.5 }, { count: 2 ** 60 }]],
      [z.object({ level: z.enum(Numeric) }), [{ level: 1 }, { level: "One" }, { level: 3 }]],
      [z.object({ unit: z.string().default("mm").optional() }), [{}, { unit: "in" }, { unit: 1 }]],
      [
        z.object({ [symbolKey]: z.string(), name: z.string() }),
        [{ name: "a" }, { name: "a", [symbolKey]: "b" }],
      ],
      [
        tree,
        [
          { name: "a", children: [{ name: "b", children: [] }] },
          { name: "a", children: [{ name: 1 }] },
        ],
      ],
    ];
    for (const [schema, values] of cases) for (const value of values) expectAsZod(schema, value);
  });

  it("leave to zod what they do not know, and agree with it there too", () => {
    const schema = z.object({
      code: z.string().min(2),
      tags: z.array(z.string()).max(2),
      note: z.string().nullable().optional(),
      rest: z.record(z.string(), z.number()),
      seen: z.unknown(),
    });
    for (const value of [
      { code: "ab", tags: ["x"], rest: { a: 1 }, seen: 1 },
      { code: "a", tags: ["x"], rest: {}, seen: 1 },
      { code: "ab", tags: ["x", "y", "z"], rest: {}, seen: 1 },
      { code: "ab", tags: [], note: null, rest: { a: "1" }, seen: 1 },
      { code: "ab", tags: [], rest: {}, extra: 1, seen: null },
      { code: "ab", tags: [], rest: {} },
    ]) {
      expectAsZod(schema, value);
    }
  });
});
