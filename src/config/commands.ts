// The entry points and their flags: `parts-mcp` (the MCP server; `parts-mcp stdio` is the same on
// stdin/stdout whatever the environment says), `parts-mcp api` (the embedded Parts API on its own)
// and `parts-mcp healthcheck` (asks a running HTTP server for /healthz). The parser (flags.ts) and
// the usage text (usage.ts) both read these declarations, so --help cannot drift from what is
// accepted. Secrets (tokens, access keys) have no flag: a command line is visible to every user of
// the machine.
import { API_SETTINGS, ENV } from "./api";
import { CACHE_SETTINGS } from "./cache";
import type { Command, FlagDeclaration } from "./flags";
import { HTTP_ENV, HTTP_SETTINGS } from "./http";
import { LIMITS_SETTINGS } from "./limits";
import { OAUTH_SETTINGS } from "./oauth";
import { APPS_ENV, CONFIRM_ENV, SELECTION_ENV, SERVING_SETTINGS, TRANSPORT_ENV } from "./serving";
import { TELEMETRY_SETTINGS } from "./telemetry";

export const SERVER_FLAGS: readonly FlagDeclaration[] = [
  {
    flag: "--http",
    variable: TRANSPORT_ENV,
    sets: "http",
    description: "serve MCP over Streamable HTTP at /mcp",
  },
  {
    flag: "--stdio",
    variable: TRANSPORT_ENV,
    sets: "stdio",
    description: "serve MCP on stdin/stdout (the default)",
  },
  { flag: "--port", variable: HTTP_ENV.port, placeholder: "N", httpOnly: true, description: "HTTP port" },
  {
    flag: "--host",
    variable: HTTP_ENV.host,
    placeholder: "H",
    httpOnly: true,
    description: "HTTP address to listen on",
  },
  {
    flag: "--auth",
    variable: HTTP_ENV.auth,
    placeholder: "MODE",
    httpOnly: true,
    description: "HTTP access control: none, shared, per-user, shared,per-user, or oauth",
  },
  {
    flag: "--allowed-hosts",
    variable: HTTP_ENV.allowedHosts,
    placeholder: "LIST",
    httpOnly: true,
    description: "Host names accepted besides loopback (comma-separated, or *)",
  },
  {
    flag: "--allowed-origins",
    variable: HTTP_ENV.allowedOrigins,
    placeholder: "LIST",
    httpOnly: true,
    description: "browser Origins accepted (comma-separated, or *)",
  },
  {
    flag: "--read-only",
    variable: SELECTION_ENV.readOnly,
    sets: "true",
    description: "serve only the tools that change nothing",
  },
  {
    flag: "--tools",
    variable: SELECTION_ENV.tools,
    placeholder: "LIST",
    description: "tool names and groups (parts, rfqs, factories, reference) to serve",
  },
  { flag: "--no-apps", variable: APPS_ENV, sets: "off", description: "offer no views (MCP Apps)" },
  {
    flag: "--confirm-writes",
    variable: CONFIRM_ENV,
    placeholder: "MODE",
    description: "auto (ask the person before a write, where the client can) or off",
  },
  {
    flag: "--log-level",
    variable: ENV.logLevel,
    placeholder: "LEVEL",
    description: "debug, info, warn, error or silent",
  },
];

export const DEFAULT_STANDALONE_PORT = 8787;

export const API_COMMAND: Command = {
  name: "parts-mcp api",
  synopsis: ["parts-mcp api [--port N] [--host H] [--large]"],
  flags: [
    {
      flag: "--port",
      placeholder: "N",
      description: `port to listen on (default ${DEFAULT_STANDALONE_PORT}; 0 picks a free one)`,
    },
    { flag: "--host", placeholder: "H", description: "address to listen on (default 127.0.0.1)" },
    {
      flag: "--large",
      sets: "true",
      description: "add a generated catalogue of 100,000 parts to the sample data",
    },
  ],
};

/** For a container's health check: the image has Node but no curl (deploy/Containerfile). */
export const HEALTHCHECK_COMMAND: Command = {
  name: "parts-mcp healthcheck",
  synopsis: ["parts-mcp healthcheck [--port N] [--host H]"],
  flags: [
    { flag: "--port", variable: HTTP_ENV.port, placeholder: "N", description: "port the server listens on" },
    {
      flag: "--host",
      variable: HTTP_ENV.host,
      placeholder: "H",
      description: "address the server listens on (0.0.0.0 and :: are asked on loopback)",
    },
  ],
};

export const SERVER_COMMAND: Command = {
  name: "parts-mcp",
  synopsis: [
    "parts-mcp [--http [--port N] [--host H]] [--read-only] [--tools LIST] [options]",
    "parts-mcp stdio [--read-only] [--tools LIST] [options]",
    ...API_COMMAND.synopsis,
    ...HEALTHCHECK_COMMAND.synopsis,
    "parts-mcp config <claude-desktop|claude-code|vscode|cursor|http> [--url URL] [--npx] [flags]",
  ],
  flags: SERVER_FLAGS,
  settings: [
    API_SETTINGS,
    CACHE_SETTINGS,
    SERVING_SETTINGS,
    HTTP_SETTINGS,
    OAUTH_SETTINGS,
    LIMITS_SETTINGS,
    TELEMETRY_SETTINGS,
  ],
};
