// server.json, the MCP Registry's entry: valid under the registry's published schema (kept in
// registry/server.schema.json, its source named inside), and naming the same version and name
// as package.json in every package: npm, the .mcpb and the OCI image.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { describe, expect, it } from "vitest";
import { ICON_SVG, ICONS } from "../../src/mcp/icons";
import { repoRoot } from "../support/mcp-server";

const read = (path: string) => JSON.parse(readFileSync(join(repoRoot, path), "utf8"));
const schema = read("registry/server.schema.json");
const packageJson = read("package.json");

function validate(document: unknown): string[] {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);
  const check = ajv.compile(schema);
  return check(document) ? [] : (check.errors ?? []).map((error) => `${error.instancePath} ${error.message}`);
}

interface Entry {
  registryType: string;
  identifier: string;
  version?: string;
  fileSha256?: string;
}

describe("server.json", () => {
  const server = read("server.json");

  it("follows the 2025-12-11 schema, as published (the copy names its source)", () => {
    expect(schema.$id).toBe("https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json");
    expect(schema.$comment).toContain(schema.$id);
    expect(server.$schema).toBe(schema.$id);
    expect(validate(server)).toEqual([]);
  });

  it("is checked for real: a broken entry is refused", () => {
    const broken = structuredClone(server);
    broken.name = "parts-mcp";
    broken.packages[1].fileSha256 = "not a digest";
    delete broken.packages[0].transport;
    expect(validate(broken)).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^\/name must match pattern/),
        expect.stringMatching(/^\/packages\/1\/fileSha256 must match pattern/),
        expect.stringMatching(/^\/packages\/0 must have required property 'transport'/),
      ]),
    );
  });

  it("names package.json's mcpName and version in every package: npm, the .mcpb and the OCI image", () => {
    const version = packageJson.version as string;
    expect(server.name).toBe(packageJson.mcpName);
    expect(server.version).toBe(version);
    const byType = Object.fromEntries(
      (server.packages as Entry[]).map((entry) => [entry.registryType, entry]),
    );
    expect(Object.keys(byType).sort()).toEqual(["mcpb", "npm", "oci"]);
    expect(byType.npm).toMatchObject({ identifier: packageJson.name, version });
    expect(byType.mcpb?.version).toBe(version);
    expect(byType.mcpb?.identifier).toMatch(
      new RegExp(`/v${version.replaceAll(".", "\\.")}/parts-mcp\\.mcpb$`),
    );
    expect(byType.oci?.identifier).toMatch(new RegExp(`/parts-mcp:${version.replaceAll(".", "\\.")}$`));
  });

  it("carries the server's SVG icon, the one the server and its tools show (a PNG data URI is over the schema's 255 characters)", () => {
    expect(server.icons).toEqual([{ src: ICON_SVG, mimeType: "image/svg+xml", sizes: ["any"] }]);
    expect(ICONS.map((icon) => icon.src)).toContain(ICON_SVG);
    const tooLong = structuredClone(server);
    tooLong.icons = ICONS;
    expect(validate(tooLong)).toEqual([
      expect.stringMatching(/^\/icons\/1\/src must NOT have more than 255 characters/),
    ]);
  });
});
