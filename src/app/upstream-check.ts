// The start-up check of a remote Parts API: one cheap request (the first page of one part) a moment
// after the server is ready, so that a wrong base URL or token shows in the log at once instead of
// at the first tool call, in words that name the setting the person actually set. It never delays
// an answer: it runs after the start, in the background, and only logs.
import { createDeadline, type PartsApiClient, PartsApiError } from "../client";
import { type ApiConfig, ENV } from "../config";
import type { Logger } from "../log/logger";

/** Long enough for a client's opening exchange to be answered before the check's work starts. */
const CHECK_DELAY_MS = 1_000;
const CHECK_DEADLINE_MS = 15_000;

/** Checks the configured API once, CHECK_DELAY_MS from now; resolves with what it logged. */
export function checkUpstreamSoon(
  api: PartsApiClient,
  config: ApiConfig,
  logger: Logger,
  delayMs = CHECK_DELAY_MS,
): Promise<string> {
  return new Promise((resolve) => {
    setTimeout(() => void checkUpstream(api, config, logger).then(resolve), delayMs).unref();
  });
}

async function checkUpstream(api: PartsApiClient, config: ApiConfig, logger: Logger): Promise<string> {
  const where = `the ${config.environment} environment at ${config.baseUrl}`;
  const urlVariable = config.baseUrlVariable ?? ENV.baseUrl;
  try {
    await probe(api);
    logger.info(`start-up check: ${where} accepted the token`);
    return "ok";
  } catch (error) {
    const problem = describeProblem(error, where, urlVariable);
    logger.warn(`start-up check failed: ${problem} Tool calls will fail until this is fixed.`);
    return problem;
  }
}

/** The one cheap read both checks make: the first page of one part, with the client's own token or another. */
function probe(api: PartsApiClient, token?: string): Promise<unknown> {
  return api.call(
    "listParts",
    { query: { pageSize: 1 } },
    { deadline: createDeadline(CHECK_DEADLINE_MS), ...(token !== undefined && { token }) },
  );
}

function describeProblem(error: unknown, where: string, urlVariable: string): string {
  if (!(error instanceof PartsApiError)) return `${where} could not be checked (${String(error)}).`;
  const status = error.status === undefined ? error.kind : String(error.status);
  if (error.status === 401) {
    return `${where} refused ${ENV.token} (401): set it to a valid personal access token for this environment, then restart parts-mcp.`;
  }
  if (error.status === 403) {
    return `${where} does not allow ${ENV.token} to list parts (403): use a token with read access.`;
  }
  if (error.kind === "network" || error.kind === "timeout") {
    const cause = error.code ?? error.detail ?? error.kind;
    return `${where} could not be reached (${cause}): check ${urlVariable} and the network.`;
  }
  if (error.status === 404 || error.kind === "contract" || error.kind === "redirect") {
    return `${where} does not answer as the Parts API (${status}): check ${urlVariable} (the base URL without /v1).`;
  }
  return `${where} answered with an error (${status}${error.code ? ` ${error.code}` : ""}): it may be down; try again later.`;
}

/**
 * Whether the Parts API accepts a person's own token (one cheap read through the client, with its
 * time-outs and retries): what the oauth mode asks before it accepts a sign-in.
 */
export async function checkPersonalToken(
  api: PartsApiClient,
  token: string,
): Promise<"accepted" | "refused" | "unavailable"> {
  try {
    await probe(api, token);
    return "accepted";
  } catch (error) {
    const status = error instanceof PartsApiError ? error.status : undefined;
    return status === 401 || status === 403 ? "refused" : "unavailable";
  }
}
