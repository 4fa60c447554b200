// The sealed `requestState` of a confirmation, attacked through the official v2 client in manual
// mode (2026-07-28): a state altered, made for other arguments or another tool, or answered
// twice is refused with -32602 and writes nothing. (Another person's state needs two tokens:
// test/confirm/http.test.ts.)
import type { CallToolResult } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MemoryLedger } from "../../src/confirm/ledger";
import { randomKey } from "../../src/confirm/state";
import { connectInProcess, type InProcessServer } from "../support/in-process";

const YES = { confirm: { action: "accept", content: { confirm: true } } };

let server: InProcessServer;
let unique = 0;

beforeAll(async () => {
  server = await connectInProcess({
    era: "2026",
    confirm: { key: randomKey(), ledger: new MemoryLedger() },
    clientCapabilities: { elicitation: { form: {} } },
  });
});

afterAll(async () => {
  await server?.close();
});

/** The state the server answers a first call with (the client hands `input_required` back). */
async function stateFor(name: string, args: Record<string, unknown>): Promise<string> {
  const first = (await server.client.callTool(
    { name, arguments: args },
    { allowInputRequired: true },
  )) as unknown as { resultType?: string; requestState?: string };
  expect(first.resultType).toBe("input_required");
  if (typeof first.requestState !== "string") throw new Error("no requestState");
  return first.requestState;
}

/** The call again, with the person's answer and `state`. */
function answer(
  name: string,
  args: Record<string, unknown>,
  state: string,
): Promise<CallToolResult | unknown> {
  return server.client
    .callTool({ name, arguments: args, inputResponses: YES, requestState: state } as never)
    .catch((error: unknown) => error);
}

const draft = () => ({ title: `State test ${++unique} ${Date.now()}` });
const created = (title: string) => server.api.store.countPartsWithTitle(title);
const REFUSED = { code: -32602, data: { reason: "invalid_request_state" } };

describe("a confirmation's state", () => {
  it("answered as given writes once; answered again it is refused (replay)", async () => {
    const args = draft();
    const state = await stateFor("create_part", args);
    const written = (await answer("create_part", args, state)) as CallToolResult;
    expect(written.isError).toBeFalsy();
    expect(await answer("create_part", args, state)).toMatchObject(REFUSED);
    expect(created(args.title)).toBe(1);
  });

  it("altered by one character is refused", async () => {
    const args = draft();
    const state = await stateFor("create_part", args);
    const [version, body, mac] = state.split(".") as [string, string, string];
    const payload = JSON.parse(Buffer.from(body, "base64url").toString());
    payload.p.args = "A".repeat(payload.p.args.length);
    const forged = `${version}.${Buffer.from(JSON.stringify(payload)).toString("base64url")}.${mac}`;
    const flipped = `${state.slice(0, -3)}${state.at(-3) === "A" ? "B" : "A"}${state.slice(-2)}`;
    expect(await answer("create_part", args, forged)).toMatchObject(REFUSED);
    expect(await answer("create_part", args, flipped)).toMatchObject(REFUSED);
    expect(await answer("create_part", args, "v1.garbage.garbage")).toMatchObject(REFUSED);
    expect(created(args.title)).toBe(0);
    // The genuine state was not spent by the forgeries.
    expect(((await answer("create_part", args, state)) as CallToolResult).isError).toBeFalsy();
  });

  it("made for other arguments is refused", async () => {
    const args = draft();
    const state = await stateFor("create_part", args);
    const other = { ...args, materialId: "ti64" };
    expect(await answer("create_part", other, state)).toMatchObject(REFUSED);
    expect(await answer("create_part", { title: `${args.title}!` }, state)).toMatchObject(REFUSED);
    expect(created(args.title) + created(`${args.title}!`)).toBe(0);
  });

  it("made for another tool is refused, by a write or a read", async () => {
    const args = draft();
    const state = await stateFor("create_part", args);
    const part = server.api.store.sampleParts()[0];
    if (!part) throw new Error("no sample part");
    const before = server.api.store.importedFiles(part.id).length;
    const file = { partId: part.id, name: "x.step", sasUrl: "https://files.example.net/x.step?sig=abc" };
    expect(await answer("import_part_file", file, state)).toMatchObject(REFUSED);
    expect(await answer("get_part", { id: part.id }, state)).toMatchObject(REFUSED);
    expect(server.api.store.importedFiles(part.id)).toHaveLength(before);
  });

  it("never carries the arguments or the SAS query in clear", async () => {
    const sasUrl = "https://files.example.net/y.step?sv=1&sig=dGhlLXNhcy1zaWduYXR1cmU";
    const part = server.api.store.sampleParts()[0];
    const state = await stateFor("import_part_file", { partId: part?.id, name: "y.step", sasUrl });
    const readable = Buffer.from(state.split(".")[1] ?? "", "base64url").toString();
    expect(readable).not.toContain("sig");
    expect(readable).not.toContain("dGhlLXNhcy1zaWduYXR1cmU");
    expect(readable).not.toContain("y.step");
    expect(readable).not.toContain(server.api.demoToken);
  });
});
