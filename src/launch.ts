// The `parts-mcp` command as built (dist/parts-mcp.js): loads the server bundle (src/cli.ts,
// bundled beside it) with the V8 code cache that `npm run build` made by starting it as mcp.json
// does (scripts/code-cache.mjs), so that a start runs bytecode instead of parsing and compiling the bundle again
// (about a third of the time to the first answer; scripts/build.mjs, `npm run bench`). V8 checks
// that a cache fits its own version and flags and compiles from source when it does not (another
// Node, other V8 flags): the cache only ever saves time. Its file name carries the bundle's hash,
// so a bundle rebuilt alone never meets a cache made for another. Both are found beside this file,
// never through the working directory: a client starts the server from a folder of its own.
import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { Script } from "node:vm";
import { CODE_CACHE_STATE, type CodeCacheFinding } from "./code-cache";
import {
  checkCodeCache,
  keepYoungGenerationSmall,
  resetHeapSizeFlags,
  undoKeepYoungGenerationSmall,
  undoWasmLiftoffOnly,
} from "./v8-flags";

/** Set by scripts/build.mjs: the bundle's name and hash, the cache's Node. */
declare const PARTS_MCP_BUILD: {
  bundle: string;
  hash: string;
  madeFor: CodeCacheFinding["madeFor"];
};

// V8 takes a code cache only under the flags it was written with: these, at build and at run time.
resetHeapSizeFlags();
checkCodeCache(true);

const bundlePath = join(__dirname, PARTS_MCP_BUILD.bundle);
const cachePath = join(__dirname, `${PARTS_MCP_BUILD.bundle}.${PARTS_MCP_BUILD.hash}.v8cache`);

let cachedData: Buffer | undefined;
try {
  cachedData = readFileSync(cachePath);
} catch {
  // No cache (a build that skipped it, a read-only copy without it): compile from source.
}
let bundle: string;
try {
  bundle = readFileSync(bundlePath, "utf8");
} catch (error) {
  process.stderr.write(
    `parts-mcp: cannot read ${bundlePath} (${(error as NodeJS.ErrnoException).code}): run npm run build.\n`,
  );
  process.exit(1);
}
// The bundle is CommonJS, run as Node runs a module: in a function of the module's five names,
// opened on a line of its own that the line offset hides (stack traces and source maps match).
const source = `(function (exports, require, module, __filename, __dirname) {\n${bundle}\n})`;
const script = new Script(source, { filename: bundlePath, lineOffset: -1, cachedData });
checkCodeCache(false);
// Set once the cache is read (so it is read under the flags it was written with), before the
// bundle's start-up allocates: from here on the young generation keeps its first size.
keepYoungGenerationSmall();

const finding: CodeCacheFinding = {
  state: !cachedData ? "absent" : script.cachedDataRejected ? "rejected" : "used",
  madeFor: PARTS_MCP_BUILD.madeFor,
};
(globalThis as Record<symbol, CodeCacheFinding>)[CODE_CACHE_STATE] = finding;

// The build's warm-up starts ask for the cache of everything compiled by the time they stop
// (an internal switch of scripts/code-cache.mjs, not a setting: a running server writes nothing).
if (process.env.PARTS_MCP_WRITE_CODE_CACHE === "1") {
  process.once("exit", () => {
    try {
      undoWasmLiftoffOnly();
      undoKeepYoungGenerationSmall();
      checkCodeCache(true);
      writeFileSync(cachePath, script.createCachedData());
    } catch (error) {
      process.stderr.write(`parts-mcp: the code cache could not be written: ${(error as Error).message}\n`);
      process.exitCode = 1;
    }
  });
}

const bundleModule = { exports: {} };
script.runInThisContext()(
  bundleModule.exports,
  createRequire(bundlePath),
  bundleModule,
  bundlePath,
  dirname(bundlePath),
);
