// What the server offers and on which transport: stdio or HTTP, the tools selected
// (--read-only, --tools; applied to the registry by src/mcp/selection.ts) and whether the views
// (MCP Apps) are offered.
import { type Env, processEnv } from "./env";
import { readBoolean, readChoice, readList, type SettingGroup } from "./readers";

export type TransportName = "stdio" | "http";
const TRANSPORTS = ["stdio", "http"] as const satisfies readonly TransportName[];
export const TRANSPORT_ENV = "PARTS_MCP_TRANSPORT";

export function loadTransport(env: Env = processEnv()): TransportName {
  return readChoice(env, TRANSPORT_ENV, TRANSPORTS, "stdio");
}

/** Which tools are served; applied to the registry by src/mcp/selection.ts. */
export interface SelectionConfig {
  /** Only tools whose annotations say readOnlyHint. */
  readOnly: boolean;
  /** Tool names and group names, as given; undefined serves every tool. */
  tools?: string[];
}

export const SELECTION_ENV = { readOnly: "PARTS_MCP_READ_ONLY", tools: "PARTS_MCP_TOOLS" } as const;

export function loadSelectionConfig(env: Env = processEnv()): SelectionConfig {
  const tools = readList(env, SELECTION_ENV.tools);
  return {
    readOnly: readBoolean(env, SELECTION_ENV.readOnly, false),
    ...(tools !== undefined && { tools }),
  };
}

/** Whether tools advertise their views (MCP Apps) to clients that can show them. */
export interface AppsConfig {
  enabled: boolean;
}

export const APPS_ENV = "PARTS_MCP_APPS";

export function loadAppsConfig(env: Env = processEnv()): AppsConfig {
  return { enabled: readBoolean(env, APPS_ENV, true, ["on", "off"]) };
}

/**
 * Whether create_part and import_part_file ask the person first where the client can be asked
 * (`auto`), or never (`off`): src/confirm/.
 */
export type ConfirmWrites = "auto" | "off";
const CONFIRM_CHOICES = ["auto", "off"] as const satisfies readonly ConfirmWrites[];
export const CONFIRM_ENV = "PARTS_MCP_CONFIRM_WRITES";

export function loadConfirmWrites(env: Env = processEnv()): ConfirmWrites {
  return readChoice(env, CONFIRM_ENV, CONFIRM_CHOICES, "auto");
}

export const SERVING_SETTINGS: SettingGroup = {
  title: "Serving",
  settings: [
    { variable: TRANSPORT_ENV, description: TRANSPORTS.join(", "), defaultText: "stdio" },
    {
      variable: SELECTION_ENV.readOnly,
      description: "serve only the tools that change nothing",
      defaultText: "false",
    },
    {
      variable: SELECTION_ENV.tools,
      description: "tool names and groups (parts, rfqs, factories, reference) to serve, comma-separated",
      defaultText: "all",
    },
    {
      variable: APPS_ENV,
      description: "on or off: offer the views (MCP Apps) to clients that show them",
      defaultText: "on",
    },
    {
      variable: CONFIRM_ENV,
      description:
        "auto or off: create_part and import_part_file ask the person first, where the client can ask",
      defaultText: "auto",
    },
  ],
};
