// The second catalogue (test/fixtures/other-catalogue.ts) served as the Parts API serves it, over
// real HTTP on 127.0.0.1, by the shared catalogue server (test/support/catalogue-api.ts).
import * as catalogue from "../fixtures/other-catalogue";
import { type CatalogueApi, startCatalogueApi } from "./catalogue-api";

export function startOtherApi(): Promise<CatalogueApi> {
  return startCatalogueApi({
    parts: catalogue.PARTS.map(({ is: _, ...part }) => part),
    materials: catalogue.MATERIALS,
    processes: catalogue.PROCESSES,
    standards: catalogue.STANDARDS,
    criticalities: catalogue.CRITICALITIES,
    categories: catalogue.CATEGORIES,
  });
}
