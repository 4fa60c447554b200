// What both transports open before serving: the logger (which redacts the configured token and
// `secrets`, and learns per-user tokens as the API accepts them) and the upstream API, embedded
// or remote.
import type { Catalogue } from "./catalogue";
import type { ApiConfig, CacheConfig, LimitsConfig, SearchConfig } from "./config";
import { captureConsole, createLogger, type Logger } from "./log";
import { openUpstream, type Upstream } from "./upstream";

/** Everything both transports are started with, read and checked before anything starts (cli.ts). */
export interface ServingConfig {
  api: ApiConfig;
  cache: CacheConfig;
  search: SearchConfig;
  limits: LimitsConfig;
  catalogue: Catalogue;
}

export interface Runtime {
  logger: Logger;
  upstream: Upstream;
}

export async function openRuntime(
  { api: config, cache, search }: Pick<ServingConfig, "api" | "cache" | "search">,
  secrets: readonly string[] = [],
): Promise<Runtime> {
  const logger = createLogger({
    level: config.logLevel,
    secrets: [...(config.token ? [config.token] : []), ...secrets],
  });
  captureConsole(logger);
  const upstream = await openUpstream(config, cache, logger, {
    pagesPerCall: search.pagesPerCall,
    maxBytes: search.indexBudgetBytes,
  });
  logger.addSecret(upstream.token);
  return { logger, upstream };
}
