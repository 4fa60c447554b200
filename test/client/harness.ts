// Shared set-up of the client tests: a real API on 127.0.0.1 with fault injection, and clients
// whose every log line is captured (to be scanned for the token).

import type { ClientOptions } from "../../src/client";
import { PartsApiClient } from "../../src/client";
import { type EmbeddedApi, startEmbeddedApi } from "../../src/embedded";
import { createLogger } from "../../src/log";

export type Api = EmbeddedApi;

export function startApi(): Promise<Api> {
  return startEmbeddedApi();
}

/** Every line any test client logged, across the file. */
export const logLines: string[] = [];

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
export async function failure(promise: Promise<unknown>): Promise<import("../../src/client").PartsApiError> {
  try {
    await promise;
  } catch (error) {
    return error as import("../../src/client").PartsApiError;
  }
  throw new Error("expected the call to fail, but it succeeded");
}

export async function eventually(check: () => boolean, ms = 2_000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (check()) return true;
    await new Promise((r) => setTimeout(r, 10));
  }
  return check();
}
