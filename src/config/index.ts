// The configuration: settings from environment variables (env.ts is the only reader of
// process.env), flags that mirror them, and the --help text generated from the same
// declarations. One module per concern; this one only gathers their exports.
export { isLoopbackHost, isWildcardHost } from "../net/hosts";
export * from "./api";
export * from "./cache";
export * from "./commands";
export * from "./env";
export * from "./errors";
export * from "./flags";
export * from "./http";
export * from "./limits";
export * from "./oauth";
export * from "./readers";
export * from "./run";
export * from "./serving";
export * from "./telemetry";
export * from "./usage";
