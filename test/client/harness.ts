// Shared set-up of the client tests: a real API on 127.0.0.1 with fault injection, clients whose
// every log line is captured (to be scanned for the token), and the errors they threw (to check
// that the client's errors carry facts, never advice naming a setting).
import { afterAll, expect } from "vitest";
import type { ClientOptions, PartsApiError } from "../../src/client";
import { PartsApiClient } from "../../src/client";
import { startTestApi, type TestApi } from "../../src/embedded/testing";
import { createLogger } from "../../src/log/logger";

export type Api = TestApi;

export function startApi(): Promise<Api> {
  return startTestApi();
}

/** Every line any test client logged, across the file. */
export const logLines: string[] = [];

/** Every error a test client threw, across the file. */
const errors: PartsApiError[] = [];

afterAll(() => {
  for (const error of errors) {
    // Words for people (which setting to change, where the token comes from) are src/mcp/messages.ts's.
    const own = error.message.replace(error.upstreamMessage ?? "", "");
    expect(own).not.toMatch(/PARTS_API_|X-Parts-Api-Token|try again|check /i);
  }
});

export function makeClient(api: Api, overrides: Partial<ClientOptions> = {}): PartsApiClient {
  return new PartsApiClient({
    baseUrl: api.url,
    token: api.demoToken,
    timeoutMs: 5_000,
    attemptTimeoutMs: 2_000,
    maxRetries: 3,
    batchSize: 50,
    maxResponseBytes: 1024 * 1024,
    backoff: { baseMs: 5, capMs: 20 },
    // No `secrets`: the scan checks that the client never logs the token, without help.
    logger: createLogger({ level: "debug", write: (line) => logLines.push(line) }),
    ...overrides,
  });
}

/** The error a promise rejects with (fails the test when it resolves). */
export async function failure(promise: Promise<unknown>): Promise<PartsApiError> {
  try {
    await promise;
  } catch (error) {
    errors.push(error as PartsApiError);
    return error as PartsApiError;
  }
  throw new Error("expected the call to fail, but it succeeded");
}

/** Every part the client's token can see, page after page. */
export async function allParts(
  client: PartsApiClient,
): Promise<{ id: string; criticalityIds?: string[]; categoryIds?: string[] }[]> {
  const parts = [];
  for (let page = 1; ; page++) {
    const result = await client.call("listParts", { query: { page, pageSize: 50 } });
    parts.push(...result.items);
    if (!result.hasMore) return parts;
  }
}

export async function eventually(check: () => boolean, ms = 2_000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (check()) return true;
    await new Promise((r) => setTimeout(r, 10));
  }
  return check();
}
