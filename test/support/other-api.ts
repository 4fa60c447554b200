// The second catalogue (test/fixtures/other-catalogue.ts) served as the Parts API serves it, over
// real HTTP on 127.0.0.1: list and get parts, get processes, materials, standards and
// criticalities, list standards and the batch gets. Requests without its token are 401.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import * as catalogue from "../fixtures/other-catalogue";

export interface OtherApi {
  url: string;
  token: string;
  close(): Promise<void>;
}

const TOKEN = "pat_other_catalogue";

function send(res: ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}

async function bodyOf(req: IncomingMessage): Promise<Record<string, string[]>> {
  let text = "";
  for await (const chunk of req) text += chunk;
  return JSON.parse(text || "{}");
}

const parts = catalogue.PARTS.map(({ is: _, ...part }) => part);

async function answer(req: IncomingMessage, res: ServerResponse) {
  if (req.headers.authorization !== `Bearer ${TOKEN}`)
    return send(res, 401, { status: 401, message: "bad token" });
  const url = new URL(req.url ?? "/", "http://localhost");
  const path = decodeURIComponent(url.pathname);
  const one = <T>(list: T[], key: (record: T) => string, prefix: string) => {
    const record = list.find((each) => key(each) === path.slice(prefix.length));
    return record ? send(res, 200, record) : send(res, 404, { status: 404, message: "not found" });
  };
  const batch = async <T>(list: T[], key: (record: T) => string, field: string) => {
    const wanted = (await bodyOf(req))[field] ?? [];
    send(res, 200, { items: list.filter((record) => wanted.includes(key(record))) });
  };
  if (path === "/v1/parts") {
    const page = Number(url.searchParams.get("page") ?? 1);
    const size = Number(url.searchParams.get("pageSize") ?? 20);
    const items = parts.slice((page - 1) * size, page * size);
    return send(res, 200, { items, hasMore: page * size < parts.length });
  }
  if (path.startsWith("/v1/parts/")) return one(parts, (p) => p.id, "/v1/parts/");
  if (path.startsWith("/v1/processes/")) return one(catalogue.PROCESSES, (p) => p.code, "/v1/processes/");
  if (path.startsWith("/v1/materials/")) return one(catalogue.MATERIALS, (m) => m.code, "/v1/materials/");
  if (path === "/v1/standards") return send(res, 200, { items: catalogue.STANDARDS });
  if (path === "/v1/standards:batch-get") return batch(catalogue.STANDARDS, (s) => s.code, "codes");
  if (path.startsWith("/v1/standards/")) return one(catalogue.STANDARDS, (s) => s.code, "/v1/standards/");
  if (path === "/v1/criticalities:batch-get") return batch(catalogue.CRITICALITIES, (c) => c.id, "ids");
  if (path.startsWith("/v1/criticalities/"))
    return one(catalogue.CRITICALITIES, (c) => c.id, "/v1/criticalities/");
  if (path === "/v1/categories:batch-get") return batch(catalogue.CATEGORIES, (c) => c.id, "ids");
  send(res, 404, { status: 404, message: `no route ${path}` });
}

export async function startOtherApi(): Promise<OtherApi> {
  const server = createServer((req, res) => {
    answer(req, res).catch(() => send(res, 500, { status: 500, message: "fixture failed" }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    token: TOKEN,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
