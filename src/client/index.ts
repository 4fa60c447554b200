// The one API client: import from "../client" (or "./client") everywhere.
export { type CallOptions, type ClientOptions, PartsApiClient } from "./client";
export { createDeadline } from "./deadline";
export { type ContractIssue, PartsApiError, type PartsApiErrorFacts } from "./errors";
