// 7. What the tool list costs a model: bytes and tokens (o200k_base, js-tiktoken) of the
// `tools/list` result as the server writes it, per tool and per part of each tool, and what some
// changes to the output schemas would save (computed on that same JSON, so they are exact for
// the list as it is now).
import { Tiktoken } from "js-tiktoken/lite";
import o200k from "js-tiktoken/ranks/o200k_base";
import type { Report } from "./lib";

const encoder = new Tiktoken(o200k);
export const tokens = (value: unknown) =>
  encoder.encode(typeof value === "string" ? value : JSON.stringify(value)).length;
const bytes = (value: unknown) =>
  Buffer.byteLength(typeof value === "string" ? value : JSON.stringify(value));

type Json = Record<string, unknown>;
interface Tool extends Json {
  name: string;
  description?: string;
  inputSchema: Json;
  outputSchema?: Json;
  annotations?: Json;
}

function walk(node: unknown, visit: (node: Json) => void): void {
  if (node === null || typeof node !== "object") return;
  if (!Array.isArray(node)) visit(node as Json);
  for (const value of Object.values(node)) walk(value, visit);
}

/** The object schema of a Part in an output schema: it has these properties. */
const isPartSchema = (node: Json) => {
  const props = node.properties as Json | undefined;
  return props !== undefined && "serialId" in props && "ipOwnerId" in props && "customFields" in props;
};

/** Changes to the output schemas, each applied to a copy of the list. */
const WHAT_IFS: Record<string, { what: string; apply(tools: Tool[]): void }> = {
  noAdditionalPropertiesInOutput: {
    what: 'drop `"additionalProperties":false` from output schemas (zod adds it for io "output")',
    apply: (tools) =>
      tools.forEach((t) => {
        walk(t.outputSchema, (n) => {
          if (n.additionalProperties === false) delete n.additionalProperties;
        });
      }),
  },
  dimensionsAsRecord: {
    what: "Part.dimensions as an object of numbers (`additionalProperties: {type: number}`) instead of 18 named properties",
    apply: (tools) =>
      tools.forEach((t) => {
        walk(t.outputSchema, (n) => {
          const props = n.properties as Json | undefined;
          if (props?.dimensions) {
            props.dimensions = { type: "object", additionalProperties: { type: "number" } };
          }
        });
      }),
  },
  partOnceOnly: {
    what: "Part's full schema in get_part only; in list_parts' items and describe_part's part an object described as get_part's result",
    apply: (tools) =>
      tools.forEach((t) => {
        if (t.name === "get_part") return;
        const replace = (holder: Json, key: string) => {
          holder[key] = { type: "object", description: "A part, as get_part returns it" };
        };
        walk(t.outputSchema, (n) => {
          const props = n.properties as Json | undefined;
          if (props?.part && isPartSchema(props.part as Json)) replace(props, "part");
          const items = props?.items as Json | undefined;
          if (items?.items && isPartSchema(items.items as Json)) replace(items, "items");
        });
      }),
  },
  noOutputSchemas: {
    what: "no outputSchema at all (for scale: structuredContent then goes unchecked by clients)",
    apply: (tools) =>
      tools.forEach((t) => {
        delete t.outputSchema;
      }),
  },
};

function applyWhatIfs(list: { tools: Tool[] }, names: string[]): { tools: Tool[] } {
  const copy = JSON.parse(JSON.stringify(list)) as { tools: Tool[] };
  for (const name of names) WHAT_IFS[name]?.apply(copy.tools);
  return copy;
}

function analyzeToolList(resultJson: string) {
  const list = JSON.parse(resultJson) as { tools: Tool[] };
  const perTool = list.tools.map((t) => ({
    name: t.name,
    bytes: bytes(t),
    tokens: tokens(t),
    description: tokens(t.description ?? ""),
    inputSchema: tokens(t.inputSchema),
    outputSchema: t.outputSchema ? tokens(t.outputSchema) : 0,
    annotations: t.annotations ? tokens(t.annotations) : 0,
  }));
  const total = { bytes: bytes(resultJson), tokens: tokens(resultJson), tools: list.tools.length };
  const parts = {
    descriptions: perTool.reduce((a, t) => a + t.description, 0),
    inputSchemas: perTool.reduce((a, t) => a + t.inputSchema, 0),
    outputSchemas: perTool.reduce((a, t) => a + t.outputSchema, 0),
    annotations: perTool.reduce((a, t) => a + t.annotations, 0),
  };
  const single = Object.keys(WHAT_IFS).map((name) => {
    const changed = applyWhatIfs(list, [name]);
    return { name, what: WHAT_IFS[name]?.what ?? "", tokens: tokens(changed), bytes: bytes(changed) };
  });
  const proposal = ["noAdditionalPropertiesInOutput", "dimensionsAsRecord", "partOnceOnly"];
  const combined = applyWhatIfs(list, proposal);
  return {
    total,
    perTool,
    parts,
    whatIfs: single,
    proposal: { changes: proposal, tokens: tokens(combined), bytes: bytes(combined) },
  };
}

export function reportTokens(report: Report, resultJson: string) {
  const a = analyzeToolList(resultJson);
  const how = "compact JSON of the tools/list result as written on stdio; tokens: js-tiktoken o200k_base";
  report.rows.push({
    section: "7 tools/list",
    name: `all ${a.total.tools} tools`,
    value: `${a.total.bytes} B, ${a.total.tokens} tokens (descriptions ${a.parts.descriptions}, input schemas ${a.parts.inputSchemas}, output schemas ${a.parts.outputSchemas}, annotations ${a.parts.annotations})`,
    how,
  });
  for (const t of [...a.perTool].sort((x, y) => y.tokens - x.tokens)) {
    report.rows.push({
      section: "7 tools/list",
      name: t.name,
      value: `${t.bytes} B, ${t.tokens} tokens (desc ${t.description}, in ${t.inputSchema}, out ${t.outputSchema}, annotations ${t.annotations})`,
      how: "the tool's object in the list",
    });
  }
  for (const w of a.whatIfs) {
    report.rows.push({
      section: "7 tools/list what-if",
      name: w.name,
      value: `${w.tokens} tokens (${w.tokens - a.total.tokens}), ${w.bytes} B`,
      how: w.what,
    });
  }
  report.rows.push({
    section: "7 tools/list what-if",
    name: "proposal (the first three together)",
    value: `${a.proposal.tokens} tokens (${a.proposal.tokens - a.total.tokens}), ${a.proposal.bytes} B`,
    how: a.proposal.changes.join(" + "),
  });
  report.data.toolList = a;
  return a;
}
