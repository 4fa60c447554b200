// Any small catalogue served as the Parts API serves it, over real HTTP on 127.0.0.1, with the
// paging quirks an API may have: pages of its own size whatever pageSize asks (more or fewer
// items), and items repeated across pages (the last item of a page again at the start of the
// next). Reference records are read by code, standards listed, batch gets answered.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Category, Criticality, Material, Part, Process, Standard } from "../../src/api/schemas";

export interface Catalogue {
  parts: Part[];
  materials: Material[];
  processes: Process[];
  standards: Standard[];
  criticalities: Criticality[];
  categories: Category[];
}

export interface Paging {
  /** The size of the pages served, whatever pageSize asks; undefined: as asked. */
  servedSize?: number;
  /** Whether each page after the first starts with the last item of the page before it. */
  repeats?: boolean;
}

export interface CatalogueApi {
  url: string;
  token: string;
  close(): Promise<void>;
}

/** A fixture catalogue module (test/fixtures/*-catalogue.ts), its parts labelled by hand (`is`). */
interface CatalogueModule {
  PARTS: (Part & { is: unknown })[];
  MATERIALS: Material[];
  PROCESSES: Process[];
  STANDARDS: Standard[];
  CRITICALITIES: Criticality[];
  CATEGORIES: Category[];
}

/** A fixture module as the catalogue the API serves: its parts without their labels. */
export function catalogueOf(fixture: CatalogueModule): Catalogue {
  return {
    parts: fixture.PARTS.map(({ is: _, ...part }) => part),
    materials: fixture.MATERIALS,
    processes: fixture.PROCESSES,
    standards: fixture.STANDARDS,
    criticalities: fixture.CRITICALITIES,
    categories: fixture.CATEGORIES,
  };
}

const TOKEN = "pat_catalogue_fixture";

function send(res: ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}

async function bodyOf(req: IncomingMessage): Promise<Record<string, string[]>> {
  let text = "";
  for await (const chunk of req) text += chunk;
  return JSON.parse(text || "{}");
}

export async function startCatalogueApi(catalogue: Catalogue, paging: Paging = {}): Promise<CatalogueApi> {
  const { parts } = catalogue;
  const answer = async (req: IncomingMessage, res: ServerResponse) => {
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
      const size = paging.servedSize ?? Number(url.searchParams.get("pageSize") ?? 20);
      const from = (page - 1) * size;
      const items = parts.slice(paging.repeats && page > 1 ? from - 1 : from, page * size);
      return send(res, 200, { items, hasMore: page * size < parts.length });
    }
    if (path.startsWith("/v1/parts/")) return one(parts, (p) => p.id, "/v1/parts/");
    if (path.startsWith("/v1/processes/")) return one(catalogue.processes, (p) => p.code, "/v1/processes/");
    if (path.startsWith("/v1/materials/")) return one(catalogue.materials, (m) => m.code, "/v1/materials/");
    if (path === "/v1/standards") return send(res, 200, { items: catalogue.standards });
    if (path === "/v1/standards:batch-get") return batch(catalogue.standards, (s) => s.code, "codes");
    if (path.startsWith("/v1/standards/")) return one(catalogue.standards, (s) => s.code, "/v1/standards/");
    if (path === "/v1/criticalities:batch-get") return batch(catalogue.criticalities, (c) => c.id, "ids");
    if (path.startsWith("/v1/criticalities/"))
      return one(catalogue.criticalities, (c) => c.id, "/v1/criticalities/");
    if (path === "/v1/categories:batch-get") return batch(catalogue.categories, (c) => c.id, "ids");
    send(res, 404, { status: 404, message: `no route ${path}` });
  };
  const server = createServer((req, res) => {
    answer(req, res).catch(() => send(res, 500, { status: 500, message: "fixture failed" }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    token: TOKEN,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
