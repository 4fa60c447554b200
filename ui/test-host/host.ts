// A minimal MCP Apps host page built on ext-apps' AppBridge, for the view tests. It loads the
// sandbox proxy from another origin (the spec's two-iframe sandbox), hands it the view's HTML,
// then sends the tool's input and result as a chat host would. Calls from the view go to the
// test process (`/rpc`), where a real MCP client forwards them to the server. The case to show
// (HTML, tool, input, result, host context) comes from `/case/<id>`. It lives under ui/ so that
// it is type-checked with the DOM (ui/tsconfig.json); test/views/harness.ts bundles and serves it.
import {
  AppBridge,
  type McpUiHostContext,
  PostMessageTransport,
} from "@modelcontextprotocol/ext-apps/app-bridge";

interface Case {
  sandboxUrl: string;
  html: string;
  input: Record<string, unknown>;
  result: Parameters<AppBridge["sendToolResult"]>[0];
  hostContext: McpUiHostContext;
  /** Holds the result back this long, so that the loading state shows. */
  resultDelayMs?: number;
}

type HostWindow = Window & { hostSetContext?: (context: McpUiHostContext) => void };

async function rpc<T>(method: string, params: unknown): Promise<T> {
  const response = await fetch("/rpc", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ method, params }),
  });
  const body = (await response.json()) as { result?: T; error?: string };
  if (body.error !== undefined) throw new Error(body.error);
  return body.result as T;
}

async function main(): Promise<void> {
  const id = new URLSearchParams(location.search).get("case");
  const spec = (await (await fetch(`/case/${id}`)).json()) as Case;

  const iframe = document.createElement("iframe");
  iframe.id = "view";
  iframe.title = "parts-mcp view";
  iframe.setAttribute("sandbox", "allow-scripts allow-same-origin");
  const proxyReady = new Promise<void>((resolve) => {
    const listener = (event: MessageEvent) => {
      if (
        event.source === iframe.contentWindow &&
        event.data?.method === "ui/notifications/sandbox-proxy-ready"
      ) {
        window.removeEventListener("message", listener);
        resolve();
      }
    };
    window.addEventListener("message", listener);
  });
  iframe.src = spec.sandboxUrl;
  document.getElementById("slot")?.append(iframe);
  await proxyReady;
  const target = iframe.contentWindow as Window;

  let context = spec.hostContext;
  const bridge = new AppBridge(
    null,
    { name: "parts-mcp test host", version: "1.0.0" },
    { serverTools: {}, serverResources: {}, updateModelContext: { text: {} }, logging: {} },
    { hostContext: context },
  );
  bridge.oncalltool = (params) => rpc("tools/call", params);
  bridge.onreadresource = (params) => rpc("resources/read", params);
  bridge.onupdatemodelcontext = async (params) => {
    await rpc("ui/update-model-context", params);
    return {};
  };
  bridge.onsizechange = ({ height }) => {
    if (height !== undefined) iframe.style.height = `${height}px`;
  };
  const initialized = new Promise<void>((resolve) => {
    bridge.oninitialized = () => resolve();
  });
  await bridge.connect(new PostMessageTransport(target, target));
  await bridge.sendSandboxResourceReady({ html: spec.html });
  await initialized;
  await bridge.sendToolInput({ arguments: spec.input });
  if (spec.resultDelayMs) await new Promise((resolve) => setTimeout(resolve, spec.resultDelayMs));
  await bridge.sendToolResult(spec.result);
  (window as HostWindow).hostSetContext = (change) => {
    context = { ...context, ...change };
    bridge.setHostContext(context);
  };
  document.body.dataset.host = "ready";
}

main().catch((error: unknown) => {
  document.body.dataset.host = "failed";
  document.body.append(String(error));
});
