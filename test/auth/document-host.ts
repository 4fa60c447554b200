// A local HTTPS host for Client ID Metadata Documents, as a client's own web site: a CA and a
// certificate for `localhost` made with openssl for the test (the server under test trusts the
// CA through NODE_EXTRA_CA_CERTS), and routes that misbehave on purpose.
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:https";
import { join } from "node:path";
import { tempDir } from "./support";

export interface DocumentHost {
  /** https://localhost:<port> */
  origin: string;
  port: number;
  /** The server's environment to trust this host: its CA, and `localhost` as a client host. */
  trustEnv: Record<string, string>;
  /** Serves `document` at `path`; its client_id is set to its own URL on `origin`. */
  serve(path: string, document: Record<string, unknown>, origin?: string): string;
  close(): Promise<void>;
}

function makeCertificates(dir: string) {
  const run = (...args: string[]) => execFileSync("openssl", args, { cwd: dir, stdio: "ignore" });
  run(
    "req",
    "-x509",
    "-newkey",
    "ec",
    "-pkeyopt",
    "ec_paramgen_curve:prime256v1",
    "-nodes",
    "-days",
    "2",
    "-subj",
    "/CN=parts-mcp test CA",
    "-keyout",
    "ca.key",
    "-out",
    "ca.pem",
  );
  run(
    "req",
    "-newkey",
    "ec",
    "-pkeyopt",
    "ec_paramgen_curve:prime256v1",
    "-nodes",
    "-subj",
    "/CN=localhost",
    "-keyout",
    "host.key",
    "-out",
    "host.csr",
  );
  writeFileSync(join(dir, "ext.cnf"), "subjectAltName=DNS:localhost,IP:127.0.0.1\n");
  run(
    "x509",
    "-req",
    "-in",
    "host.csr",
    "-CA",
    "ca.pem",
    "-CAkey",
    "ca.key",
    "-CAcreateserial",
    "-days",
    "2",
    "-extfile",
    "ext.cnf",
    "-out",
    "host.pem",
  );
  return {
    key: readFileSync(join(dir, "host.key")),
    cert: readFileSync(join(dir, "host.pem")),
    caFile: join(dir, "ca.pem"),
  };
}

export async function startDocumentHost(): Promise<DocumentHost> {
  const { key, cert, caFile } = makeCertificates(tempDir("cimd"));
  const documents = new Map<string, string>();
  const server: Server = createServer({ key, cert }, (req, res) => {
    const path = req.url ?? "/";
    if (path === "/loop.json") {
      res.writeHead(302, { location: "/loop.json" }).end();
    } else if (path === "/huge.json") {
      // 10 MB of JSON, sent without a Content-Length, as a hostile host would.
      res.writeHead(200, { "content-type": "application/json" });
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      res.write('{"client_id":"x","padding":"');
      let sent = 0;
      const more = () => {
        while (sent < 10 * 1024 * 1024) {
          sent += chunk.length;
          if (!res.write(chunk)) return void res.once("drain", more);
        }
        res.end('"}');
      };
      res.on("error", () => {});
      more();
    } else if (documents.has(path)) {
      res.writeHead(200, { "content-type": "application/json", "cache-control": "max-age=60" });
      res.end(documents.get(path));
    } else {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  const origin = `https://localhost:${port}`;
  return {
    origin,
    port,
    trustEnv: { NODE_EXTRA_CA_CERTS: caFile, PARTS_MCP_OAUTH_TRUSTED_CLIENT_HOSTS: "localhost" },
    serve(path, document, at = origin) {
      const url = `${at}${path}`;
      documents.set(path, JSON.stringify({ ...document, client_id: url }));
      return url;
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
