// Reference records, and the records an assistant reads often, as `parts://` resources that a
// client can attach as context. Each is read through the same client and cache as the tools, and
// each template completes its argument from what this token has been shown.
import { type McpServer, ResourceTemplate } from "@modelcontextprotocol/sdk/server/mcp.js";
import { ErrorCode, McpError, type ReadResourceResult } from "@modelcontextprotocol/sdk/types.js";
import type { CallOptions } from "./client";
import type { KnownKind } from "./reference";
import type { RequestScope } from "./server";

/** JSON-RPC code the MCP specification gives to "resource not found". */
const RESOURCE_NOT_FOUND = -32002;
const MIME = "application/json";

const COLLECTIONS: Record<KnownKind, string> = {
  process: "processes",
  material: "materials",
  standard: "standards",
  criticality: "criticalities",
  category: "categories",
  part: "parts",
  rfq: "rfqs",
  factory: "factories",
};

/** The `parts://` URI of one record: its id is one percent-encoded path segment. */
export const resourceUri = (kind: KnownKind, id: string) =>
  `parts://${COLLECTIONS[kind]}/${encodeURIComponent(id)}`;

interface TemplateSpec {
  kind: KnownKind;
  title: string;
  description: string;
  variable: "code" | "id";
  /** Which tool lists or shows valid values, said when one is not found. */
  hint: string;
  read(id: string, call: CallOptions): Promise<unknown>;
}

export function registerResources(server: McpServer, scope: RequestScope): void {
  const { api, reference } = scope;
  const templates: TemplateSpec[] = [
    {
      kind: "process",
      title: "Process",
      description: "A manufacturing process, by code",
      variable: "code",
      hint: "Process codes appear as processId on parts.",
      read: (code, call) => reference.process(code, call),
    },
    {
      kind: "material",
      title: "Material",
      description: "A material, by code",
      variable: "code",
      hint: "Material codes appear as materialId on parts.",
      read: (code, call) => reference.material(code, call),
    },
    {
      kind: "standard",
      title: "Standard",
      description: "A standard, by code",
      variable: "code",
      hint: "parts://standards lists every standard.",
      read: (code, call) => reference.standard(code, call),
    },
    {
      kind: "criticality",
      title: "Criticality",
      description: "A criticality, by id",
      variable: "id",
      hint: "Criticality ids appear as criticalityIds on parts.",
      read: (id, call) => reference.criticality(id, call),
    },
    {
      kind: "category",
      title: "Category",
      description: "A category with its parent, by id",
      variable: "id",
      hint: "Category ids appear as categoryIds on parts.",
      read: async (id, call) => {
        const { items } = await reference.batch("category", [id], call);
        if (items[0] === undefined) throw Object.assign(new Error("not found"), { status: 404 });
        return items[0];
      },
    },
    {
      kind: "part",
      title: "Part",
      description: "A part, by id",
      variable: "id",
      hint: "Use the list_parts tool to find part ids.",
      read: async (id, call) => {
        const part = await api.call("getPart", { params: { id } }, call);
        reference.rememberPart(part, call);
        return part;
      },
    },
    {
      kind: "rfq",
      title: "RFQ",
      description: "A request for quotation, by id",
      variable: "id",
      hint: "Check the RFQ id.",
      read: async (id, call) => {
        const rfq = await api.call("getRfq", { params: { id } }, call);
        reference.remember("part", [rfq.partId], call);
        return rfq;
      },
    },
    {
      kind: "factory",
      title: "Factory",
      description: "A factory, by id",
      variable: "id",
      hint: "Check the factory id.",
      read: (id, call) => api.call("getFactory", { params: { id } }, call),
    },
  ];

  server.registerResource(
    "standards",
    "parts://standards",
    {
      title: "Standards",
      description: "Every standard, with governing body and material type",
      mimeType: MIME,
    },
    async (uri, extra) => json(uri.href, { items: await reference.standards({}, scope.callOptions(extra)) }),
  );

  for (const spec of templates) {
    const template = new ResourceTemplate(`parts://${COLLECTIONS[spec.kind]}/{${spec.variable}}`, {
      list:
        spec.kind === "standard"
          ? async (extra) => ({
              resources: (await reference.standards({}, scope.callOptions(extra))).map((standard) => ({
                uri: resourceUri("standard", standard.code),
                name: standard.code,
                title: `${standard.code}: ${standard.name}`,
                mimeType: MIME,
              })),
            })
          : undefined,
      complete: { [spec.variable]: (value: string) => complete(value, () => known(spec.kind)) },
    });
    server.registerResource(
      spec.kind,
      template,
      { title: spec.title, description: spec.description, mimeType: MIME },
      async (uri, variables, extra) => {
        const id = decodeVariable(variables[spec.variable]);
        try {
          return json(uri.href, await spec.read(id, scope.callOptions(extra)));
        } catch (error) {
          if ((error as { status?: number }).status === 404) {
            throw new McpError(RESOURCE_NOT_FOUND, `${spec.title} "${id}" was not found. ${spec.hint}`, {
              uri: uri.href,
            });
          }
          throw new McpError(ErrorCode.InternalError, scope.describeFailure(error, spec.hint));
        }
      },
    );
  }

  async function known(kind: KnownKind): Promise<string[]> {
    const call = scope.callOptions();
    if (kind !== "standard") return reference.known(kind, call);
    const listed = await reference.standards({}, call).catch(() => []);
    return [...new Set([...listed.map((standard) => standard.code), ...reference.known(kind, call)])];
  }
}

/** Prefix match, case-insensitive, sorted; the SDK keeps the first 100 and sets hasMore. */
export async function complete<T extends string>(
  value: string,
  candidates: () => T[] | Promise<T[]>,
): Promise<T[]> {
  const prefix = value.toLowerCase();
  return (await candidates()).filter((candidate) => candidate.toLowerCase().startsWith(prefix)).sort();
}

function decodeVariable(value: string | string[] | undefined): string {
  const raw = Array.isArray(value) ? value.join(",") : (value ?? "");
  try {
    return decodeURIComponent(raw);
  } catch {
    throw new McpError(ErrorCode.InvalidParams, `"${raw}" is not a valid percent-encoded value`);
  }
}

function json(uri: string, data: unknown): ReadResourceResult {
  return { contents: [{ uri, mimeType: MIME, text: JSON.stringify(data) }] };
}
