// The API this server talks to: the configured environment, or, for `local` with no base URL,
// the embedded sample API started inside this process on loopback. Beside the client: the
// reference cache and the part search, each partitioned by a digest of the token.
import { PartsApiClient } from "../client";
import type { ApiConfig } from "../config";
import { type ReferenceCacheOptions, ReferenceData } from "../data/reference";
import { SeenRecords } from "../data/seen";
import type { Logger } from "../log/logger";
import type { Connection } from "../mcp/scope";
import { PartSearch, type PartSearchOptions } from "../search";

export interface Upstream {
  api: PartsApiClient;
  reference: ReferenceData;
  search: PartSearch;
  seen: SeenRecords;
  connection: Connection;
  token: string;
  close(): Promise<void>;
}

export async function openUpstream(
  config: ApiConfig,
  cache: ReferenceCacheOptions,
  logger: Logger,
  search: Partial<Omit<PartSearchOptions, "ttlMs" | "seen">> = {},
): Promise<Upstream> {
  let baseUrl = config.baseUrl;
  let token = config.token;
  let closeEmbedded = async () => {};
  if (baseUrl === undefined) {
    const { startEmbeddedApi } = await import("../embedded");
    const embedded = await startEmbeddedApi();
    baseUrl = embedded.url;
    token ??= embedded.demoToken;
    closeEmbedded = () => embedded.close();
  }
  if (token === undefined) throw new Error("no token: the configuration should have refused to start");
  const api = new PartsApiClient({ ...config, baseUrl, token, logger });
  const reference = new ReferenceData(api, token, cache);
  const seen = new SeenRecords(token);
  return {
    api,
    reference,
    seen,
    // Kept as long as reference records: both are what this token was shown, as fresh as each other.
    search: new PartSearch(api, reference, token, { ...search, seen, ttlMs: cache.ttlMs }),
    token,
    connection: {
      environment: config.environment,
      baseUrl,
      embedded: config.baseUrl === undefined,
      ...(config.baseUrlVariable && { urlSetting: config.baseUrlVariable }),
    },
    close: async () => {
      await api.close();
      await closeEmbedded();
    },
  };
}
