// The second catalogue (test/fixtures/other-catalogue.ts) served as the Parts API serves it, over
// real HTTP on 127.0.0.1, by the shared catalogue server (test/support/catalogue-api.ts).
import * as catalogue from "../fixtures/other-catalogue";
import { type CatalogueApi, catalogueOf, startCatalogueApi } from "./catalogue-api";

export function startOtherApi(): Promise<CatalogueApi> {
  return startCatalogueApi(catalogueOf(catalogue));
}
