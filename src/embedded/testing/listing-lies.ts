// Listings that lie, for tests of the search: pages longer than asked, pages that shift and so
// repeat parts, listings that never end, and empty pages that say more follow. Each answers a
// list_parts request from the store's real listing of the caller's organisation, bent one way.
import type { Part } from "../../api/schemas";
import { send } from "../respond";
import type { Exchange } from "../server";
import type { PartView } from "../store";
import type { TestStore } from "./store";

export type ListingLie =
  /** Each page carries `extra` parts more than asked: the ones that follow it. */
  | { lie: "oversized"; extra: number }
  /** Page p starts `by` × (p − 1) parts early, as if parts were added in front between reads. */
  | { lie: "shift"; by: number }
  /** hasMore is always true; past the real end come made-up parts, without end. */
  | { lie: "endless" }
  /** From `fromPage` on, every page is empty yet says more follow. */
  | { lie: "hollow"; fromPage: number };

interface ListQuery {
  orgId: string;
  view: PartView | undefined;
  page: number;
  pageSize: number;
}

/** The caller's organisation and paging, or undefined when the API should answer itself (a 401, a 400). */
function listQuery(ex: Exchange, store: TestStore): ListQuery | undefined {
  const token = /^Bearer (.+)$/.exec(ex.req.headers.authorization ?? "")?.[1];
  const org = token === undefined ? undefined : store.orgForToken(token);
  const query = new URL(ex.req.url ?? "/", "http://api.test").searchParams;
  const page = Number(query.get("page") ?? "1");
  const pageSize = Number(query.get("pageSize") ?? "20");
  const view = query.get("view") ?? undefined;
  if (org === undefined || !Number.isInteger(page) || page < 1 || !Number.isInteger(pageSize))
    return undefined;
  if (pageSize < 1 || pageSize > 50 || (view !== undefined && view !== "IP_OWNER" && view !== "CONSUMER"))
    return undefined;
  return { orgId: org.id, view: view as PartView | undefined, page, pageSize };
}

/** A part of the listing that does not exist: a real one's fields under a new id, serial and title. */
function madeUp(template: Part, position: number): Part {
  return {
    ...template,
    id: `endless-${position}`,
    serialId: `SN-ENDLESS-${position}`,
    title: `Endless listing part ${position}`,
  };
}

function answer(q: ListQuery, lie: ListingLie, store: TestStore): { items: Part[]; hasMore: boolean } {
  const total = store.viewSize(q.orgId, q.view);
  const start = (q.page - 1) * q.pageSize;
  const slice = (from: number, count: number) => store.listed(q.orgId, q.view, Math.max(0, from), count);
  switch (lie.lie) {
    case "oversized": {
      const count = q.pageSize + lie.extra;
      return { items: slice(start, count), hasMore: start + q.pageSize < total };
    }
    case "shift": {
      const from = start - lie.by * (q.page - 1);
      return { items: slice(from, q.pageSize), hasMore: from + q.pageSize < total };
    }
    case "endless": {
      const items = slice(start, q.pageSize);
      const template = slice(0, 1)[0];
      for (let position = Math.max(start, total); items.length < q.pageSize && template; position++)
        items.push(madeUp(template, position));
      return { items, hasMore: true };
    }
    case "hollow":
      if (q.page >= lie.fromPage) return { items: [], hasMore: true };
      return { items: slice(start, q.pageSize), hasMore: start + q.pageSize < total };
  }
}

/** Answers a list_parts request with the lie; a request the API would refuse is left to it. */
export function answerWithListingLie(
  lie: ListingLie,
  ex: Exchange,
  store: TestStore,
  next: () => Promise<void>,
): Promise<void> {
  const q = ex.endpoint === "listParts" ? listQuery(ex, store) : undefined;
  if (q === undefined) return next();
  send(ex.res, ex.requestId, 200, JSON.stringify(answer(q, lie, store)));
  return Promise.resolve();
}
