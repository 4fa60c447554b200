// The tools one server process offers, built once at start-up from the selection (selection.ts):
// the advertised `tools/list` entries, computed once (on the first list), and the lookup by name
// with each tool's strict input schema. Every server instance of the process (one per HTTP request, one per stdio
// connection) is handed the same catalogue.
import type { Tool } from "@modelcontextprotocol/server";
import { z } from "zod";
import type { ToolDefinition } from "../../tools/define";
import { DIMENSION_NAMES, Dimensions, jsonSchemaOverride } from "../api/schemas";
import { ICONS } from "./icons";
import { viewMetaFor } from "./views";

export interface CatalogueEntry {
  tool: ToolDefinition;
  /** The input schema with unknown keys refused. */
  input: z.ZodObject;
}

export interface Catalogue {
  readonly tools: readonly ToolDefinition[];
  /** Whether tools link their MCP Apps view and the `ui://` document is served (PARTS_MCP_APPS). */
  readonly views: boolean;
  /** The `tools/list` result's entries. */
  readonly advertised: readonly Tool[];
  get(name: string): CatalogueEntry | undefined;
  has(name: string): boolean;
}

export function buildCatalogue(tools: readonly ToolDefinition[], { views }: { views: boolean }): Catalogue {
  const byName = new Map(tools.map((tool) => [tool.name, { tool, input: tool.input.strict() }]));
  // JSON Schemas are made on the first tools/list, not at start-up: a process that is only asked
  // `initialize` first answers sooner.
  let advertised: Tool[] | undefined;
  return {
    tools,
    views,
    get advertised() {
      advertised ??= [...byName.values()].map(({ tool, input }) =>
        advertise(tool, input, views ? viewMetaFor(tool.name) : undefined),
      );
      return advertised;
    },
    get: (name) => byName.get(name),
    has: (name) => byName.has(name),
  };
}

function advertise(
  tool: ToolDefinition,
  input: z.ZodObject,
  viewMeta: Record<string, unknown> | undefined,
): Tool {
  const meta = { ...viewMeta, ...(tool.alwaysLoad && { [ALWAYS_LOAD]: true }) };
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: jsonSchema(input, "input"),
    outputSchema: jsonSchema(tool.output, "output"),
    annotations: tool.annotations,
    icons: ICONS,
    ...(Object.keys(meta).length > 0 && { _meta: meta }),
  };
}

/** Claude Code defers a server's tools behind its tool search unless a tool carries this. */
const ALWAYS_LOAD = "anthropic/alwaysLoad";

function jsonSchema(schema: z.ZodObject, io: "input" | "output") {
  const { $schema: _, ...rest } = z.toJSONSchema(schema, {
    io,
    unrepresentable: "any",
    override: (ctx) => {
      jsonSchemaOverride(ctx);
      if (io === "output") compactOutput(ctx);
    },
  });
  return rest as Tool["inputSchema"];
}

/**
 * Output schemas are read by the model in every prompt, so they say what they must in fewer
 * tokens, with the same meaning for the results this server returns: objects need not be declared
 * closed (results never carry unknown fields), and the 18 optional dimensions are named once.
 */
function compactOutput({
  zodSchema,
  jsonSchema,
}: {
  zodSchema: unknown;
  jsonSchema: Record<string, unknown>;
}) {
  if (jsonSchema.additionalProperties === false) delete jsonSchema.additionalProperties;
  if (zodSchema === Dimensions) {
    delete jsonSchema.properties;
    jsonSchema.propertyNames = { enum: DIMENSION_NAMES };
    jsonSchema.additionalProperties = { type: "number" };
  }
}
