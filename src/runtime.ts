// What both transports open before serving: the logger (which redacts the configured token and
// `secrets`, and learns per-user tokens as the API accepts them) and the upstream API, embedded
// or remote.
import type { ApiConfig, CacheConfig } from "./config";
import { captureConsole, createLogger, type Logger } from "./log";
import { openUpstream, type Upstream } from "./upstream";

export interface Runtime {
  logger: Logger;
  upstream: Upstream;
}

export async function openRuntime(
  config: ApiConfig,
  cache: CacheConfig,
  secrets: readonly string[] = [],
): Promise<Runtime> {
  const logger = createLogger({
    level: config.logLevel,
    secrets: [...(config.token ? [config.token] : []), ...secrets],
  });
  captureConsole(logger);
  const upstream = await openUpstream(config, cache, logger);
  logger.addSecret(upstream.token);
  return { logger, upstream };
}
