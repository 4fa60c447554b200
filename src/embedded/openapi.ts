// The OpenAPI 3.1 document of the API, generated from the endpoint table and its zod schemas
// (z.toJSONSchema): components for the records, one operation per endpoint with its path and
// query parameters, request body, 200 response and a default Error response, bearer security.
import { z } from "zod";
import { type Endpoint, type EndpointName, endpoints, pathParams } from "../api/endpoints";
import {
  ApiErrorBody,
  BoundingBox,
  Category,
  CreatePartBody,
  CreatePartResult,
  Criticality,
  CustomFieldOption,
  CustomFieldSelection,
  Dimensions,
  Factory,
  ImportFileBody,
  ImportFileResult,
  jsonSchemaOverride,
  Material,
  Part,
  PartList,
  Process,
  Rfq,
  Standard,
} from "../api/schemas";

const NAMED: readonly [string, z.ZodType][] = [
  ["Part", Part],
  ["Dimensions", Dimensions],
  ["BoundingBox", BoundingBox],
  ["CustomFieldSelection", CustomFieldSelection],
  ["CustomFieldOption", CustomFieldOption],
  ["Criticality", Criticality],
  ["Standard", Standard],
  ["Category", Category],
  ["Process", Process],
  ["Material", Material],
  ["Factory", Factory],
  ["Rfq", Rfq],
  ["CreatePartBody", CreatePartBody],
  ["CreatePartResult", CreatePartResult],
  ["ImportFileBody", ImportFileBody],
  ["ImportFileResult", ImportFileResult],
  ["PartList", PartList],
  ["Error", ApiErrorBody],
];

const pascal = (name: string) => name.charAt(0).toUpperCase() + name.slice(1);
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

type JsonSchema = Record<string, unknown>;

function stripMeta(schema: JsonSchema): JsonSchema {
  const { $schema: _s, $id: _i, ...rest } = schema;
  return rest;
}

const TAGS: Readonly<Record<string, string>> = {
  parts: "Parts",
  rfqs: "RFQs",
  factories: "Factories",
};

function tagOf(path: string): string {
  const collection = (path.split("/")[2] ?? "").split(":")[0] ?? "";
  return TAGS[collection] ?? "Reference data";
}

export function buildOpenApiDocument(serverUrl: string): Record<string, unknown> {
  const names = new Map<z.ZodType, string>(NAMED.map(([name, schema]) => [schema, name]));
  const nameOf = (schema: z.ZodType, fallback: string): string => {
    let name = names.get(schema);
    if (name === undefined) {
      name = fallback;
      names.set(schema, name);
    }
    return name;
  };
  const table = endpoints as Readonly<Record<EndpointName, Endpoint>>;
  for (const [name, endpoint] of Object.entries(table)) {
    nameOf(endpoint.response, `${pascal(name)}Response`);
    if (endpoint.body !== undefined) nameOf(endpoint.body, `${pascal(name)}Body`);
  }
  const registry = z.registry<{ id: string }>();
  for (const [schema, id] of names) registry.add(schema, { id });
  const generated = z.toJSONSchema(registry, {
    io: "input",
    uri: (id) => `#/components/schemas/${id}`,
    override: jsonSchemaOverride,
  });
  const schemas = Object.fromEntries(
    Object.entries(generated.schemas).map(([id, schema]) => [id, stripMeta(schema as JsonSchema)]),
  );

  const paths: Record<string, Record<string, unknown>> = {};
  for (const [name, endpoint] of Object.entries(table)) {
    const parameters: unknown[] = pathParams(endpoint.path).map((p) => ({
      name: p,
      in: "path",
      required: true,
      description: "One path segment, percent-encoded",
      schema: { type: "string", minLength: 1 },
    }));
    if (endpoint.query !== undefined) {
      for (const [key, field] of Object.entries(endpoint.query.shape as Record<string, z.ZodType>)) {
        const inner = field instanceof z.ZodOptional ? (field.unwrap() as z.ZodType) : field;
        parameters.push({
          name: key,
          in: "query",
          required: !(field instanceof z.ZodOptional),
          schema: stripMeta(
            z.toJSONSchema(inner, { io: "input", override: jsonSchemaOverride }) as JsonSchema,
          ),
        });
      }
    }
    const operation: Record<string, unknown> = {
      operationId: name,
      summary: endpoint.summary,
      tags: [tagOf(endpoint.path)],
    };
    if (parameters.length > 0) operation.parameters = parameters;
    if (endpoint.body !== undefined) {
      operation.requestBody = {
        required: true,
        content: { "application/json": { schema: ref(names.get(endpoint.body) as string) } },
      };
    }
    operation.responses = {
      "200": {
        description: "Success",
        content: { "application/json": { schema: ref(names.get(endpoint.response) as string) } },
      },
      default: {
        description: "Any other outcome: the Error shape, with a stable code",
        content: { "application/json": { schema: ref("Error") } },
      },
    };
    paths[endpoint.path] ??= {};
    (paths[endpoint.path] as Record<string, unknown>)[endpoint.method.toLowerCase()] = operation;
  }

  return {
    openapi: "3.1.0",
    info: {
      title: "Parts and Sourcing Reference API",
      version: "v1",
      description:
        "Manufacturing parts, reference data (processes, materials, standards, criticalities, categories), factories and RFQs. Served by the embedded local API of parts-mcp with sample data.",
    },
    servers: [{ url: serverUrl }],
    security: [{ bearerAuth: [] }],
    tags: [
      { name: "Parts" },
      { name: "RFQs" },
      { name: "Factories" },
      { name: "Reference data", description: "Processes, materials, standards, criticalities, categories" },
    ],
    paths,
    components: {
      schemas,
      securitySchemes: {
        bearerAuth: { type: "http", scheme: "bearer", description: "Personal access token" },
      },
    },
  };
}
