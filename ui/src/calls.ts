// Calls from a view to the server, through the host. A tool failure (`isError`) and a failure of
// the call itself (the host refused it, the connection dropped) both become one Error whose
// message a person can read, so every screen shows them the same way.
import type { CallToolResult } from "@modelcontextprotocol/client";
import type { App } from "@modelcontextprotocol/ext-apps";

let app: App | undefined;

export function setApp(connected: App): void {
  app = connected;
}

/** The text of a result's content, for error messages. */
export function resultText(result: Pick<CallToolResult, "content">): string {
  return (result.content ?? [])
    .flatMap((block) => (block.type === "text" ? [block.text] : []))
    .join("\n")
    .trim();
}

/** Calls a server tool and returns its `structuredContent`. */
export async function callTool<T>(name: string, args: Record<string, unknown>): Promise<T> {
  if (!app) throw new Error("The view is not connected to its host.");
  let result: CallToolResult;
  try {
    result = await app.callServerTool({ name, arguments: args });
  } catch (error) {
    throw new Error(
      `The host could not call ${name}: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  if (result.isError) throw new Error(resultText(result) || `${name} failed.`);
  if (!result.structuredContent) throw new Error(`${name} returned no data to show.`);
  return result.structuredContent as T;
}

/** Tells the model what the person did in the view, when the host accepts context updates. */
export function tellModel(text: string): void {
  if (!app?.getHostCapabilities()?.updateModelContext) return;
  void app.updateModelContext({ content: [{ type: "text", text }] }).catch(() => {});
}
