// What both transports open before serving: the logger (which redacts the configured token,
// `secrets`, and whatever `moreSecrets` yields when a line is written) and the upstream API,
// embedded or remote.
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
  moreSecrets: () => Iterable<string> = () => [],
): Promise<Runtime> {
  const fixed = new Set<string>([...(config.token ? [config.token] : []), ...secrets]);
  const logger = createLogger({
    level: config.logLevel,
    secrets: function* () {
      yield* fixed;
      yield* moreSecrets();
    },
  });
  captureConsole(logger);
  const upstream = await openUpstream(config, cache, logger);
  fixed.add(upstream.token);
  return { logger, upstream };
}
