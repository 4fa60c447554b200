// The yardstick of `npm run bench`: the smallest server the official SDK (v2 line) makes for the
// same job as parts-mcp's `get_part`, written as the SDK's own guides write one. One tool, its
// argument declared with zod (the SDK needs a schema to hand the handler its arguments), and a
// handler that GETs /v1/parts/{id} from the Parts API with undici's `request` (its global
// keep-alive agent; leaner than fetch, whose web streams cost more CPU than the call itself) and
// returns the body as text: no output schema, no check of the answer, no links, no cache, no logging.
// Plain JavaScript run by node as it is (module by module from node_modules, as such a server
// ships); it imports only what the transport it serves needs. Both protocol eras on stdio by
// default, `--http --port N` for Streamable HTTP, a new instance per request as the SDK's guide
// serves statelessly, with `--key K` checking `Authorization: Bearer K` on each.
//
//   PARTS_API_BASE_URL=… PARTS_API_TOKEN=… node test/bench/minimal-server.mjs [--http --port N [--key K]]

import { pathToFileURL } from "node:url";
import { createMcpHandler, McpServer } from "@modelcontextprotocol/server";
import { request } from "undici";
import * as z from "zod/v4";

const base = process.env.PARTS_API_BASE_URL;
const headers = { authorization: `Bearer ${process.env.PARTS_API_TOKEN}`, accept: "application/json" };

/** GET of a path on the API, body read whole. */
const get = async (url) => {
  const response = await request(url, { headers });
  return { ok: response.statusCode < 300, text: await response.body.text() };
};

const shape = (text) => ({ content: [{ type: "text", text }] });

function buildServer() {
  const server = new McpServer({ name: "minimal-parts", version: "1.0.0" });
  server.registerTool(
    "get_part",
    { description: "Get a part by id", inputSchema: z.object({ id: z.string() }) },
    async ({ id }) => {
      const { ok, text } = await get(`${base}/v1/parts/${encodeURIComponent(id)}`);
      return ok ? shape(text) : { content: [{ type: "text", text }], isError: true };
    },
  );
  return server;
}

const isProgram = import.meta.url === pathToFileURL(process.argv[1] ?? "").href;
const portAt = process.argv.indexOf("--port");
const keyAt = process.argv.indexOf("--key");
const key = keyAt === -1 ? undefined : `Bearer ${process.argv[keyAt + 1]}`;
if (isProgram && process.argv.includes("--http")) {
  Promise.all([import("node:http"), import("@modelcontextprotocol/node")]).then(
    ([{ createServer }, { toNodeHandler }]) => {
      const handler = toNodeHandler(createMcpHandler(buildServer));
      const http = createServer((req, res) => {
        if (req.url === "/healthz") res.end("ok");
        else if (key !== undefined && req.headers.authorization !== key) {
          res.writeHead(401, { "www-authenticate": "Bearer" }).end();
        } else void handler(req, res);
      });
      http.listen(Number(portAt === -1 ? 0 : process.argv[portAt + 1]), "127.0.0.1", () => {
        console.error(JSON.stringify({ url: `http://127.0.0.1:${http.address().port}/mcp` }));
      });
      process.once("SIGTERM", () => http.close(() => process.exit(0)));
    },
  );
} else if (isProgram) {
  import("@modelcontextprotocol/server/stdio").then(({ serveStdio }) =>
    serveStdio(buildServer, { legacy: "serve" }),
  );
}
