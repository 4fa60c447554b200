// Routing by the endpoint table: path templates compiled once into segment lists, matched on the
// raw (still percent-encoded) path so that an encoded "/" or "." inside an id stays inside its
// segment. Parameters are percent-decoded after matching.
import { type Endpoint, type EndpointName, endpoints } from "../api/endpoints";
import { ApiError, quote } from "./errors";
import { planQuery, type QueryPlan } from "./validate";

interface Route {
  name: EndpointName;
  endpoint: Endpoint;
  query: QueryPlan | undefined;
}

interface PathEntry {
  template: string;
  /** Literal segments, or null where a parameter goes. */
  segments: readonly (string | null)[];
  params: readonly string[];
  literalCount: number;
  methods: Map<string, Route>;
  allow: string;
}

export type Match =
  | { kind: "route"; route: Route; params: Record<string, string> }
  | { kind: "method-not-allowed"; template: string; allow: string }
  | { kind: "not-found" };

const NOT_FOUND: Match = { kind: "not-found" };

export class Router {
  private readonly bySegmentCount = new Map<number, PathEntry[]>();

  constructor(table: Readonly<Record<EndpointName, Endpoint>> = endpoints) {
    const byTemplate = new Map<string, PathEntry>();
    for (const [name, endpoint] of Object.entries(table) as [EndpointName, Endpoint][]) {
      let entry = byTemplate.get(endpoint.path);
      if (entry === undefined) {
        const parts = endpoint.path.split("/");
        const segments = parts.map((s) => (s.startsWith("{") && s.endsWith("}") ? null : s));
        entry = {
          template: endpoint.path,
          segments,
          params: parts.filter((s) => s.startsWith("{")).map((s) => s.slice(1, -1)),
          literalCount: segments.filter((s) => s !== null).length,
          methods: new Map(),
          allow: "",
        };
        byTemplate.set(endpoint.path, entry);
        const list = this.bySegmentCount.get(segments.length) ?? [];
        list.push(entry);
        this.bySegmentCount.set(segments.length, list);
      }
      entry.methods.set(endpoint.method, {
        name,
        endpoint,
        query: endpoint.query === undefined ? undefined : planQuery(endpoint.query),
      });
      entry.allow = [...entry.methods.keys()].sort().join(", ");
    }
    // Most literal segments first: a literal always wins over a parameter.
    for (const list of this.bySegmentCount.values()) list.sort((a, b) => b.literalCount - a.literalCount);
  }

  /** Matches a raw path (no query string). Throws a 400 ApiError for bad percent-encoding. */
  match(method: string, path: string): Match {
    const parts = path.split("/");
    const candidates = this.bySegmentCount.get(parts.length);
    if (candidates === undefined) return NOT_FOUND;
    for (const entry of candidates) {
      if (!matches(entry, parts)) continue;
      const route = entry.methods.get(method);
      if (route === undefined)
        return { kind: "method-not-allowed", template: entry.template, allow: entry.allow };
      const params: Record<string, string> = {};
      let p = 0;
      for (let k = 0; k < parts.length; k++) {
        if (entry.segments[k] !== null) continue;
        const name = entry.params[p++] as string;
        params[name] = decodeSegment(name, parts[k] as string);
      }
      return { kind: "route", route, params };
    }
    return NOT_FOUND;
  }
}

function matches(entry: PathEntry, parts: readonly string[]): boolean {
  for (let k = 0; k < parts.length; k++) {
    const literal = entry.segments[k];
    const part = parts[k] as string;
    if (literal === null) {
      if (part === "") return false;
    } else if (literal !== part) return false;
  }
  return true;
}

function decodeSegment(name: string, raw: string): string {
  if (!raw.includes("%")) return raw;
  try {
    return decodeURIComponent(raw);
  } catch {
    throw new ApiError(400, `${name}: invalid percent-encoding in path segment ${quote(raw)}`);
  }
}
