// Every tool through the real stack, in both protocol eras: SDK Client → server (from source, in
// this process) → HTTP → embedded API on 127.0.0.1. The SDK client also validates each structuredContent against the
// tool's outputSchema, so a success here is a success that matches the advertised schema.
import type { CallToolResult, Tool } from "@modelcontextprotocol/client";
import { Tiktoken } from "js-tiktoken/lite";
import o200k from "js-tiktoken/ranks/o200k_base";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Part } from "../../src/api/schemas";
import { WRITE_TOOLS } from "../../src/auth/resource";
import { tools } from "../../tools";
import { connectInProcess, ERAS, type InProcessServer } from "../support/in-process";
import { textOf } from "../support/mcp-server";

let server: InProcessServer;
/** The tools of issue 38, with a tool-list budget of their own. */
const LIST_TOOLS = ["resolve_parts", "compare_parts"];
const ALWAYS_LOADED = ["search_parts", "search_reference"];
let advertised: Tool[];
let richPart: Part;

const ok = (result: CallToolResult) => {
  expect(result.isError, textOf(result)).toBeFalsy();
  const text = textOf(result);
  expect(text).not.toMatch(/\n/);
  expect(JSON.parse(text)).toEqual(result.structuredContent);
  return result.structuredContent as Record<string, unknown>;
};

const failed = (result: CallToolResult) => {
  expect(result.isError).toBe(true);
  expect(result.structuredContent).toBeUndefined();
  return textOf(result);
};

async function allParts(view?: string): Promise<Part[]> {
  const parts: Part[] = [];
  for (let page = 1; ; page++) {
    const result = ok(await server.call("list_parts", { page, pageSize: 50, ...(view && { view }) }));
    parts.push(...(result.items as Part[]));
    if (!result.hasMore) return parts;
    expect(result.nextPage).toBe(page + 1);
  }
}

describe.each(ERAS)("tools (%s era)", (era) => {
  beforeAll(async () => {
    // The cache would hide upstream behaviour (faults, request counts); it has tests of its own.
    server = await connectInProcess({ era, cacheTtlMs: 0 });
    advertised = (await server.client.listTools()).tools;
    const parts = await allParts();
    const found = parts.find(
      (p) =>
        p.processId &&
        p.materialId &&
        p.standardIds?.length &&
        p.criticalityIds?.length &&
        p.categoryIds?.length,
    );
    if (!found) throw new Error("the sample data has no part with every kind of reference");
    richPart = found;
  });

  afterAll(() => server?.close());

  describe("the advertised tools", () => {
    it("are the decided ones", () => {
      expect(advertised.map((t) => t.name).sort()).toEqual(
        [
          "batch_get_categories",
          "batch_get_criticalities",
          "batch_get_standards",
          "compare_parts",
          "create_part",
          "describe_part",
          "get_criticality",
          "get_factory",
          "get_material",
          "get_part",
          "get_process",
          "get_rfq",
          "get_standard",
          "import_part_file",
          "list_parts",
          "list_standards",
          "preview_part",
          "resolve_parts",
          "search_parts",
          "search_reference",
        ].sort(),
      );
    });

    it("take exactly the decided input fields", () => {
      const fields = Object.fromEntries(
        advertised.map((t) => [t.name, Object.keys(t.inputSchema.properties ?? {})]),
      );
      expect(fields.get_part).toEqual(["id"]);
      expect(fields.list_parts).toEqual(["page", "pageSize", "view"]);
      expect(fields.import_part_file).toEqual(["partId", "name", "sasUrl"]);
      expect(fields.list_standards).toEqual(["governingBody", "materialType"]);
      expect(fields.batch_get_standards).toEqual(["codes"]);
      expect(fields.batch_get_criticalities).toEqual(["ids"]);
      expect(fields.batch_get_categories).toEqual(["ids"]);
      expect(fields.describe_part).toEqual(["id"]);
      for (const name of ["get_rfq", "get_factory", "get_criticality"]) expect(fields[name]).toEqual(["id"]);
      for (const name of ["get_process", "get_material", "get_standard"])
        expect(fields[name]).toEqual(["code"]);
      expect(advertised.find((t) => t.name === "create_part")?.inputSchema.required).toEqual(["title"]);
    });

    it("carry all four annotations, reads marked read-only and writes not idempotent", () => {
      for (const tool of advertised) {
        const a = tool.annotations ?? {};
        // The writes are the tools whose calls the oauth mode lets through only with parts:write.
        const write = WRITE_TOOLS.has(tool.name);
        expect(a, tool.name).toEqual({
          readOnlyHint: !write,
          destructiveHint: false,
          idempotentHint: !write,
          openWorldHint: true,
        });
      }
    });

    it("close every object of their inputs, nested ones too: an unknown key is refused, never dropped", () => {
      type Schema = {
        type?: string;
        properties?: Record<string, Schema>;
        items?: Schema;
        additionalProperties?: unknown;
      };
      const open: string[] = [];
      const walk = (schema: Schema | undefined, at: string) => {
        if (!schema) return;
        if (schema.type === "object" && schema.properties && schema.additionalProperties !== false)
          open.push(at);
        for (const [key, value] of Object.entries(schema.properties ?? {})) walk(value, `${at}.${key}`);
        walk(schema.items, `${at}[]`);
      };
      for (const tool of advertised) walk(tool.inputSchema as Schema, tool.name);
      expect(open).toEqual([]);
    });

    it("describe every input field, have object input and output schemas, and short descriptions", () => {
      for (const tool of advertised) {
        expect(tool.inputSchema.type).toBe("object");
        expect(tool.inputSchema).not.toHaveProperty("anyOf");
        expect(tool.outputSchema?.type, tool.name).toBe("object");
        expect(tool.description?.length ?? 0, tool.name).toBeLessThanOrEqual(300);
        expect(tool.title, tool.name).toBeTruthy();
        for (const [field, schema] of Object.entries(tool.inputSchema.properties ?? {})) {
          if (
            ["create_part", "preview_part"].includes(tool.name) &&
            !(schema as { description?: string }).description
          )
            continue;
          expect((schema as { description?: string }).description, `${tool.name}.${field}`).toBeTruthy();
        }
      }
    });

    it("cost at most 6,317 tokens in all, in every prompt that lists them, beside preview_part, the view links, the list and comparison tools and what only hosts read", () => {
      // 4,978 for the fifteen endpoint tools; the two search tools add about 720. The views
      // (issue 17) may add preview_part itself and their `_meta.ui` links, nothing else. Finding
      // things as people write them (code lists in filters, what the API cannot answer) was given
      // 5% over the 5,795 before it: 6,085. resolve_parts and compare_parts (issue 38) have a
      // budget of their own, below. Icons and `_meta` are for hosts, not the model. Issue 37 (counts,
      // ignored words, what search_reference can see) was given 5% over the 6,017 before it: 6,317.
      const encoder = new Tiktoken(o200k);
      const count = (list: unknown[]) => encoder.encode(JSON.stringify({ tools: list })).length;
      const forModel = ({ _meta, icons, ...tool }: Tool) => tool;
      const older = advertised.filter((tool) => !LIST_TOOLS.includes(tool.name));
      const preview = older.filter((tool) => tool.name === "preview_part").map(forModel);
      const withoutViews = older.filter((tool) => tool.name !== "preview_part").map(forModel);
      expect(count(withoutViews)).toBeLessThanOrEqual(6_317);
      const links = advertised.filter((tool) => tool._meta?.ui).length;
      expect(links).toBe(4 + LIST_TOOLS.length);
      const withMeta = older.map(({ icons, ...tool }) => tool);
      const olderLinks = older.filter((tool) => tool._meta?.ui).length;
      expect(count(withMeta) - count(withoutViews)).toBeLessThanOrEqual(
        count(preview) + olderLinks * 25 + ALWAYS_LOADED.length * 12,
      );
    });

    it("grow by at most 1,500 bytes for resolve_parts and compare_parts, both read-only in the parts group", () => {
      const added = advertised.filter((tool) => LIST_TOOLS.includes(tool.name));
      expect(added.map((tool) => tool.name).sort()).toEqual([...LIST_TOOLS].sort());
      const bytes = added.map(({ _meta, icons, ...tool }) => JSON.stringify(tool)).join(",").length;
      expect(bytes).toBeLessThanOrEqual(1_500);
      for (const tool of added) expect(tool.annotations?.readOnlyHint, tool.name).toBe(true);
      for (const name of LIST_TOOLS) expect(tools.find((tool) => tool.name === name)?.group).toBe("parts");
    });

    it("load up front in hosts with a tool search: search_parts and search_reference, no others", () => {
      const always = advertised.filter((tool) => tool._meta?.["anthropic/alwaysLoad"] === true);
      expect(always.map((tool) => tool.name).sort()).toEqual([...ALWAYS_LOADED].sort());
    });

    it("show the server's icon, an SVG and a 64 px PNG as data URIs, on the server and every tool", () => {
      const icons = server.client.getServerVersion()?.icons;
      expect(icons?.map(({ mimeType, sizes }) => ({ mimeType, sizes }))).toEqual([
        { mimeType: "image/svg+xml", sizes: ["any"] },
        { mimeType: "image/png", sizes: ["64x64"] },
      ]);
      const png = Buffer.from((icons?.[1]?.src ?? "").replace("data:image/png;base64,", ""), "base64");
      expect(png.subarray(1, 4).toString()).toBe("PNG");
      expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([64, 64]);
      expect(icons?.[0]?.src).toMatch(/^data:image\/svg\+xml,%3Csvg%20xmlns=/);
      for (const tool of advertised) expect(tool.icons, tool.name).toEqual(icons);
      expect(JSON.stringify(icons).length).toBeLessThan(1_000);
    });

    it("match the reviewed snapshots, one file a tool (update with `npx vitest run -u` after review)", async () => {
      // Icons are the same on every tool (checked above): each file shows what is the tool's own.
      for (const { icons, ...tool } of advertised) {
        await expect(`${JSON.stringify(tool, null, 2)}\n`).toMatchFileSnapshot(
          `__snapshots__/tools/${tool.name}.json`,
        );
      }
    });
  });

  describe("parts", () => {
    it("get_part returns the part as the API has it", async () => {
      const part = ok(await server.call("get_part", { id: richPart.id }));
      expect(part).toEqual(richPart);
      // An id copied with the spaces around it is the id.
      expect(ok(await server.call("get_part", { id: ` ${richPart.id}\n` }))).toEqual(richPart);
      expect(failed(await server.call("get_part", { id: "   " }))).toMatch(
        /Invalid arguments for get_part: id/,
      );
    });

    it("list_parts pages with nextPage until hasMore is false, and honours view", async () => {
      const first = ok(await server.call("list_parts", { pageSize: 5 }));
      expect(first).toMatchObject({ page: 1, pageSize: 5, hasMore: true, nextPage: 2 });
      expect(first.items).toHaveLength(5);
      const second = ok(await server.call("list_parts", { pageSize: 5, page: 2 }));
      expect((second.items as Part[])[0]?.id).not.toBe((first.items as Part[])[0]?.id);

      const owned = await allParts("IP_OWNER");
      const ownerIds = new Set(owned.map((p) => p.ipOwnerId));
      expect(ownerIds.size).toBe(1);
      const consumer = await allParts("CONSUMER");
      expect(consumer.every((p) => p.published)).toBe(true);
    });

    it("list_parts without arguments reports the default page and page size", async () => {
      const result = ok(await server.call("list_parts"));
      expect(result).toMatchObject({ page: 1, pageSize: 20 });
    });

    it("create_part creates a part that get_part then reads", async () => {
      const created = ok(
        await server.call("create_part", {
          title: "Bracket, hinge, left",
          processId: richPart.processId,
          materialId: richPart.materialId,
          standardIds: richPart.standardIds,
          keywords: ["bracket", "hinge"],
          materialType: "metal",
          unitSystem: "METRIC",
        }),
      );
      expect(Object.keys(created).sort()).toEqual(["id", "partUrl"]);
      const part = ok(await server.call("get_part", { id: created.id }));
      expect(part).toMatchObject({
        id: created.id,
        title: "Bracket, hinge, left",
        processId: richPart.processId,
      });
      expect(created.partUrl).toContain(encodeURIComponent(created.id as string));
    });

    it("import_part_file attaches a file and never echoes the SAS query", async () => {
      const secret = "sig=SuperSecretSignature123";
      const result = ok(
        await server.call("import_part_file", {
          partId: richPart.id,
          name: "bracket.step",
          sasUrl: `https://files.example.com/bracket.step?sv=2024-01-01&${secret}`,
        }),
      );
      expect(Object.keys(result)).toEqual(["fileId"]);
      const missing = failed(
        await server.call("import_part_file", {
          partId: "no-such-part",
          name: "x.step",
          sasUrl: `https://files.example.com/x.step?${secret}`,
        }),
      );
      expect(missing).toMatch(/not found/i);
      expect(missing).not.toContain("SuperSecretSignature123");
      expect(server.logs()).not.toContain("SuperSecretSignature123");
    });

    it("describe_part resolves every reference with at most 6 upstream requests", async () => {
      const before = server.api.stats.requests();
      const described = ok(await server.call("describe_part", { id: richPart.id }));
      expect(server.api.stats.requests() - before).toBeLessThanOrEqual(6);
      expect(described.part).toEqual(richPart);
      expect((described.process as { code: string }).code).toBe(richPart.processId);
      expect((described.material as { code: string }).code).toBe(richPart.materialId);
      expect((described.standards as { code: string }[]).map((s) => s.code)).toEqual(richPart.standardIds);
      expect((described.criticalities as { id: string }[]).map((c) => c.id)).toEqual(richPart.criticalityIds);
      expect((described.categories as { id: string }[]).map((c) => c.id)).toEqual(richPart.categoryIds);
      expect(described.unresolved).toBeUndefined();
    });

    it("describe_part still answers when one lookup fails, and says which", async () => {
      server.api.faults.add({
        endpoint: "batchGetStandards",
        action: { kind: "status", status: 400 },
        times: 1,
      });
      const described = ok(await server.call("describe_part", { id: richPart.id }));
      server.api.faults.clear();
      expect(described.standards).toEqual([]);
      expect((described.criticalities as unknown[]).length).toBe(richPart.criticalityIds?.length);
      expect(described.process).toBeDefined();
      const unresolved = described.unresolved as { kind: string; id: string; reason: string }[];
      expect(unresolved.map((u) => u.id).sort()).toEqual([...new Set(richPart.standardIds)].sort());
      expect(unresolved.every((u) => u.kind === "standard" && u.reason.includes("400"))).toBe(true);
    });
  });

  describe("reference data, RFQs and factories", () => {
    it("get_process, get_material, get_criticality return the referenced records", async () => {
      expect(ok(await server.call("get_process", { code: richPart.processId }))).toMatchObject({
        code: richPart.processId,
      });
      expect(ok(await server.call("get_material", { code: richPart.materialId }))).toMatchObject({
        code: richPart.materialId,
      });
      const criticalityId = richPart.criticalityIds?.[0];
      expect(ok(await server.call("get_criticality", { id: criticalityId }))).toMatchObject({
        id: criticalityId,
      });
    });

    it("list_standards filters, and get_standard reads a code with a space in it", async () => {
      const all = ok(await server.call("list_standards")).items as { code: string; governingBody: string }[];
      expect(all.length).toBeGreaterThanOrEqual(30);
      const astm = ok(await server.call("list_standards", { governingBody: "ASTM" })).items as {
        governingBody: string;
      }[];
      expect(astm.length).toBeGreaterThan(0);
      expect(astm.length).toBeLessThan(all.length);
      expect(astm.every((s) => s.governingBody === "ASTM")).toBe(true);
      const spaced = all.find((s) => s.code.includes(" "));
      expect(ok(await server.call("get_standard", { code: spaced?.code }))).toEqual(spaced);
    });

    it("batch tools keep the caller's order, de-duplicate, and report missing entries", async () => {
      const codes = [...(richPart.standardIds ?? [])].reverse();
      const result = ok(await server.call("batch_get_standards", { codes: [...codes, "NOPE 1", codes[0]] }));
      expect((result.items as { code: string }[]).map((s) => s.code)).toEqual(codes);
      expect(result.missing).toEqual(["NOPE 1"]);
      const crit = ok(
        await server.call("batch_get_criticalities", { ids: ["nope", ...(richPart.criticalityIds ?? [])] }),
      );
      expect(crit.missing).toEqual(["nope"]);
      const cats = ok(await server.call("batch_get_categories", { ids: richPart.categoryIds }));
      expect((cats.items as { id: string }[]).map((c) => c.id)).toEqual(richPart.categoryIds);
      expect(cats.missing).toEqual([]);
    });

    it("get_rfq and get_factory read records, and unknown ids are clear 404s", async () => {
      const rfqId = server.api.store.rfqs()[0]?.id;
      const rfq = ok(await server.call("get_rfq", { id: rfqId }));
      expect(rfq).toMatchObject({ id: rfqId });
      const factoryId = server.api.store.factories()[0]?.id;
      expect(ok(await server.call("get_factory", { id: factoryId }))).toMatchObject({ id: factoryId });
      expect(failed(await server.call("get_rfq", { id: "rfq-missing" }))).toMatch(
        /Not found.*GET \/v1\/rfqs\/rfq-missing → 404/,
      );
      // Neither can be listed, so the ids this token was shown are the ones to offer.
      expect(failed(await server.call("get_rfq", { id: String(rfqId).toUpperCase() }))).toContain(
        `did you mean ${rfqId}?`,
      );
      expect(failed(await server.call("get_factory", { id: `${factoryId}x` }))).toContain(
        `did you mean ${factoryId}?`,
      );
    });
  });

  describe("failures are tool results that say what to do", () => {
    it("bad arguments name the field and send nothing upstream", async () => {
      const before = server.api.stats.requests();
      expect(failed(await server.call("list_parts", { pageSize: 51 }))).toMatch(/pageSize/);
      expect(failed(await server.call("get_part", {}))).toMatch(/Invalid arguments for get_part: id/);
      expect(failed(await server.call("get_part", { id: "" }))).toMatch(/id:/);
      expect(failed(await server.call("get_part", { id: "p", extra: 1 }))).toMatch(/extra/);
      expect(failed(await server.call("list_parts", { view: "EVERYONE" }))).toMatch(/view/);
      expect(failed(await server.call("create_part", { title: "" }))).toMatch(/title/);
      expect(failed(await server.call("create_part", { title: " \t " }))).toMatch(/title/);
      expect(
        failed(await server.call("import_part_file", { partId: "p", name: "a", sasUrl: "ftp://x/y" })),
      ).toMatch(/sasUrl/);
      expect(server.api.stats.requests()).toBe(before);
    });

    it("an unknown argument names the one meant, or else every argument the tool takes there", async () => {
      expect(failed(await server.call("search_parts", { material_id: "ti64" }))).toContain(
        'arguments: Unrecognized key: "material_id" (did you mean "materialId"?).',
      );
      expect(failed(await server.call("list_parts", { page_size: 5, pagesize: 5 }))).toContain(
        'Unrecognized keys: "page_size", "pagesize" (did you mean "pageSize"?).',
      );
      expect(
        failed(await server.call("search_reference", { kind: "material", query: "Ti-6Al-4V" })),
      ).toContain('Unrecognized key: "query" (accepted: kind, text).');
      // Inside an object argument, the keys of that object.
      expect(
        failed(await server.call("create_part", { title: "Bracket", boundingBox: { x: 1, depth: 2 } })),
      ).toContain('boundingBox: Unrecognized key: "depth" (accepted: x, y, z).');
      const choice = { dropdownId: "dd-1", selectedOptionIds: ["opt-1"], label: "Finish" };
      expect(
        failed(await server.call("create_part", { title: "Bracket", customFields: [choice] })),
      ).toContain('customFields[0]: Unrecognized key: "label" (accepted: dropdownId, selectedOptionIds).');
      // One unknown key with no near argument lists them all, even beside a slip.
      expect(failed(await server.call("get_part", { id: "p", Id: "p", extra: 1 }))).toContain(
        'Unrecognized keys: "Id", "extra" (accepted: id).',
      );
    });

    it("an unknown part is a 404 that says where part ids come from", async () => {
      const text = failed(await server.call("get_part", { id: "no/such part" }));
      expect(text).toMatch(/Not found/);
      expect(text).toMatch(/search_parts/);
      expect(text).toContain("GET /v1/parts/no%2Fsuch%20part → 404");
    });

    it("a process's trade name leads to the process it names", async () => {
      expect(failed(await server.call("get_process", { code: "SLM" }))).toContain(
        '"SLM": did you mean lpbf (Laser powder bed fusion (L-PBF))?',
      );
      const found = ok(await server.call("search_reference", { kind: "process", text: "DMLS" }));
      expect((found.items as { code: string }[]).map((item) => item.code)).toEqual(["lpbf"]);
    });

    it("a call that fans out to many upstream requests logs no listener-leak warning", async () => {
      const warnings: string[] = [];
      const onWarning = (warning: Error) => warnings.push(`${warning.name}: ${warning.message}`);
      process.on("warning", onWarning);
      try {
        const draft = {
          title: "Bracket",
          processId: "SLM",
          materialId: "Ti-6Al-4V",
          standardIds: ["F3001", "ASTM F2924", "X-1", "X-2"],
          criticalityIds: ["crit-x", "crit-y"],
          categoryIds: ["cat-x", "cat-y", "cat-z"],
        };
        const { unknown } = ok(await server.call("preview_part", draft)) as { unknown: { id: string }[] };
        expect(unknown.map(({ id }) => id)).toEqual(expect.arrayContaining(["SLM", "X-1", "cat-z"]));
        await new Promise((resolve) => setImmediate(resolve));
      } finally {
        process.off("warning", onWarning);
      }
      expect(warnings).toEqual([]);
    });

    it("an unknown code says which known records are closest, and nothing is created", async () => {
      expect(failed(await server.call("get_material", { code: "Ti-6Al-4V" }))).toMatch(
        /"Ti-6Al-4V": did you mean ti64 \(Ti-6Al-4V/,
      );
      expect(failed(await server.call("get_process", { code: "SLX" }))).toMatch(
        /"SLX": did you mean .*sls \(Selective/,
      );
      const parts = server.api.store.partCount;
      const refused = failed(
        await server.call("create_part", { title: "Housing", processId: "sls", materialId: "PA-12" }),
      );
      expect(refused).toMatch(/rejected the request: materialId/);
      expect(refused).toMatch(
        /"PA-12": did you mean pa12 .* preview_part checks every code of a call at once\./,
      );
      expect(server.api.store.partCount).toBe(parts);
      // Without preview_part served, the message does not send the model to it.
      const alone = await connectInProcess({
        era,
        sharedApi: server.api,
        tools: tools.filter((tool) => tool.name === "create_part"),
      });
      try {
        const text = failed(await alone.call("create_part", { title: "Housing", materialId: "PA-12" }));
        expect(text).toMatch(/"PA-12": did you mean pa12 /);
        expect(text).not.toContain("preview_part");
      } finally {
        await alone.close();
      }
    });

    it("search_parts' text leads with its counts, before any part", async () => {
      const result = await server.call("search_parts", { text: "bracket", limit: 2 });
      const { summary, total } = result.structuredContent as { summary: string; total: number };
      expect(summary).toBe(`2 of ${total} matches here; more with the cursor`);
      expect(textOf(result).startsWith(`{"summary":${JSON.stringify(summary)},`)).toBe(true);
    });

    it("the instructions send the model to the search tools, and say RFQs and factories are read only by id", () => {
      const text = server.client.getInstructions() ?? "";
      expect(text).toMatch(/search_parts/);
      expect(text).toMatch(/search_reference/);
      expect(text).toMatch(/RFQs and factories can be read only by id/);
    });

    it("writes bidi and other invisible controls from upstream text as escapes in the text and the structured content, not raw", async () => {
      const title = "Bracket \u202Egpj.exe\u202C \u0007\u001b[31m";
      const created = ok(await server.call("create_part", { title }));
      const result = await server.call("get_part", { id: created.id as string });
      const text = textOf(result);
      for (const control of ["\u202E", "\u202C", "\u0007", "\u001b"]) expect(text).not.toContain(control);
      expect(text).toContain("\\u202E");
      expect(JSON.parse(text).title).toBe(title);
      // The view's data passes the same gate: the marks are visible, nothing reorders.
      expect((result.structuredContent as { title: string }).title).toBe(
        "Bracket \\u202Egpj.exe\\u202C \\u0007\\u001B[31m",
      );
    });

    it("a 429 says when to retry", async () => {
      server.api.faults.add({
        endpoint: "getPart",
        action: { kind: "status", status: 429, retryAfter: "120" },
      });
      const text = failed(await server.call("get_part", { id: richPart.id }));
      server.api.faults.clear();
      expect(text).toMatch(/rate limiting.*120 s/);
    });

    it("a 5xx on create_part is not retried and warns that the part may exist", async () => {
      const before = server.api.stats.requests("createPart");
      server.api.faults.add({ endpoint: "createPart", action: { kind: "status", status: 503 }, times: 1 });
      const text = failed(await server.call("create_part", { title: "Spacer" }));
      expect(server.api.stats.requests("createPart") - before).toBe(1);
      expect(text).toMatch(/503/);
      expect(text).toMatch(/may or may not have taken effect/);
    });

    it("a 5xx on a read is retried until it succeeds", async () => {
      const before = server.api.stats.requests("getPart");
      server.api.faults.add({ endpoint: "getPart", action: { kind: "status", status: 503 }, times: 2 });
      ok(await server.call("get_part", { id: richPart.id }));
      expect(server.api.stats.requests("getPart") - before).toBe(3);
    });

    it("an unknown tool is a protocol error listing the tools", async () => {
      await expect(server.call("delete_part", { id: "x" })).rejects.toThrow(
        /Unknown tool delete_part.*get_part/,
      );
    });

    it("an unknown tool's name is repeated only in part, however long", async () => {
      const error = await server.call(`x${"y".repeat(200_000)}`, {}).catch((e: Error) => e);
      expect(error).toBeInstanceOf(Error);
      expect((error as Error).message).toMatch(/Unknown tool xy+…\. Available:/);
      expect((error as Error).message.length).toBeLessThan(1_000);
    });
  });

  describe("a server whose token the API refuses", () => {
    it("says the token was refused and which variable sets it", async () => {
      const refused = await connectInProcess({ era, sharedApi: server.api, token: "pat_wrong_token" });
      try {
        const text = failed(await refused.call("get_part", { id: richPart.id }));
        expect(text).toMatch(/refused the token.*PARTS_API_TOKEN/);
        expect(text).not.toContain("pat_wrong_token");
      } finally {
        await refused.close();
      }
    });
  });
});
