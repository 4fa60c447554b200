// The one API client: import from "../client" (or "./client") everywhere.

export { createDeadline } from "./call";
export { type CallOptions, type ClientOptions, PartsApiClient } from "./client";
export { type ContractIssue, PartsApiError, type PartsApiErrorFacts } from "./errors";
