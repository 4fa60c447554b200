// What a tool is: one declaration with its schemas, hints and handler. `defineTool` exists only
// for type inference; the server registers every definition of `tools/index.ts` in one loop.
import type { ToolAnnotations } from "@modelcontextprotocol/server";
import type { z } from "zod";
import type { KnownKind } from "../src/api/kinds";
import type { CallOptions, PartsApiClient } from "../src/client";
import type { ReferenceData } from "../src/data/reference";
import type { RecordRef } from "../src/data/seen";
import type { PartSearch } from "../src/search";

export const TOOL_GROUPS = ["parts", "rfqs", "factories", "reference"] as const;
type ToolGroup = (typeof TOOL_GROUPS)[number];

/** Everything a handler may use for one call: the API, the reference cache in front of it, the
 * part search with its per-token indexes, and the call's deadline, signal and token. */
export interface ToolContext {
  api: PartsApiClient;
  reference: ReferenceData;
  search: PartSearch;
  call: CallOptions;
  /** Reports progress of a long call (e.g. parts scanned of total) when the client asked for it. */
  progress?: (done: number, total?: number, message?: string) => void;
}

export interface ToolDefinition<I extends z.ZodObject = z.ZodObject, O extends z.ZodObject = z.ZodObject> {
  name: string;
  title: string;
  group: ToolGroup;
  description: string;
  input: I;
  output: O;
  annotations: Required<
    Pick<ToolAnnotations, "readOnlyHint" | "destructiveHint" | "idempotentHint" | "openWorldHint">
  >;
  /**
   * Tools this one is useless without, because it prepares their calls (preview_part checks
   * create_part's): selection drops it with them, and their refusals name it.
   */
  requires?: readonly string[];
  /**
   * Loaded up front by hosts that otherwise defer tools behind their own tool search
   * (`_meta["anthropic/alwaysLoad"]`): the tools a conversation starts with.
   */
  alwaysLoad?: boolean;
  /** What to do when the API answers 404: where valid ids come from. */
  notFound: string;
  /**
   * Arguments that name records by code or id: when the API does not know one (a 404, or a 400
   * that names it), the failure adds the closest known records (`search.suggest`).
   */
  lookups?: readonly { kind: KnownKind; argument: string }[];
  handler(args: z.output<I>, context: ToolContext): Promise<z.output<O>>;
  /** The result's text for the model, where compact JSON is not the best form (a list, a line an item). */
  text?(result: z.output<O>): string;
  /**
   * For a write a person confirms first where the client can ask (src/confirm/): what the call
   * will write, in words for the form. Its output then allows `notWritten` (the person said no).
   */
  confirm?(args: z.output<I>, context: ToolContext): Promise<string>;
  /** Records the result names but does not carry in full: `resource_link`s to their `parts://` URIs. */
  links?(result: z.output<O>): ResourceRef[];
  /**
   * Every record the result names (its links are added): the server loop remembers them for this
   * token's completions and did-you-mean.
   */
  mentions?(result: z.output<O>): ResourceRef[];
}

export type ResourceRef = RecordRef;

export function defineTool<I extends z.ZodObject, O extends z.ZodObject>(
  definition: ToolDefinition<I, O>,
): ToolDefinition<I, O> {
  return definition;
}

/** Reads that cannot change anything, upstream or here. */
export const READ = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: true,
} as const;

/** Creates something new upstream: not destructive, but a repeat makes a second one. */
export const CREATE = {
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: false,
  openWorldHint: true,
} as const;
