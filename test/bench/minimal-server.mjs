// The yardstick of `npm run bench`: the smallest server the official SDK (v2 line) makes for the
// same job as parts-mcp's `get_part`, written as the SDK's own guides write one. One tool, its
// argument declared with zod (the SDK needs a schema to hand the handler its arguments), and a
// handler that GETs /v1/parts/{id} from the Parts API and returns the body as text: no output
// schema, no check of the answer, no links, no cache, no logging. It uses undici's Pool, the HTTP
// client parts-mcp uses, so that a ratio between the two measures the MCP side, not the client.
// Plain JavaScript run by node as it is (module by module from node_modules, as such a server
// ships), both protocol eras on stdio by default, `--http --port N` for Streamable HTTP.
//
//   PARTS_API_BASE_URL=… PARTS_API_TOKEN=… node test/bench/minimal-server.mjs [--http --port N]
import { createServer } from "node:http";
import { toNodeHandler } from "@modelcontextprotocol/node";
import { createMcpHandler, McpServer } from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { Pool } from "undici";
import * as z from "zod/v4";

const api = new Pool(process.env.PARTS_API_BASE_URL, { connections: 4 });
const headers = { authorization: `Bearer ${process.env.PARTS_API_TOKEN}`, accept: "application/json" };

function buildServer() {
  const server = new McpServer({ name: "minimal-parts", version: "1.0.0" });
  server.registerTool(
    "get_part",
    { description: "Get a part by id", inputSchema: z.object({ id: z.string() }) },
    async ({ id }) => {
      const response = await api.request({
        method: "GET",
        path: `/v1/parts/${encodeURIComponent(id)}`,
        headers,
      });
      const text = await response.body.text();
      return { content: [{ type: "text", text }], isError: response.statusCode !== 200 };
    },
  );
  return server;
}

const portAt = process.argv.indexOf("--port");
if (process.argv.includes("--http")) {
  const handler = toNodeHandler(createMcpHandler(buildServer));
  const http = createServer((req, res) => {
    if (req.url === "/healthz") res.end("ok");
    else void handler(req, res);
  });
  http.listen(Number(portAt === -1 ? 0 : process.argv[portAt + 1]), "127.0.0.1", () => {
    console.error(JSON.stringify({ url: `http://127.0.0.1:${http.address().port}/mcp` }));
  });
  process.once("SIGTERM", () => http.close(() => process.exit(0)));
} else {
  serveStdio(buildServer, { legacy: "serve" });
}
