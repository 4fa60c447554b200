// Tool selection (--read-only / PARTS_MCP_READ_ONLY, --tools / PARTS_MCP_TOOLS) for both
// transports: the rules on the registry, the flags over the environment, and what a client sees.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConfigError, loadSelectionConfig, parseCommandLine, SERVER_COMMAND } from "../src/config";
import { startTestApi, type TestApi } from "../src/embedded/testing";
import { selectTools } from "../src/mcp/selection";
import { tools } from "../tools";
import { TOOL_GROUPS } from "../tools/define";
import { call, connect, type HttpServerProcess, spawnHttpServer, spawnRefused } from "./http/support";
import { startServer } from "./support/mcp-server";

const names = (list: readonly { name: string }[]) => list.map((tool) => tool.name);
const writers = tools.filter((tool) => !tool.annotations.readOnlyHint).map((tool) => tool.name);

function configError(run: () => unknown): ConfigError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error("expected a ConfigError");
}

describe("selectTools", () => {
  it("serves every tool, as the same array, when nothing is selected", () => {
    expect(selectTools(tools, { readOnly: false })).toBe(tools);
  });

  it("read-only keeps exactly the tools whose annotations say readOnlyHint", () => {
    expect(writers.sort()).toEqual(["create_part", "import_part_file"]);
    const kept = selectTools(tools, { readOnly: true });
    expect(kept.every((tool) => tool.annotations.readOnlyHint)).toBe(true);
    // preview_part is read-only, but only a step towards create_part: it goes with it.
    expect(names(kept)).toEqual(
      names(tools).filter((name) => !writers.includes(name) && name !== "preview_part"),
    );
  });

  it("takes tool names and group names, in registry order", () => {
    expect(names(selectTools(tools, { readOnly: false, tools: ["rfqs", "get_part"] }))).toEqual([
      "get_part",
      "get_rfq",
    ]);
    const reference = selectTools(tools, { readOnly: false, tools: ["reference"] });
    expect(reference.length).toBeGreaterThan(0);
    expect(reference.every((tool) => tool.group === "reference")).toBe(true);
    expect(names(selectTools(tools, { readOnly: true, tools: ["parts"] }))).toEqual([
      "search_parts",
      "resolve_parts",
      "describe_part",
      "compare_parts",
      "get_part",
      "list_parts",
    ]);
  });

  it("keeps a tool only with the tools it requires, and refuses one named without them", () => {
    expect(names(selectTools(tools, { readOnly: false, tools: ["preview_part", "create_part"] }))).toEqual([
      "preview_part",
      "create_part",
    ]);
    // With its group it goes quietly; named on its own it was asked for, so the server says why not.
    expect(names(selectTools(tools, { readOnly: true, tools: ["parts"] }))).not.toContain("preview_part");
    const alone = configError(() =>
      selectTools(tools, { readOnly: false, tools: ["preview_part", "get_rfq"] }),
    );
    expect(alone.message).toBe(
      "PARTS_MCP_TOOLS names preview_part, which serves only beside create_part: add create_part, or drop preview_part.",
    );
    const readOnly = configError(() => selectTools(tools, { readOnly: true, tools: ["preview_part"] }));
    expect(readOnly.message).toMatch(
      /^PARTS_MCP_TOOLS names preview_part, which serves only beside create_part, and PARTS_MCP_READ_ONLY removes that: drop preview_part/,
    );
  });

  it("stops on unknown names, listing every valid tool and group", () => {
    const error = configError(() =>
      selectTools(tools, { readOnly: false, tools: ["parts", "get_parts", "widgets"] }),
    );
    expect(error.variable).toBe("PARTS_MCP_TOOLS");
    expect(error.message).toMatch(/get_parts, widgets/);
    for (const name of [...names(tools), ...TOOL_GROUPS]) expect(error.message).toContain(name);
  });

  it("refuses a selection that leaves nothing to serve", () => {
    const error = configError(() => selectTools(tools, { readOnly: true, tools: ["create_part"] }));
    expect(error.message).toMatch(/no tool is left/);
  });
});

describe("flags mirror the variables, and win over them", () => {
  const load = (argv: string[], env: Record<string, string> = {}) =>
    loadSelectionConfig({ ...env, ...parseCommandLine(SERVER_COMMAND, argv).values });

  it("reads PARTS_MCP_READ_ONLY and PARTS_MCP_TOOLS", () => {
    expect(load([], { PARTS_MCP_READ_ONLY: "true", PARTS_MCP_TOOLS: " parts , rfqs ," })).toEqual({
      readOnly: true,
      tools: ["parts", "rfqs"],
    });
    expect(load([], { PARTS_MCP_READ_ONLY: "", PARTS_MCP_TOOLS: "" })).toEqual({ readOnly: false });
  });

  it("lets --read-only and --tools override the environment", () => {
    expect(
      load(["--read-only", "--tools=reference"], { PARTS_MCP_READ_ONLY: "false", PARTS_MCP_TOOLS: "parts" }),
    ).toEqual({
      readOnly: true,
      tools: ["reference"],
    });
    expect(load(["--tools", "get_rfq"], { PARTS_MCP_TOOLS: "parts" }).tools).toEqual(["get_rfq"]);
  });

  it("names the flag, not the variable, when the flag was at fault", () => {
    const argv = ["--tools", "nope"];
    const error = configError(() => selectTools(tools, load(argv)));
    expect(error.describe(parseCommandLine(SERVER_COMMAND, argv).name)).toMatch(
      /^--tools names an unknown tool or group \(nope\)/,
    );
    expect(error.describe(parseCommandLine(SERVER_COMMAND, []).name)).toMatch(/^PARTS_MCP_TOOLS names/);
  });

  it("refuses unknown flags and missing values", () => {
    expect(configError(() => parseCommandLine(SERVER_COMMAND, ["--read-olny"])).message).toMatch(
      /Unknown argument "--read-olny"/,
    );
    expect(configError(() => parseCommandLine(SERVER_COMMAND, ["--tools"])).message).toMatch(
      /--tools needs a value/,
    );
    expect(configError(() => parseCommandLine(SERVER_COMMAND, ["--read-only=yes"])).message).toMatch(
      /--read-only takes no value/,
    );
  });
});

describe("what a client sees", () => {
  let api: TestApi;
  let http: HttpServerProcess;
  beforeAll(async () => {
    api = await startTestApi();
    http = await spawnHttpServer({ api, args: ["--tools", "reference,get_rfq"] });
  });
  afterAll(async () => {
    await http?.stop();
    await api?.close();
  });

  it("over stdio, PARTS_MCP_READ_ONLY=true removes the tools that change data, from the list and from calls", async () => {
    const server = await startServer({ sharedApi: api, env: { PARTS_MCP_READ_ONLY: "true" } });
    try {
      const listed = names((await server.client.listTools()).tools);
      expect(listed).toEqual(
        names(tools).filter((name) => !writers.includes(name) && name !== "preview_part"),
      );
      const before = api.stats.requests("createPart");
      await expect(server.call("create_part", { title: "Should not exist" })).rejects.toThrow(
        /Unknown tool create_part/,
      );
      expect(api.stats.requests("createPart")).toBe(before);
      expect((await server.call("get_process", { code: "lpbf" })).isError).toBeFalsy();
      // Nothing the server says sends the model to a tool it does not have.
      expect(server.client.getInstructions()).toMatch(/read-only/);
      expect(server.client.getInstructions()).not.toMatch(/create_part/);
      const { messages } = await server.client.getPrompt({
        name: "draft_part",
        arguments: { description: "a bracket" },
      });
      const text = (messages[0]?.content as { text?: string } | undefined)?.text ?? "";
      expect(text).toMatch(/read-only and cannot create parts/);
      expect(text).not.toMatch(/call create_part/);
    } finally {
      await server.close();
    }
  });

  it("over HTTP, --tools serves only the named groups and tools", async () => {
    const client = await connect(http.url);
    try {
      const listed = names((await client.listTools()).tools);
      expect(listed).toEqual(
        names(tools.filter((tool) => tool.group === "reference" || tool.name === "get_rfq")),
      );
      await expect(call(client, "get_part", { id: "anything" })).rejects.toThrow(/Unknown tool get_part/);
      expect((await call(client, "get_process", { code: "lpbf" })).isError).toBeFalsy();
    } finally {
      await client.close();
    }
    expect(http.stderr()).toMatch(/"tools":\["get_rfq"/);
  });

  it("over HTTP, --read-only wins over PARTS_MCP_READ_ONLY=false", async () => {
    const server = await spawnHttpServer({
      api,
      args: ["--read-only"],
      env: { PARTS_MCP_READ_ONLY: "false" },
    });
    const client = await connect(server.url);
    try {
      const listed = names((await client.listTools()).tools);
      for (const writer of writers) expect(listed).not.toContain(writer);
      await expect(
        call(client, "import_part_file", { partId: "p", name: "n", sasUrl: "https://x.example/f" }),
      ).rejects.toThrow(/Unknown tool import_part_file/);
    } finally {
      await client.close();
      await server.stop();
    }
  });

  it("unknown names stop either transport with the list of valid ones", async () => {
    const overHttp = await spawnRefused({ api, args: ["--http", "--tools", "parts,nope"] });
    const overStdio = await spawnRefused({ api, env: { PARTS_MCP_TOOLS: "reference,get_widget" } });
    expect(overHttp.code).toBe(2);
    expect(overHttp.stderr).toMatch(/--tools names an unknown tool or group \(nope\)/);
    expect(overStdio.code).toBe(2);
    expect(overStdio.stderr).toMatch(/PARTS_MCP_TOOLS names an unknown tool or group \(get_widget\)/);
    for (const { stderr } of [overHttp, overStdio]) {
      for (const name of [...names(tools), ...TOOL_GROUPS]) expect(stderr).toContain(name);
      expect(stderr).not.toMatch(/ready on/);
    }
  });
});
