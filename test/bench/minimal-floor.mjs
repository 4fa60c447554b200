// The minimal server (minimal-server.mjs) on stdio, as the entry that test/bench/floor.ts bundles
// and starts through parts-mcp's own launcher and code cache.
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { buildServer } from "./minimal-server.mjs";

serveStdio(buildServer, { legacy: "serve" });
