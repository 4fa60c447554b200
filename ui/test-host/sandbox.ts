// The sandbox proxy of the test host (MCP Apps spec, "Sandbox proxy"): served from a second
// loopback origin with the spec's default CSP as an HTTP header, it loads the view's HTML into an
// inner iframe (which inherits that CSP) and relays messages both ways, except the
// `ui/notifications/sandbox-*` ones meant for itself. The host's origin comes in the query string.
const hostOrigin = new URLSearchParams(location.search).get("host") ?? "";
const RESOURCE_READY = "ui/notifications/sandbox-resource-ready";

const inner = document.createElement("iframe");
inner.title = "view";
inner.setAttribute("sandbox", "allow-scripts allow-same-origin");
document.body.appendChild(inner);

window.addEventListener("message", (event) => {
  if (event.source === window.parent) {
    if (event.origin !== hostOrigin) return;
    if (event.data?.method === RESOURCE_READY) {
      inner.srcdoc = String(event.data.params?.html ?? "");
      return;
    }
    inner.contentWindow?.postMessage(event.data, "*");
  } else if (event.source === inner.contentWindow) {
    window.parent.postMessage(event.data, hostOrigin);
  }
});

window.parent.postMessage(
  { jsonrpc: "2.0", method: "ui/notifications/sandbox-proxy-ready", params: {} },
  hostOrigin,
);
