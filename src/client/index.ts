// The one API client: import from "../client" (or "./client") everywhere.
export {
  type BatchEndpointName,
  type BatchRecord,
  type CallInput,
  type CallOptions,
  type CallResult,
  type ClientOptions,
  PartsApiClient,
} from "./client";
export { createDeadline, type Deadline } from "./deadline";
export { type ContractIssue, PartsApiError, type PartsApiErrorFacts, type PartsApiErrorKind } from "./errors";
export type { BackoffOptions } from "./retry";
