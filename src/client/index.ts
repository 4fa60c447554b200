// The one API client: import from "../client" (or "./client") everywhere.
export {
  type BatchEndpointName,
  type BatchRecord,
  type CallInput,
  type CallOptions,
  type CallResult,
  type ClientOptions,
  type PagesQuery,
  PartsApiClient,
  type PartsPage,
} from "./client";
export { createDeadline, type Deadline } from "./deadline";
export { PartsApiError, type PartsApiErrorKind } from "./errors";
export { type BackoffOptions, DEFAULT_BACKOFF, RETRYABLE_STATUSES } from "./retry";
