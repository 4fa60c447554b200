// Resources, completions and prompts through the real stack, and the reference cache counted at
// the embedded API.
import type { CallToolResult } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Part, Standard } from "../../src/api/schemas";
import { selectTools } from "../../src/mcp/selection";
import { tools } from "../../tools";
import { connectInProcess, ERAS, type InProcessServer } from "../support/in-process";

let server: InProcessServer;
let part: Part;
let standards: Standard[];

const read = async (uri: string) => {
  const result = await server.client.readResource({ uri });
  expect(result.contents).toHaveLength(1);
  expect(result.contents[0]).toMatchObject({ uri, mimeType: "application/json" });
  return JSON.parse((result.contents[0] as { text: string }).text);
};

/** The JSON of a prompt message that embeds a resource. */
const embeddedData = (message: { content: unknown } | undefined) => {
  const content = message?.content as { type: string; resource: { text: string } } | undefined;
  expect(content?.type).toBe("resource");
  return JSON.parse(content?.resource.text ?? "null");
};

const completeTemplate = (uri: string, name: string, value: string) =>
  server.client.complete({ ref: { type: "ref/resource", uri }, argument: { name, value } });

describe.each(ERAS)("resources, completions and prompts (%s era)", (era) => {
  beforeAll(async () => {
    server = await connectInProcess({ era });
    const listed = (await server.call("list_parts", { pageSize: 50 })).structuredContent as { items: Part[] };
    const found = listed.items.find(
      (p) => p.processId && p.materialId && p.standardIds?.length && p.categoryIds?.length,
    );
    if (!found) throw new Error("no part with references on the first page");
    part = found;
    standards = (await read("parts://standards")).items;
  });

  afterAll(() => server?.close());

  describe("resources", () => {
    /** The error a read of `uri` is refused with. */
    const reject = (uri: string) =>
      server.client.readResource({ uri }).then(
        () => undefined,
        (error) => error,
      );

    it("offer a template for every kind of record, each with a title and MIME type", async () => {
      const { resourceTemplates } = await server.client.listResourceTemplates();
      expect(resourceTemplates.map((t) => t.uriTemplate).sort()).toEqual(
        [
          "parts://categories/{id}",
          "parts://criticalities/{id}",
          "parts://factories/{id}",
          "parts://materials/{code}",
          "parts://parts/{id}",
          "parts://processes/{code}",
          "parts://rfqs/{id}",
          "parts://standards/{code}",
        ].sort(),
      );
      for (const template of resourceTemplates) {
        expect(template.title).toBeTruthy();
        expect(template.mimeType).toBe("application/json");
      }
      const { resources } = await server.client.listResources();
      expect(resources.map((r) => r.uri)).toContain("parts://standards");
      expect(resources.filter((r) => r.uri.startsWith("parts://standards/")).length).toBe(standards.length);
    });

    it("read each kind of record, the same as the tools return it", async () => {
      expect(standards.length).toBeGreaterThanOrEqual(30);
      const tool = (r: CallToolResult) => r.structuredContent;
      expect(await read(`parts://parts/${encodeURIComponent(part.id)}`)).toEqual(part);
      expect(await read(`parts://processes/${encodeURIComponent(part.processId ?? "")}`)).toEqual(
        tool(await server.call("get_process", { code: part.processId })),
      );
      expect(await read(`parts://materials/${encodeURIComponent(part.materialId ?? "")}`)).toMatchObject({
        code: part.materialId,
      });
      const spaced = standards.find((s) => s.code.includes(" ")) as Standard;
      expect(await read(`parts://standards/${encodeURIComponent(spaced.code)}`)).toEqual(spaced);
      const categoryId = part.categoryIds?.[0] as string;
      expect(await read(`parts://categories/${encodeURIComponent(categoryId)}`)).toMatchObject({
        id: categoryId,
      });
      const rfq = server.api.store.rfqs()[0];
      expect(await read(`parts://rfqs/${encodeURIComponent(rfq?.id ?? "")}`)).toMatchObject({ id: rfq?.id });
      const factory = server.api.store.factories()[0];
      expect(await read(`parts://factories/${encodeURIComponent(factory?.id ?? "")}`)).toMatchObject({
        id: factory?.id,
      });
    });

    it("say how long a client may keep a record: reference records a while, parts not at all (2026-07-28)", async () => {
      const standard = (await server.client.readResource({ uri: "parts://standards" })) as Record<
        string,
        unknown
      >;
      const read = (await server.client.readResource({
        uri: `parts://parts/${encodeURIComponent(part.id)}`,
      })) as Record<string, unknown>;
      if (era === "2025") {
        expect(["ttlMs" in standard, "cacheScope" in standard, "ttlMs" in read]).toEqual([
          false,
          false,
          false,
        ]);
        return;
      }
      expect(standard.ttlMs).toBeGreaterThan(0);
      expect([standard.cacheScope, read.ttlMs, read.cacheScope]).toEqual(["private", 0, "private"]);
    });

    it("answer an unknown code with resource-not-found, never empty contents", async () => {
      await expect(server.client.readResource({ uri: "parts://standards/NOPE%2099" })).rejects.toMatchObject({
        code: -32602,
        message: expect.stringMatching(
          /^Not found: standard "NOPE 99" not found\. Find standard codes with search_reference/,
        ),
      });
      await expect(server.client.readResource({ uri: "parts://parts/missing-part" })).rejects.toMatchObject({
        code: -32602,
        data: { uri: "parts://parts/missing-part" },
        message: expect.stringMatching(/^Not found: part "missing-part" not found\./),
      });
      await expect(server.client.readResource({ uri: "parts://gadgets/1" })).rejects.toMatchObject({
        code: -32602,
        data: { uri: "parts://gadgets/1" },
        message: expect.stringMatching(
          /^No resource has the address parts:\/\/gadgets\/1\. Addresses: .*parts:\/\/parts\/\{id\}/,
        ),
      });
      // Categories are read through the batch endpoint, which has no 404: the same did-you-mean.
      const known = await server.call("search_reference", { kind: "category" });
      const category = (known.structuredContent as { items: { id: string }[] }).items[0]?.id as string;
      await expect(
        server.client.readResource({ uri: `parts://categories/${encodeURIComponent(`${category}x`)}` }),
      ).rejects.toMatchObject({
        code: -32602,
        message: expect.stringContaining(`did you mean ${category}`),
      });
      await expect(server.client.readResource({ uri: "parts://parts/%E0%A4%A" })).rejects.toMatchObject({
        code: -32602,
        data: { uri: "parts://parts/%E0%A4%A" },
        message: expect.stringMatching(/is not a valid percent-encoded value: write each byte as %XX/),
      });
    });

    it("say which addresses exist, and the closest, for a URI that matches none", async () => {
      const near = await reject("parts://part/P-1");
      expect(near).toMatchObject({ code: -32602, data: { uri: "parts://part/P-1" } });
      expect(near.message).toContain("Did you mean parts://parts/P-1?");
      expect(near.message).toContain("parts://standards/{code}");
      expect(near.message).toContain("resources/templates/list");
      const nested = await reject("parts://parts/P-1/extra");
      expect(nested.message).toMatch(/^No resource has the address parts:\/\/parts\/P-1\/extra\./);
      expect(nested.message).toContain("Did you mean parts://parts/P-1%2Fextra?");
      const foreign = await reject("https://example.com/parts/1");
      expect(foreign.message).toMatch(/^No resource has the address https:\/\/example\.com\/parts\/1\./);
      expect(foreign.message).not.toContain("Did you mean");
      expect(nested.message).toContain('write a "/" in it as %2F');
      const staleView = await reject("ui://parts-mcp/2.0.0-beta.1/parts-view.html");
      expect(staleView.message).toMatch(/Did you mean ui:\/\/parts-mcp\/\d+\.\d+\.\d+\/parts-view\.html\?/);
      expect((await reject("PARTS://PART/P-1")).message).toContain("Did you mean parts://parts/P-1?");
      expect((await reject("parts://part/P-1?x=1#top")).message).toContain("Did you mean parts://parts/P-1?");
      expect((await reject("parts://standard")).message).toContain("Did you mean parts://standards?");
      expect((await reject("parts://rfqs")).message).toContain("Did you mean parts://rfqs/{id}?");
      const trailing = (await reject("parts://part/P-1/")).message;
      expect(trailing).toContain("Did you mean parts://parts/P-1?");
      expect(trailing).not.toContain("%2F");
      expect((await reject("parts://parts/P-1/")).message).toContain("Did you mean parts://parts/P-1?");
    });

    it("echo an unknown address escaped and cut short", async () => {
      const hostile = await reject("parts://gadgets/\u202Eevil\u0007");
      expect(hostile.message).toContain("parts://gadgets/\\u202Eevil\\u0007");
      expect(hostile.message).not.toContain("\u202E");
      expect(hostile.message).not.toContain("\u0007");
      const long = await reject(`parts://part/${"x".repeat(100_000)}`);
      expect(long.message.length).toBeLessThan(2_000);
      expect(long.message).not.toContain("Did you mean");
    });

    it("are linked from tool results that name them without carrying them in full", async () => {
      const linksOf = (result: CallToolResult) =>
        result.content.filter((c) => c.type === "resource_link").map((c) => (c as { uri: string }).uri);
      const links = linksOf(await server.call("get_part", { id: part.id }));
      expect(links).not.toContain(`parts://parts/${encodeURIComponent(part.id)}`);
      expect(links).toContain(`parts://processes/${encodeURIComponent(part.processId ?? "")}`);
      for (const code of part.standardIds ?? [])
        expect(links).toContain(`parts://standards/${encodeURIComponent(code)}`);
      // describe_part carries every record it names in full: nothing to link.
      expect(linksOf(await server.call("describe_part", { id: part.id }))).toEqual([]);
    });
  });

  describe("completion", () => {
    it("completes standard codes from the standards list as search_reference matches them", async () => {
      const { completion } = await completeTemplate("parts://standards/{code}", "code", "astm");
      const prefixed = standards.filter((s) => s.code.toLowerCase().startsWith("astm")).map((s) => s.code);
      expect(prefixed.length).toBeGreaterThan(0);
      for (const code of prefixed) expect(completion.values).toContain(code);
      for (const [typed, meant] of [
        ["f3001", "ASTM F3001"],
        ["AMS4928", "AMS 4928"],
        ["iso 13485:2016", "ISO 13485"],
      ] as const) {
        const fragment = await completeTemplate("parts://standards/{code}", "code", typed);
        expect(fragment.completion.values[0], typed).toBe(meant);
      }
    });

    it("completes ids the server has seen, at most 100 with hasMore", async () => {
      for (let page = 1; page <= 4; page++) await server.call("list_parts", { page, pageSize: 50 });
      const { completion } = await completeTemplate("parts://parts/{id}", "id", "");
      expect(completion.values).toHaveLength(100);
      expect(completion.hasMore).toBe(true);
      expect(completion.total).toBeGreaterThan(100);
      const processes = await completeTemplate("parts://processes/{code}", "code", "");
      expect(processes.completion.values).toContain(part.processId);
    });

    it("completes prompt arguments", async () => {
      const { completion } = await server.client.complete({
        ref: { type: "ref/prompt", name: "find_standard" },
        argument: { name: "materialType", value: "PO" },
      });
      expect(completion.values).toEqual(["polymer"]);
      const bodies = await server.client.complete({
        ref: { type: "ref/prompt", name: "find_standard" },
        argument: { name: "governingBody", value: "a" },
      });
      expect(bodies.completion.values).toContain("ASTM");
      expect(bodies.completion.values.every((v) => v.toLowerCase().startsWith("a"))).toBe(true);
    });
  });

  describe("prompts", () => {
    it("are the three for drafting, RFQ status and finding standards", async () => {
      const { prompts } = await server.client.listPrompts();
      expect(prompts.map((p) => p.name).sort()).toEqual(["draft_part", "find_standard", "rfq_status"]);
    });

    it("draft_part walks to a create_part call and embeds the standards for the material type", async () => {
      const { messages } = await server.client.getPrompt({
        name: "draft_part",
        arguments: { description: "a titanium bracket for a satellite", materialType: "metal" },
      });
      const text = (messages[0]?.content as { text?: string } | undefined)?.text ?? "";
      expect(text).toContain("a titanium bracket for a satellite");
      expect(text).toMatch(/create_part/);
      expect(text).toMatch(/search_reference/);
      expect(text).not.toMatch(/seen so far/);
      const label = (index: number) => (messages[index]?.content as { text?: string } | undefined)?.text;
      expect(label(1)).toBe("Standards for metal parts:");
      const metal = embeddedData(messages[2]);
      expect(metal.items.length).toBeGreaterThan(0);
      expect(metal.items.every((s: Standard) => s.materialType === "metal")).toBe(true);
      expect(label(3)).toMatch(/^Standards for every part/);
      const general = embeddedData(messages[4]).items.map((s: Standard) => s.code);
      expect(general).toEqual(expect.arrayContaining(["ISO 13485", "ISO 10993-1"]));
    });

    it("rfq_status embeds the RFQ and its part", async () => {
      const rfq = server.api.store.rfqs()[0];
      const { messages } = await server.client.getPrompt({
        name: "rfq_status",
        arguments: { rfqId: rfq?.id ?? "" },
      });
      const uris = messages.slice(1).map((m) => (m.content as { resource: { uri: string } }).resource.uri);
      expect(uris).toEqual([
        `parts://rfqs/${encodeURIComponent(rfq?.id ?? "")}`,
        `parts://parts/${encodeURIComponent(rfq?.partId ?? "")}`,
      ]);
      await expect(
        server.client.getPrompt({ name: "rfq_status", arguments: { rfqId: "nope" } }),
      ).rejects.toThrow(/Not found/);
    });

    it("find_standard embeds the standards of the governing body", async () => {
      const { messages } = await server.client.getPrompt({
        name: "find_standard",
        arguments: { governingBody: "ISO" },
      });
      const embedded = embeddedData(messages[1]);
      expect(embedded.items.length).toBeGreaterThan(0);
      expect(embedded.items.every((s: Standard) => s.governingBody === "ISO")).toBe(true);
    });
  });

  describe("the reference cache", () => {
    it("serves a second lookup from memory, for tools and resources alike", async () => {
      const code = standards[3]?.code as string;
      const before = server.api.stats.requests("getStandard");
      await server.call("get_standard", { code });
      await server.call("get_standard", { code });
      await read(`parts://standards/${encodeURIComponent(code)}`);
      expect(server.api.stats.requests("getStandard") - before).toBe(1);
    });

    it("makes one upstream request for N concurrent lookups of the same record", async () => {
      const code = standards[5]?.code as string;
      const before = server.api.stats.requests("getStandard");
      server.api.faults.add({ endpoint: "getStandard", action: { kind: "latency", ms: 100 } });
      const results = await Promise.all(
        Array.from({ length: 10 }, () => server.call("get_standard", { code })),
      );
      server.api.faults.clear();
      for (const result of results) expect(result.structuredContent).toMatchObject({ code });
      expect(server.api.stats.requests("getStandard") - before).toBe(1);
    });

    it("serves batch entries from what single lookups fetched, and asks only for the rest", async () => {
      const [cached, fresh] = [standards[7]?.code as string, standards[8]?.code as string];
      await server.call("get_standard", { code: cached });
      const before = server.api.stats.requests();
      const result = await server.call("batch_get_standards", { codes: [cached, fresh] });
      expect((result.structuredContent as { items: Standard[] }).items.map((s) => s.code)).toEqual([
        cached,
        fresh,
      ]);
      expect(server.api.stats.requests() - before).toBe(1);
      const again = server.api.stats.requests();
      await server.call("batch_get_standards", { codes: [fresh, cached] });
      expect(server.api.stats.requests()).toBe(again);
    });

    it("does not keep failures", async () => {
      const code = standards[10]?.code as string;
      server.api.faults.add({ endpoint: "getStandard", action: { kind: "status", status: 404 }, times: 1 });
      expect((await server.call("get_standard", { code })).isError).toBe(true);
      expect((await server.call("get_standard", { code })).structuredContent).toMatchObject({ code });
    });
  });
});

describe.each(ERAS)("tool selection limits everything served (%s era)", (era) => {
  let limited: InProcessServer;
  beforeAll(async () => {
    limited = await connectInProcess({
      era,
      tools: selectTools(tools, { readOnly: false, tools: ["reference"] }),
    });
  });
  afterAll(() => limited?.close());

  it("offers no resource, template, completion or prompt that reaches a removed tool's data", async () => {
    const templates = (await limited.client.listResourceTemplates()).resourceTemplates.map(
      (t) => t.uriTemplate,
    );
    expect(templates.sort()).toEqual(
      [
        "parts://categories/{id}",
        "parts://criticalities/{id}",
        "parts://materials/{code}",
        "parts://processes/{code}",
        "parts://standards/{code}",
      ].sort(),
    );
    const listed = (await limited.call("list_standards", {})).structuredContent as { items: unknown[] };
    expect(listed.items.length).toBeGreaterThan(0);
    const part = [...limited.api.store.parts()][0];
    await expect(limited.client.readResource({ uri: `parts://parts/${part?.id}` })).rejects.toMatchObject({
      code: -32602,
    });
    const rfq = [...limited.api.store.rfqs()][0];
    await expect(limited.client.readResource({ uri: `parts://rfqs/${rfq?.id}` })).rejects.toMatchObject({
      code: -32602,
    });
    const prompts = (await limited.client.listPrompts()).prompts.map((p) => p.name);
    expect(prompts).not.toContain("rfq_status");
    await expect(
      limited.client.getPrompt({ name: "rfq_status", arguments: { rfqId: rfq?.id ?? "" } }),
    ).rejects.toThrow();
  });
});
