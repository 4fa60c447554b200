// The one API client: import from "../client" (or "./client") everywhere.

export { type CallOptions, createDeadline } from "./call";
export { type ClientOptions, PartsApiClient } from "./client";
export { type ContractIssue, PartsApiError, type PartsApiErrorFacts } from "./errors";
