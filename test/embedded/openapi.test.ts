// The published OpenAPI 3.1 document: valid, complete, generated from the endpoint table.
import { Validator } from "@seriousme/openapi-schema-validator";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { endpoints, pathParams } from "../../src/api/endpoints";
import { type EmbeddedApi, startEmbeddedApi } from "../../src/embedded";
import { call } from "./helpers";

let api: EmbeddedApi;
// biome-ignore lint/suspicious/noExplicitAny: the document is checked field by field below
let doc: any;

beforeAll(async () => {
  api = await startEmbeddedApi();
  const reply = await call(api, "/openapi.json", { token: null });
  expect(reply.status).toBe(200);
  expect(reply.headers.get("content-type")).toMatch(/^application\/json/);
  doc = reply.json;
});
afterAll(() => api.close());

const METHODS = ["get", "post", "put", "patch", "delete"];

describe("GET /openapi.json", () => {
  it("is a valid OpenAPI 3.1 document", async () => {
    const validator = new Validator();
    const result = await validator.validate(doc);
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
    expect(validator.version).toBe("3.1");
    expect(doc.servers).toEqual([{ url: api.url }]);
  });

  it("lists the 14 operations of the endpoint table, by method and path", () => {
    const operations = Object.entries(
      doc.paths as Record<string, Record<string, { operationId: string }>>,
    ).flatMap(([path, item]) =>
      Object.entries(item)
        .filter(([method]) => METHODS.includes(method))
        .map(([method, op]) => `${op.operationId} ${method.toUpperCase()} ${path}`),
    );
    expect(operations).toHaveLength(14);
    expect(operations.sort()).toEqual(
      Object.entries(endpoints)
        .map(([name, e]) => `${name} ${e.method} ${e.path}`)
        .sort(),
    );
  });

  it("declares path and query parameters, bodies, responses and bearer security", () => {
    const listParts = doc.paths["/v1/parts"].get;
    expect(listParts.parameters.map((p: { name: string; in: string }) => `${p.in}:${p.name}`)).toEqual([
      "query:page",
      "query:pageSize",
      "query:view",
    ]);
    const pageSize = listParts.parameters.find((p: { name: string }) => p.name === "pageSize");
    expect(pageSize).toMatchObject({ required: false, schema: { type: "integer", minimum: 1, maximum: 50 } });
    expect(listParts.parameters[2].schema.enum).toEqual(["CONSUMER", "IP_OWNER"]);
    const importFile = doc.paths["/v1/parts/{partId}/import-file"].post;
    expect(importFile.parameters).toEqual([
      expect.objectContaining({ name: "partId", in: "path", required: true }),
    ]);
    expect(importFile.requestBody.content["application/json"].schema.$ref).toBe(
      "#/components/schemas/ImportFileBody",
    );
    for (const [name, e] of Object.entries(endpoints)) {
      const op = doc.paths[e.path][e.method.toLowerCase()];
      expect(op.responses["200"].content["application/json"].schema.$ref, name).toMatch(
        /^#\/components\/schemas\//,
      );
      expect(op.responses.default.content["application/json"].schema.$ref).toBe("#/components/schemas/Error");
      expect(
        (op.parameters ?? [])
          .filter((p: { in: string }) => p.in === "path")
          .map((p: { name: string }) => p.name),
      ).toEqual(pathParams(e.path));
      expect(Boolean(op.requestBody), name).toBe("body" in e);
    }
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: "http", scheme: "bearer" });
    expect(doc.security).toEqual([{ bearerAuth: [] }]);
  });

  it("has component schemas for the records, with $refs that resolve", () => {
    const schemas = doc.components.schemas;
    for (const name of [
      "Part",
      "Dimensions",
      "BoundingBox",
      "CustomFieldSelection",
      "Rfq",
      "Standard",
      "Error",
      "CreatePartBody",
    ]) {
      expect(schemas[name], name).toBeDefined();
    }
    expect(schemas.Part.required).toEqual(
      expect.arrayContaining(["id", "title", "serialId", "ipOwnerId", "customFields", "createdTime"]),
    );
    expect(schemas.Part.properties.createdTime).toMatchObject({ type: "string", format: "date-time" });
    expect(schemas.Rfq.properties.state.enum).toContain("QUOTE_RECEIVED");
    expect(schemas.Error.required).toEqual(["status", "message"]);
    const refs = JSON.stringify(doc).match(/"#\/components\/schemas\/[^"]+"/g) ?? [];
    for (const ref of refs) expect(schemas[ref.slice(22, -1)], ref).toBeDefined();
  });
});
