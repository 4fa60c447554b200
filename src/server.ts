// The MCP server: the tools of tools/index.ts registered in one loop (the advertised list computed
// once, arguments validated before any request, every failure a tool result), plus the
// `parts://` resources and the prompts. One server serves one token: stdio has one, and the HTTP
// transport builds a server per request with that request's token.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  SetLevelRequestSchema,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import type { ToolDefinition } from "../tools/define";
import { DIMENSION_NAMES, Dimensions, jsonSchemaOverride } from "./api/schemas";
import { type CallOptions, createDeadline, type PartsApiClient } from "./client";
import { invalidArgumentsMessage, toolErrorMessage } from "./errors";
import type { Logger } from "./log";
import { registerPrompts } from "./prompts";
import type { ReferenceData } from "./reference";
import { registerResources, resourceUri } from "./resources";
import { VERSION } from "./version";

export interface Connection {
  environment: string;
  baseUrl: string;
  /** True when the upstream is the embedded sample API, not a real service. */
  embedded: boolean;
}

export interface ServerOptions {
  api: PartsApiClient;
  reference: ReferenceData;
  tools: readonly ToolDefinition[];
  connection: Connection;
  timeoutMs: number;
  logger: Logger;
  /** The upstream token of this server's requests, when it is not the client's own (per-user HTTP). */
  token?: string;
  /** Where the upstream token comes from, named in the message of a 401. */
  tokenSource?: string;
}

/** What tools, resources and prompts share for one request. */
export interface RequestScope {
  api: PartsApiClient;
  reference: ReferenceData;
  /** Options for the upstream calls of one request: its cancellation, a fresh deadline, the token. */
  callOptions(extra?: { signal?: AbortSignal }): CallOptions;
  describeFailure(error: unknown, notFound: string, idempotent?: boolean): string;
}

export function createServer(options: ServerOptions): McpServer {
  const server = new McpServer(
    { name: "parts-mcp", title: "Parts and Sourcing", version: VERSION },
    {
      capabilities: {
        tools: { listChanged: false },
        resources: {},
        prompts: {},
        completions: {},
        logging: {},
      },
      instructions: instructions(options.connection, new Set(options.tools.map((tool) => tool.name))),
    },
  );
  // Logs go to stderr, never to the client, so no level changes anything; the request is still
  // accepted, because some clients set a level before anything else.
  server.server.setRequestHandler(SetLevelRequestSchema, () => ({}));
  const scope: RequestScope = {
    api: options.api,
    reference: options.reference,
    callOptions: (extra) => ({
      deadline: createDeadline(options.timeoutMs),
      ...(extra?.signal && { signal: extra.signal }),
      ...(options.token !== undefined && { token: options.token }),
    }),
    describeFailure: (error, notFound, idempotent = true) =>
      toolErrorMessage(error, {
        notFound,
        idempotent,
        tokenSource: options.tokenSource ?? "PARTS_API_TOKEN",
        timeoutMs: options.timeoutMs,
      }),
  };
  registerTools(server, options.tools, scope, options.logger);
  registerResources(server, scope);
  registerPrompts(server, scope, { canCreate: options.tools.some((tool) => tool.name === "create_part") });
  // The SDK's registration helpers announce list changes; these lists never change at run time.
  server.server.registerCapabilities({
    tools: { listChanged: false },
    resources: { listChanged: false },
    prompts: { listChanged: false },
  });
  return server;
}

const advertisedCache = new WeakMap<readonly ToolDefinition[], Tool[]>();

function registerTools(
  server: McpServer,
  tools: readonly ToolDefinition[],
  scope: RequestScope,
  logger: Logger,
) {
  const byName = new Map(tools.map((tool) => [tool.name, { tool, input: tool.input.strict() }]));

  server.server.setRequestHandler(ListToolsRequestSchema, () => {
    let advertised = advertisedCache.get(tools);
    if (!advertised) {
      advertised = [...byName.values()].map(({ tool, input }) => advertise(tool, input));
      advertisedCache.set(tools, advertised);
    }
    return { tools: advertised };
  });

  server.server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const entry = byName.get(request.params.name);
    if (!entry) {
      throw new McpError(
        ErrorCode.InvalidParams,
        `Unknown tool ${request.params.name}. Available: ${[...byName.keys()].join(", ")}`,
      );
    }
    const { tool, input } = entry;
    const parsed = input.safeParse(request.params.arguments ?? {});
    if (!parsed.success) return failure(invalidArgumentsMessage(tool.name, parsed.error));
    try {
      const data = await tool.handler(parsed.data, {
        api: scope.api,
        reference: scope.reference,
        call: scope.callOptions(extra),
      });
      const links = tool.links?.(data) ?? [];
      return {
        content: [
          { type: "text", text: JSON.stringify(data) },
          ...links.map(({ kind, id, title }) => ({
            type: "resource_link" as const,
            uri: resourceUri(kind, id),
            name: id,
            ...(title && { title }),
            mimeType: "application/json",
          })),
        ],
        structuredContent: data,
      };
    } catch (error) {
      const message = scope.describeFailure(error, tool.notFound, tool.annotations.idempotentHint);
      logger.warn("tool call failed", { tool: tool.name, error: message });
      return failure(message);
    }
  });
}

function advertise(tool: ToolDefinition, input: z.ZodObject): Tool {
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: jsonSchema(input, "input"),
    outputSchema: jsonSchema(tool.output, "output"),
    annotations: tool.annotations,
  };
}

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

const failure = (text: string): CallToolResult => ({ content: [{ type: "text", text }], isError: true });

function instructions(connection: Connection, tools: ReadonlySet<string>): string {
  const where = connection.embedded
    ? "the embedded sample API (local demo data, not a real service: its parts and RFQs are examples)"
    : `the ${connection.environment} environment of the Parts and Sourcing API at ${connection.baseUrl}`;
  const lines = [
    "Manufacturing parts, their reference data (processes, materials, standards, criticalities, categories), factories and RFQs.",
    `Connected to ${where}.`,
  ];
  if (tools.has("describe_part")) {
    lines.push(
      "To answer questions about a part, start with describe_part: one call returns the part with every reference resolved.",
    );
  }
  if (tools.has("list_parts")) lines.push("Find parts with list_parts; pass nextPage to read further.");
  if (tools.has("create_part")) {
    lines.push(
      "Before create_part, look up the process, material and standard codes. create_part and import_part_file are not idempotent: after an unclear failure, check before repeating them.",
    );
  } else {
    lines.push("This server is read-only: it cannot create parts or import files.");
  }
  lines.push(
    "Reference records are also resources: parts://standards, parts://standards/{code}, parts://processes/{code}, parts://parts/{id} and more.",
  );
  return lines.join("\n");
}
