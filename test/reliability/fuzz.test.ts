// Property-based fuzzing of every tool's arguments through the SDK Client over stdio: wrong types,
// missing and extra fields, huge strings, control characters, lone surrogates and other Unicode,
// path and query tricks in ids, odd numbers (NaN and ±Infinity travel as null: JSON cannot carry
// them, so that is what a client sends). Whatever the arguments:
// - the call answers with a tool result, never a JSON-RPC error or a dead server;
// - arguments the tool's schema refuses give isError naming the field, and nothing goes upstream;
// - arguments it accepts give a success (whose structuredContent the SDK Client checks against
//   the outputSchema) or an API failure, never "Internal error"; every request the API receives
//   is for one of the tool's own endpoints (an id can never add a path segment or a query);
// - a SAS signature is never echoed.
import type { CallToolResult, Tool } from "@modelcontextprotocol/client";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type EndpointName, endpoints } from "../../src/api/endpoints";
import { tools as definitions } from "../../tools";
import { textOf } from "../support/mcp-server";
import { startWatchedServer, type WatchedServer } from "./support";

const RUNS = 100;
const SEED = 0x5eed;

/**
 * What a did-you-mean may read after a failed lookup: a bounded part scan, the standards list,
 * and the records of the codes found on those parts.
 */
const SUGGESTION: EndpointName[] = [
  "listParts",
  "listStandards",
  "getProcess",
  "getMaterial",
  "batchGetStandards",
  "batchGetCriticalities",
  "batchGetCategories",
];

/** The endpoints each tool may call (describe_part fans out to the reference lookups). */
const ENDPOINTS_OF: Record<string, EndpointName[]> = {
  create_part: ["createPart", ...SUGGESTION],
  get_part: ["getPart", ...SUGGESTION],
  list_parts: ["listParts"],
  import_part_file: ["importPartFile"],
  get_rfq: ["getRfq"],
  get_factory: ["getFactory"],
  get_process: ["getProcess", ...SUGGESTION],
  get_material: ["getMaterial", ...SUGGESTION],
  list_standards: ["listStandards"],
  get_standard: ["getStandard", ...SUGGESTION],
  batch_get_standards: ["batchGetStandards"],
  get_criticality: ["getCriticality", ...SUGGESTION],
  batch_get_criticalities: ["batchGetCriticalities"],
  batch_get_categories: ["batchGetCategories"],
  describe_part: ["getPart", ...SUGGESTION],
  search_parts: ["getStandard", "getCriticality", ...SUGGESTION],
  search_reference: SUGGESTION,
  preview_part: ["getStandard", "getCriticality", ...SUGGESTION],
  resolve_parts: ["getPart", "getStandard", "getCriticality", ...SUGGESTION],
  compare_parts: ["getPart", ...SUGGESTION],
};

let server: WatchedServer;
let advertised: Tool[];
/** Ids and codes that exist, so that some calls succeed. */
let real: string[];

beforeAll(async () => {
  // Arguments, not sizes, are fuzzed here: no fuzzed message should meet the size limit (which
  // has tests of its own in stdio-hostile.test.ts).
  server = await startWatchedServer({
    env: { PARTS_MCP_LOG_LEVEL: "info", PARTS_MCP_MAX_MESSAGE_BYTES: String(32 * 1024 * 1024) },
  });
  advertised = (await server.client.listTools()).tools;
  const { store } = server.api;
  const org = server.api.accounts[0]?.orgId ?? "";
  real = [
    ...store
      .sampleParts()
      .filter((p) => store.isVisible(p, org))
      .slice(0, 5)
      .map((p) => p.id),
    ...store
      .processes()
      .slice(0, 2)
      .map((p) => p.code),
    ...store
      .materials()
      .slice(0, 2)
      .map((m) => m.code),
    ...store
      .standards()
      .slice(0, 3)
      .map((s) => s.code),
    ...store
      .criticalities()
      .slice(0, 2)
      .map((c) => c.id),
    ...store
      .categories()
      .slice(0, 2)
      .map((c) => c.id),
    ...store
      .rfqs()
      .slice(0, 2)
      .map((r) => r.id),
    ...store
      .factories()
      .slice(0, 2)
      .map((f) => f.id),
  ];
});

afterAll(async () => {
  await server?.assertHealthy();
  await server?.close();
});

// ---- arbitraries -------------------------------------------------------------------------------

const TRICKS = [
  "../",
  "..",
  ".",
  "%2F",
  "%2e%2e",
  "a/b",
  "../../v1/rfqs/x",
  "?x=1",
  "id?view=IP_OWNER",
  "#",
  "a#b",
  "/",
  "//",
  "\\..\\",
  "%",
  "%zz",
  "%00",
  "\u0000",
  "\r\nX-Injected: 1",
  " ",
  "\ud800",
  "\udfff",
  "a\ud83d",
  "😀",
  "e\u0301",
  "ｆｕｌｌ",
  "\u202e",
  "__proto__",
  "constructor",
  "null",
  "",
];

const SIG = "sig=FuzzSig";

const char = fc.oneof(
  { weight: 4, arbitrary: fc.string({ unit: "binary", maxLength: 1 }) },
  { weight: 1, arbitrary: fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c)) },
  { weight: 1, arbitrary: fc.integer({ min: 0, max: 0x1f }).map((c) => String.fromCharCode(c)) },
);

const weirdString = (knownGood: () => string[]) =>
  fc.oneof(
    { weight: 3, arbitrary: fc.string({ unit: char, maxLength: 40 }) },
    { weight: 3, arbitrary: fc.constantFrom(...TRICKS) },
    {
      weight: 2,
      arbitrary: fc
        .tuple(fc.constantFrom(...TRICKS), fc.string({ maxLength: 8 }), fc.constantFrom(...TRICKS))
        .map((parts) => parts.join("")),
    },
    {
      weight: 1,
      // Huge: over every declared maximum, or just under one.
      arbitrary: fc
        .tuple(
          fc.constantFrom(199, 200, 201, 256, 4097, 70_000, 300_000),
          fc.string({ minLength: 1, maxLength: 3 }),
        )
        .map(([length, unit]) => unit.repeat(Math.ceil(length / unit.length)).slice(0, length)),
    },
    {
      weight: 3,
      arbitrary: fc.constant(null).map(() => fc.sample(fc.constantFrom(...knownGood()), 1)[0] ?? "x"),
    },
  );

const weirdNumber = fc.oneof(
  fc.integer(),
  { weight: 3, arbitrary: fc.integer({ min: -3, max: 60 }) },
  fc.double(), // NaN and ±Infinity are sent as null
  fc.constantFrom(-1, 0, -0, 0.5, 1e308, Number.MAX_SAFE_INTEGER + 2, 2 ** 31, -(2 ** 53)),
);

/** Any JSON value a client can send (the wrong type for most fields). */
const anyJson = fc.jsonValue({ maxDepth: 3 });

interface JsonSchema {
  type?: string | string[];
  enum?: unknown[];
  items?: JsonSchema;
  properties?: Record<string, JsonSchema>;
}

/** A value for a field of this JSON schema: usually of the right kind (but odd), sometimes not. */
function valueFor(schema: JsonSchema, strings: fc.Arbitrary<string>): fc.Arbitrary<unknown> {
  return fc.oneof({ weight: 5, arbitrary: rightKind(schema, strings) }, { weight: 1, arbitrary: anyJson });
}

/** A value of the field's own JSON type (odd strings and numbers, but the right type). */
function rightKind(schema: JsonSchema, strings: fc.Arbitrary<string>): fc.Arbitrary<unknown> {
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  let right: fc.Arbitrary<unknown>;
  if (schema.enum) right = fc.oneof(fc.constantFrom(...schema.enum), strings);
  else if (type === "string") right = strings;
  else if (type === "integer" || type === "number") right = weirdNumber;
  else if (type === "boolean") right = fc.boolean();
  else if (type === "array")
    right = fc.oneof(
      fc.array(valueFor(schema.items ?? {}, strings), { maxLength: 6 }),
      fc.array(strings, { minLength: 195, maxLength: 205 }),
    );
  else if (type === "object") {
    const props = schema.properties;
    right = props
      ? fc.record(Object.fromEntries(Object.entries(props).map(([k, s]) => [k, valueFor(s, strings)])), {
          requiredKeys: [],
        })
      : fc.dictionary(strings, fc.oneof(strings, anyJson), { maxKeys: 4 });
  } else right = anyJson;
  return right;
}

function argumentsFor(tool: Tool): fc.Arbitrary<Record<string, unknown>> {
  return fc.oneof(chaoticArguments(tool), plausibleArguments(tool));
}

/** The required fields and at most two optional ones, each of its own type: often accepted. */
function plausibleArguments(tool: Tool): fc.Arbitrary<Record<string, unknown>> {
  const strings = weirdString(() => real);
  const properties = (tool.inputSchema.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set(tool.inputSchema.required ?? []);
  const optional = Object.keys(properties).filter((key) => !required.has(key));
  return fc
    .tuple(
      fc.record(
        Object.fromEntries([...required].map((key) => [key, rightKind(properties[key] ?? {}, strings)])),
      ),
      fc
        .subarray(optional, { maxLength: Math.min(2, optional.length) })
        .chain((keys) =>
          fc.record(Object.fromEntries(keys.map((key) => [key, rightKind(properties[key] ?? {}, strings)]))),
        ),
    )
    .map(([a, b]) => ({ ...a, ...b }));
}

/** Any subset of the declared fields, some of the wrong type, plus unknown fields. */
function chaoticArguments(tool: Tool): fc.Arbitrary<Record<string, unknown>> {
  const strings = weirdString(() => real);
  const properties = (tool.inputSchema.properties ?? {}) as Record<string, JsonSchema>;
  const declared = fc.record(
    Object.fromEntries(
      Object.entries(properties).map(([key, schema]) => {
        if (key === "sasUrl") {
          // Mostly URLs with a signature, so that any echo of it shows.
          const url = fc
            .tuple(
              fc.constantFrom("https://files.example.com/a.step", "http://127.0.0.1:9/f", "ftp://x/y", ""),
              strings,
            )
            .map(([base, tail]) => `${base}?sv=1&${SIG}${tail.slice(0, 50)}`);
          return [
            key,
            fc.oneof({ weight: 4, arbitrary: url }, { weight: 1, arbitrary: valueFor(schema, strings) }),
          ];
        }
        return [key, valueFor(schema, strings)];
      }),
    ),
    { requiredKeys: [] },
  );
  const extra = fc.dictionary(
    fc.oneof(strings, fc.constantFrom("__proto__", "constructor", "id ")),
    anyJson,
    {
      maxKeys: 2,
    },
  );
  return fc
    .tuple(declared, fc.option(extra, { freq: 4 }))
    .map(([args, more]) => (more ? { ...more, ...args } : args) as Record<string, unknown>);
}

// ---- the property ------------------------------------------------------------------------------

const ENDPOINT_NAMES = Object.keys(endpoints) as EndpointName[];

function requestCounts(): Map<EndpointName | "unknown", number> {
  const counts = new Map<EndpointName | "unknown", number>();
  let known = 0;
  for (const name of ENDPOINT_NAMES) {
    const n = server.api.stats.requests(name);
    counts.set(name, n);
    known += n;
  }
  counts.set("unknown", server.api.stats.requests() - known);
  return counts;
}

function requestsSince(before: Map<EndpointName | "unknown", number>): Map<string, number> {
  const delta = new Map<string, number>();
  for (const [name, n] of requestCounts()) {
    const d = n - (before.get(name) ?? 0);
    if (d > 0) delta.set(name, d);
  }
  return delta;
}

/** Per tool: how the fuzzed calls ended, to show that both sides of the property were exercised. */
const outcomes = new Map<string, { refused: number; reachedApi: number; succeeded: number }>();

async function checkCall(tool: Tool, args: Record<string, unknown>): Promise<void> {
  const definition = definitions.find((d) => d.name === tool.name);
  if (!definition) throw new Error(`no definition for ${tool.name}`);
  // What the server receives is what JSON carries: NaN → null, undefined dropped, -0 → 0; a
  // top-level "__proto__" key stays an own key, which the stdio wire refuses like any unknown key.
  const received = JSON.parse(JSON.stringify(args)) as Record<string, unknown>;
  const oracle = definition.input.strict().safeParse(received);

  const before = requestCounts();
  let result: CallToolResult;
  try {
    result = (await server.client.callTool({ name: tool.name, arguments: args })) as CallToolResult;
  } catch (error) {
    throw new Error(`${tool.name} answered with a protocol error instead of a result: ${String(error)}`);
  }
  const text = textOf(result);
  const sent = requestsSince(before);
  const tally = outcomes.get(tool.name) ?? { refused: 0, reachedApi: 0, succeeded: 0 };
  outcomes.set(tool.name, tally);
  if (text.startsWith("Invalid arguments")) tally.refused++;
  if (sent.size > 0) tally.reachedApi++;
  if (!result.isError) tally.succeeded++;

  expect(text).not.toMatch(/Internal error|bug in the server/);
  expect(text).not.toContain("FuzzSig");
  if (!oracle.success) {
    expect(result.isError, `accepted arguments its schema refuses: ${text.slice(0, 200)}`).toBe(true);
    expect(text.startsWith(`Invalid arguments for ${tool.name}: `), text.slice(0, 300)).toBe(true);
    const first = oracle.error.issues[0];
    const field =
      first && first.path.length > 0
        ? first.path
            .map((key, i) => (typeof key === "number" ? `[${key}]` : `${i > 0 ? "." : ""}${String(key)}`))
            .join("")
        : "arguments";
    // A "__proto__" key is refused by the stdio wire, naming that key, before the schema runs.
    if (Object.hasOwn(received, "__proto__")) expect(text).toContain('Unrecognized key: "__proto__"');
    else expect(text).toContain(`${field}:`);
    expect(Object.fromEntries(sent), "requests sent for invalid arguments").toEqual({});
  } else {
    expect(text, "refused arguments its schema accepts").not.toMatch(/^Invalid arguments/);
    const allowed = ENDPOINTS_OF[tool.name] ?? [];
    for (const [endpoint] of sent) {
      expect(allowed, `${tool.name} reached ${endpoint}`).toContain(endpoint);
    }
  }
}

describe("fuzzed arguments always get a tool result", () => {
  it("covers every advertised tool", () => {
    expect(advertised.map((t) => t.name).sort()).toEqual(Object.keys(ENDPOINTS_OF).sort());
  });

  for (const name of Object.keys(ENDPOINTS_OF)) {
    it(name, async () => {
      const tool = advertised.find((t) => t.name === name) as Tool;
      await fc.assert(
        fc.asyncProperty(argumentsFor(tool), (args) => checkCall(tool, args)),
        { numRuns: RUNS, seed: SEED, endOnFailure: true },
      );
      // Both sides of the property ran: some arguments refused, some sent to the API.
      const tally = outcomes.get(name);
      expect(tally?.refused, `${name}: no fuzzed call was refused`).toBeGreaterThan(0);
      expect(tally?.reachedApi, `${name}: no fuzzed call reached the API`).toBeGreaterThan(0);
      // The server still answers a normal call.
      await server.assertHealthy();
    }, 120_000); // generous: a busy machine runs the property's calls slowly
  }

  it("an id with path and query tricks stays one segment of its own endpoint", async () => {
    for (const trick of TRICKS.filter(Boolean)) {
      for (const [tool, field] of [
        ["get_part", "id"],
        ["get_standard", "code"],
        ["get_rfq", "id"],
      ] as const) {
        const before = requestCounts();
        const result = (await server.client.callTool({
          name: tool,
          arguments: { [field]: `${trick}` },
        })) as CallToolResult;
        const text = textOf(result);
        expect(text).not.toMatch(/Internal error/);
        const sent = Object.fromEntries(requestsSince(before));
        // One request to the tool's own endpoint, and otherwise only what a did-you-mean reads: no
        // other route, no unknown path.
        const own = ENDPOINTS_OF[tool]?.[0] as string;
        if (Object.keys(sent).length > 0) expect(sent[own]).toBe(1);
        for (const endpoint of Object.keys(sent)) expect([own, ...SUGGESTION]).toContain(endpoint);
        if (result.isError && !text.startsWith("Invalid arguments"))
          expect(text).toMatch(/Not found|rejected/);
      }
    }
  });
});

// Found by this fuzzing: an unpaired surrogate (valid in JSON) in an id, code or filter used to
// pass the tools' schemas and then make encodeURIComponent throw.
describe("strings that cannot go into a URL are refused as arguments", () => {
  it("an unpaired surrogate in an id, a code or a filter names the field", async () => {
    for (const [tool, field] of [
      ["get_part", "id"],
      ["get_standard", "code"],
      ["list_standards", "governingBody"],
    ] as const) {
      const result = (await server.client.callTool({
        name: tool,
        arguments: { [field]: "bracket\ud800" },
      })) as CallToolResult;
      expect(textOf(result)).toMatch(new RegExp(`^Invalid arguments for ${tool}: ${field}:`));
    }
  });
});
