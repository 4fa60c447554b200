// Prompts for the three kinds of users: an agent drafting a part, a chat assistant asked about an
// RFQ, an engineer looking for the standards that apply. Where data makes the prompt better, it is
// fetched and embedded, so the prompt works even in clients that do not chain tool calls.
import {
  completable,
  type GetPromptResult,
  type McpServer,
  ProtocolError,
  ProtocolErrorCode,
} from "@modelcontextprotocol/server";
import { z } from "zod";
import { MATERIAL_TYPES, MaterialType } from "./api/schemas";
import { complete, resourceUri } from "./resources";
import type { RequestScope } from "./server";

/**
 * Each prompt reaches the data of certain tools, so it is offered only when they are selected:
 * tool selection limits everything the server serves.
 */
export function registerPrompts(server: McpServer, scope: RequestScope): void {
  const { api, reference, catalogue } = scope;
  const canCreate = catalogue.has("create_part");
  // Completable inside, optional outside: the SDK looks for the completer under `.optional()`.
  const materialType = completable(MaterialType.describe(`One of: ${MATERIAL_TYPES.join(", ")}`), (value) =>
    complete(value ?? "", () => [...MATERIAL_TYPES]),
  ).optional();

  if (catalogue.has("list_standards"))
    server.registerPrompt(
      "draft_part",
      {
        title: "Draft a new part",
        description:
          "Walks from a plain description of a part through process, material, standards and criticalities to a create_part call.",
        argsSchema: {
          description: z.string().min(1).describe("What the part is and what it must do"),
          materialType,
        },
      },
      async ({ description, materialType }, extra) => {
        const call = scope.callOptions(extra);
        const standards = await reference
          .standards(materialType ? { materialType } : {}, call)
          .catch(() => []);
        const known = (kind: "process" | "material" | "criticality" | "category") =>
          reference.known(kind, call).join(", ") || "none seen yet";
        return userMessage(
          [
            `Draft a new part in the Parts and Sourcing API for: ${description}`,
            materialType ? `Its material type is ${materialType}.` : "",
            "",
            "1. Find similar parts with list_parts and look at them with describe_part: their processes, materials, standards and criticalities show which codes exist and fit.",
            "2. Choose the process and the material; confirm each code with get_process and get_material.",
            "3. Choose the standards that apply from the list below (or list_standards), and the criticalities and categories, from similar parts.",
            "4. Show the user the draft (title, description, processId, materialId, standardIds, criticalityIds, categoryIds, keywords) and ask for confirmation.",
            canCreate
              ? "5. Only then call create_part once. It is not idempotent: if it fails unclearly, check with list_parts (view IP_OWNER) before calling it again."
              : "5. This server is read-only and cannot create parts: give the user the confirmed draft, as create_part arguments, to enter where parts are created.",
            "",
            `Process codes seen so far: ${known("process")}.`,
            `Material codes seen so far: ${known("material")}.`,
            `Criticality ids seen so far: ${known("criticality")}.`,
            `Category ids seen so far: ${known("category")}.`,
          ].join("\n"),
          standards.length > 0 ? [resource("parts://standards", { items: standards })] : [],
        );
      },
    );

  if (catalogue.has("get_rfq") && catalogue.has("get_part"))
    server.registerPrompt(
      "rfq_status",
      {
        title: "RFQ status",
        description: "Summarises a request for quotation together with the part it is for.",
        argsSchema: {
          rfqId: completable(z.string().min(1).describe("RFQ id"), (value) =>
            complete(value ?? "", () => reference.known("rfq", scope.callOptions())),
          ),
        },
      },
      async ({ rfqId }, extra) => {
        const call = scope.callOptions(extra);
        const rfq = await api.call("getRfq", { params: { id: rfqId } }, call).catch((error: unknown) => {
          throw new ProtocolError(
            ProtocolErrorCode.InvalidParams,
            scope.describeFailure(error, "Check the RFQ id."),
          );
        });
        reference.remember("rfq", [rfq.id], call);
        const part = await api.call("getPart", { params: { id: rfq.partId } }, call).catch(() => undefined);
        if (part) reference.rememberPart(part, call);
        return userMessage(
          [
            `Summarise RFQ ${rfq.id} for a buyer: its state (${rfq.state}), what is asked (quantity, maximum lead time in days), and its deadline and expiry compared with today.`,
            part
              ? `Then say what the part is (${part.title}): process, material and the standards it requires; describe_part resolves them to names.`
              : `The part ${rfq.partId} could not be read; say so.`,
            "Be brief; end with what the buyer should do next, if anything.",
          ].join("\n"),
          [
            resource(resourceUri("rfq", rfq.id), rfq),
            ...(part ? [resource(resourceUri("part", part.id), part)] : []),
          ],
        );
      },
    );

  if (catalogue.has("list_standards"))
    server.registerPrompt(
      "find_standard",
      {
        title: "Find a standard",
        description: "Finds the standards that apply, for a material type or a governing body.",
        argsSchema: {
          need: z
            .string()
            .optional()
            .describe("What the standard is for, e.g. 'tensile testing of printed Ti-6Al-4V'"),
          materialType,
          governingBody: completable(z.string().describe('e.g. "ASTM", "ISO"'), (value) =>
            complete(value ?? "", async () => {
              const standards = await reference.standards({}, scope.callOptions()).catch(() => []);
              return [...new Set(standards.flatMap((s) => (s.governingBody ? [s.governingBody] : [])))];
            }),
          ).optional(),
        },
      },
      async ({ need, materialType, governingBody }, extra) => {
        const filter = { ...(materialType && { materialType }), ...(governingBody && { governingBody }) };
        const standards = await reference
          .standards(filter, scope.callOptions(extra))
          .catch((error: unknown) => {
            throw new ProtocolError(
              ProtocolErrorCode.InternalError,
              scope.describeFailure(error, "Use list_standards."),
            );
          });
        const scopeText = [
          materialType && `material type ${materialType}`,
          governingBody && `governing body ${governingBody}`,
        ]
          .filter(Boolean)
          .join(" and ");
        return userMessage(
          [
            `From the standards below${scopeText ? ` (${scopeText})` : ""}, pick the ones that apply${need ? ` to: ${need}` : ""}.`,
            "For each, give its code, name and governing body, and one line on why it applies. If none applies, say so and suggest a different filter.",
            standards.length === 0 ? "No standard matches this filter." : "",
          ].join("\n"),
          [resource("parts://standards", { items: standards })],
        );
      },
    );
}

type Message = GetPromptResult["messages"][number];

function resource(uri: string, data: unknown): Message {
  return {
    role: "user",
    content: {
      type: "resource",
      resource: { uri, mimeType: "application/json", text: JSON.stringify(data) },
    },
  };
}

function userMessage(text: string, attachments: Message[]): GetPromptResult {
  return { messages: [{ role: "user", content: { type: "text", text: text.trim() } }, ...attachments] };
}
