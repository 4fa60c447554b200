// Bundles the server for a fast cold start (`npm run bench` measures it; test/bench/profile.ts
// shows where the time goes). One bundle instead of hundreds of modules (the SDK alone costs
// ~150 ms when Node resolves it module by module); then start-up goes to reading, compiling and
// running that bundle, so:
// - dist/parts-mcp.js is a launcher (src/launch.ts) that compiles the bundle with V8's code cache
//   of warm-up starts made here as mcp.json starts the server (scripts/code-cache.mjs): bytecode
//   instead of parsing and compiling, a third of the time to the first answer. Both are
//   CommonJS (dist/package.json, and `common` below says why).
// - The bundle carries only what the server runs, minified:
//   - undici: `import { Pool } from "undici"` would pull in all of undici (fetch, WebSocket,
//     caches, mocks: ~1 MB, a third of the bundle); the named classes come from their own
//     modules instead, with the request API on Dispatcher that undici's index adds.
//   - ajv: the SDK's Server builds an Ajv instance (with formats) in its constructor, used only
//     to check elicitation answers, which this server never asks for; it is built on first use.
//   - undici's HTTP/2 client, which loads node:http2 at start-up, is left out: the client never
//     offers HTTP/2.
//   - zod's `locales` namespace keeps English only (the other 47 languages are a third of zod).
//   Each tweak falls back to the plain import, with a warning, when it does not fit the sources.
// - No V8 flags on the launcher's command line: the server sets the flags it needs itself
//   (src/v8-flags.ts), each only for its moment where it can, since under any flag that is not at
//   its default Node compiles its own modules from source instead of from its built-in code cache.
// - mcp.json, this checkout's entry for an MCP client, is `parts-mcp config claude-desktop` of the
//   new launcher: absolute paths, so a client starts it from any folder.
// - No test-only code: the embedded API's fault injection, request statistics and state
//   accessors (src/embedded/testing/) are for tests and benchmarks; the build fails when the
//   bundle's inputs include any of them.
//
//   node scripts/build.mjs [--outdir dist] [--sourcemap] [--no-code-cache] [--metafile path]
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  chmodSync,
  copyFileSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { build } from "esbuild";
import { warmUp } from "./code-cache.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const requireHere = createRequire(join(root, "package.json"));

/** undici's public classes, each from its own module (all CommonJS, `module.exports = X`). */
const UNDICI_MODULES = {
  Pool: "undici/lib/dispatcher/pool.js",
  Client: "undici/lib/dispatcher/client.js",
  Agent: "undici/lib/dispatcher/agent.js",
  Dispatcher: "undici/lib/dispatcher/dispatcher.js",
  errors: "undici/lib/core/errors.js",
};

/** The value names imported from "undici" by `source` (type-only imports are erased anyway). */
function undiciImports(source) {
  const names = new Set();
  const pattern = /import\s+(type\s+)?\{([^}]*)\}\s*from\s*["']undici["']/g;
  for (const [, typeOnly, list] of source.matchAll(pattern)) {
    if (typeOnly) continue;
    for (const item of list.split(",")) {
      const spec = item.trim();
      if (spec === "" || spec.startsWith("type ")) continue;
      names.add(spec.split(/\s+as\s+/)[0].trim());
    }
  }
  // Any other form of import (default, namespace, side effect) keeps the whole package.
  const other = /import\s+(?!type\b)(?![{])[^;]*from\s*["']undici["']|import\s*["']undici["']/.test(source);
  return other ? undefined : names;
}

/** Resolves `undici` in our own sources to a module with only the classes they import. */
const undiciSubset = {
  name: "undici-subset",
  setup(build) {
    build.onResolve({ filter: /^undici$/ }, (args) => {
      if (args.importer.includes("node_modules") || !args.importer.startsWith(root)) return undefined;
      const names = undiciImports(readFileSync(args.importer, "utf8"));
      const unknown =
        names === undefined ? ["(non-named import)"] : [...names].filter((n) => !UNDICI_MODULES[n]);
      if (unknown.length > 0) {
        return {
          path: requireHere.resolve("undici"),
          warnings: [
            { text: `undici-subset: ${unknown.join(", ")} not in the table; bundling all of undici` },
          ],
        };
      }
      return { path: [...names].sort().join(","), namespace: "undici-subset" };
    });
    build.onLoad({ filter: /.*/, namespace: "undici-subset" }, (args) => {
      const names = args.path === "" ? [] : args.path.split(",");
      const lines = [
        // What undici's index does to every dispatcher: request(), stream(), pipeline()...
        `import Dispatcher from "${UNDICI_MODULES.Dispatcher}";`,
        'import api from "undici/lib/api/index.js";',
        "Object.assign(Dispatcher.prototype, api);",
        ...names.filter((n) => n !== "Dispatcher").map((n) => `import ${n} from "${UNDICI_MODULES[n]}";`),
        `export { ${names.join(", ")} };`,
      ];
      return { contents: lines.join("\n"), resolveDir: root, loader: "js" };
    });
  },
};

/**
 * The SDK's Node shim without Ajv (150 KB of the bundle, compiled at every start): its JSON Schema
 * validator checks only what a client answers to an elicitation, and this server never elicits.
 * Should it ever, the validator says so instead of passing anything unchecked.
 */
const noAjv = {
  name: "no-ajv",
  setup(build) {
    build.onResolve({ filter: /^@modelcontextprotocol\/server\/_shims$/ }, () => ({
      path: "shims",
      namespace: "no-ajv",
    }));
    build.onLoad({ filter: /.*/, namespace: "no-ajv" }, () => ({
      contents: `
        import process from "node:process";
        export class DefaultJsonSchemaValidator {
          getValidator() {
            throw new Error("parts-mcp is built without a JSON Schema validator: it never asks the client for input");
          }
        }
        export { process };`,
      loader: "js",
    }));
  },
};

/** zod's `locales` namespace with English only: the other 47 languages are a third of zod. */
const zodEnglishOnly = {
  name: "zod-english-only",
  setup(build) {
    build.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) => {
      if (!/[\\/]node_modules[\\/]zod[\\/]v4[\\/](classic|core|mini)$/.test(args.resolveDir))
        return undefined;
      return { path: resolve(args.resolveDir, "../locales/en.js"), namespace: "zod-english-only" };
    });
    build.onLoad({ filter: /.*/, namespace: "zod-english-only" }, (args) => ({
      contents: `export { default as en } from ${JSON.stringify(args.path)};`,
      resolveDir: dirname(args.path),
      loader: "js",
    }));
  },
};

/**
 * undici without its HTTP/2 client: it loads node:http2 (and tls) at start-up, a tenth of the time
 * to the first answer, for a protocol the client never offers (undici's `allowH2` defaults to
 * false and src/client/transport.ts does not set it), so no connection can ever be HTTP/2.
 */
const undiciHttp1Only = {
  name: "undici-http1-only",
  setup(build) {
    build.onResolve({ filter: /^\.\/client-h2\.js$/ }, (args) => {
      if (!/[\\/]node_modules[\\/]undici[\\/]lib[\\/]dispatcher$/.test(args.resolveDir)) return undefined;
      return { path: "client-h2", namespace: "undici-http1-only" };
    });
    build.onLoad({ filter: /.*/, namespace: "undici-http1-only" }, () => ({
      contents: `module.exports = function connectH2() {
        throw new Error("parts-mcp is built without undici's HTTP/2 client: the server asked for HTTP/2 although it was not offered");
      };`,
      loader: "js",
    }));
  },
};

/**
 * A part of the server in a file of its own, required only when it is used: `importer` reaches
 * it through one dynamic import of `specifier`, which the server bundle leaves to `file`, so a
 * server that never uses it never reads it. A require, not an import(): the launcher runs the
 * bundle as a script, which has no import().
 */
function apart(name, importer, specifier, file) {
  return {
    name,
    setup(build) {
      build.onResolve({ filter: new RegExp(`^${specifier.replaceAll(".", "\\.")}$`) }, (args) => {
        if (!args.importer.endsWith(join(...importer.split("/")))) return undefined;
        return { path: specifier, namespace: name };
      });
      build.onLoad({ filter: /.*/, namespace: name }, () => ({
        contents: `module.exports = require(${JSON.stringify(`./${file}`)});`,
        loader: "js",
      }));
      build.onResolve({ filter: new RegExp(`^\\./${file.replaceAll(".", "\\.")}$`) }, (args) => ({
        path: args.path,
        external: true,
      }));
    },
  };
}

/** OpenTelemetry (dist/parts-mcp.telemetry.js): only when telemetry is on. */
const telemetryApart = apart("telemetry-apart", "src/telemetry/index.ts", "./otel", "parts-mcp.telemetry.js");

/**
 * The `oauth` mode (dist/parts-mcp.oauth.js, with oidc-provider, PGlite, pg and jose bundled in,
 * and PGlite's WebAssembly and data files beside it): only in that mode.
 */
const oauthApart = apart("oauth-apart", "src/http/index.ts", "../auth", "parts-mcp.oauth.js");

export const TWEAKS = {
  undici: undiciSubset,
  http2: undiciHttp1Only,
  ajv: noAjv,
  locales: zodEnglishOnly,
  telemetry: telemetryApart,
  oauth: oauthApart,
};

/** Source folders only tests, benchmarks and scripts load (paths as esbuild's metafile names them). */
const TEST_ONLY_DIRS = ["src/embedded/testing/"];

/** Throws when the bundle took in a module of a test-only folder. */
function checkNoTestOnlyCode(metafile) {
  const leaked = Object.keys(metafile.inputs).filter((path) =>
    TEST_ONLY_DIRS.some((dir) => path.startsWith(dir)),
  );
  if (leaked.length > 0) {
    throw new Error(
      `the bundle contains test-only modules (import them only from tests): ${leaked.join(", ")}`,
    );
  }
}

/** What `bundle()` writes into its folder (dist/ for the product). */
export const FILES = {
  launcher: "parts-mcp.js",
  bundle: "parts-mcp.bundle.js",
  telemetry: "parts-mcp.telemetry.js",
  oauth: "parts-mcp.oauth.js",
  /** PGlite's files, found beside the oauth file through its import.meta.url. */
  pglite: ["pglite.wasm", "pglite.data", "initdb.wasm"],
};

const common = {
  absWorkingDir: root,
  bundle: true,
  platform: "node",
  target: "node20",
  // CommonJS, because Node 20 loads a CommonJS file faster than an ES module and because V8's
  // code cache (vm.Script's cachedData) exists for scripts only.
  format: "cjs",
  minify: true,
  legalComments: "none",
  logLevel: "warning",
};

/** How a bundle that the launcher loads is built (the bench's minimal server too: test/bench/floor.ts). */
export const BUNDLE_OPTIONS = {
  ...common,
  plugins: Object.values(TWEAKS),
  // The views find their document beside the bundle through import.meta.url.
  define: { "import.meta.url": "__bundle_url" },
  banner: { js: 'const __bundle_url = require("node:url").pathToFileURL(__filename).href;' },
};

/**
 * Builds the server into `outdir`: the bundle of src/cli.ts (fails on test-only code), the
 * launcher (src/launch.ts) that loads it, a package.json that makes both CommonJS, and, unless
 * `codeCache` is false, the V8 code cache of warm-up starts (scripts/code-cache.mjs). Returns esbuild's
 * metafile of the bundle.
 */
export async function bundle({ outdir = "dist", sourcemap = false, codeCache = true } = {}) {
  const dir = resolve(root, outdir);
  mkdirSync(dir, { recursive: true });
  const bundlePath = join(dir, FILES.bundle);
  const result = await build({
    ...BUNDLE_OPTIONS,
    entryPoints: ["src/cli.ts"],
    outfile: bundlePath,
    sourcemap: sourcemap ? "linked" : false,
    metafile: true,
  });
  if (
    Object.keys(result.metafile.inputs).some((input) => input.endsWith("undici/lib/dispatcher/client-h2.js"))
  )
    console.warn("build: undici-http1-only no longer fits undici's sources; its HTTP/2 client is bundled");
  try {
    checkNoTestOnlyCode(result.metafile);
  } catch (error) {
    rmSync(bundlePath, { force: true });
    rmSync(`${bundlePath}.map`, { force: true });
    throw error;
  }
  await build({
    ...common,
    entryPoints: ["src/telemetry/otel.ts"],
    outfile: join(dir, FILES.telemetry),
  });
  await build({
    ...common,
    entryPoints: ["src/auth/index.ts"],
    outfile: join(dir, FILES.oauth),
    // oidc-provider tells its models apart by their class names, which minifying would change.
    keepNames: true,
    // pg's optional native binding is never used.
    external: ["pg-native"],
    define: BUNDLE_OPTIONS.define,
    banner: BUNDLE_OPTIONS.banner,
  });
  const pgliteDir = dirname(requireHere.resolve("@electric-sql/pglite"));
  for (const file of FILES.pglite) copyFileSync(join(pgliteDir, file), join(dir, file));
  removeCodeCaches(dir);
  const launcherPath = await writeLauncher(dir, FILES.bundle);
  if (dir === resolve(root, "dist")) writeMcpJson(launcherPath);
  if (codeCache) {
    // Only a speed-up: a warm-up that fails leaves a working build without a cache, and says why.
    try {
      await warmUp(launcherPath);
    } catch (error) {
      removeCodeCaches(dir);
      console.warn(`build: no code cache, the server will compile at each start: ${error.message}`);
    }
  }
  return result.metafile;
}

/**
 * Writes the launcher (src/launch.ts) of the bundle `bundleFile` in `dir`, as FILES.launcher, and
 * the package.json that makes both CommonJS; the bench starts its code-cached minimal server with
 * the same launcher (test/bench/floor.ts).
 */
export async function writeLauncher(dir, bundleFile) {
  writeFileSync(join(dir, "package.json"), `${JSON.stringify({ type: "commonjs" })}\n`);
  const hash = createHash("sha256")
    .update(readFileSync(join(dir, bundleFile)))
    .digest("hex")
    .slice(0, 16);
  const launcherPath = join(dir, FILES.launcher);
  await build({
    ...common,
    entryPoints: ["src/launch.ts"],
    outfile: launcherPath,
    define: {
      PARTS_MCP_BUILD: JSON.stringify({
        bundle: bundleFile,
        hash,
        // What the cache is made for, for the ready line of a start that cannot use it: mcp.json
        // starts the server with no Node flags (the server sets its own: src/v8-flags.ts).
        madeFor: { node: process.version, nodeFlags: [] },
      }),
    },
    banner: { js: "#!/usr/bin/env node" },
  });
  chmodSync(launcherPath, 0o755);
  return launcherPath;
}

/**
 * mcp.json, the entry of this checkout for an MCP client: `parts-mcp config claude-desktop` of the
 * launcher just built, so its paths are absolute and it starts from any folder (git ignores it).
 */
function writeMcpJson(launcherPath) {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("PARTS_")));
  const entry = execFileSync(process.execPath, [launcherPath, "config", "claude-desktop"], {
    env: { ...env, PARTS_API_ENV: "local" },
    stdio: ["ignore", "pipe", "ignore"],
  });
  writeFileSync(join(root, "mcp.json"), entry);
}

/** Every code cache in `dir`: one made for an earlier bundle is never read again. */
function removeCodeCaches(dir) {
  for (const file of readdirSync(dir)) if (file.endsWith(".v8cache")) rmSync(join(dir, file));
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const { values } = parseArgs({
    options: {
      outdir: { type: "string", default: "dist" },
      sourcemap: { type: "boolean", default: false },
      "no-code-cache": { type: "boolean", default: false },
      metafile: { type: "string" },
    },
  });
  const metafile = await bundle({
    outdir: values.outdir,
    sourcemap: values.sourcemap,
    codeCache: !values["no-code-cache"],
  });
  const bytes = statSync(resolve(root, values.outdir, FILES.bundle)).size;
  console.log(`${values.outdir}/${FILES.bundle}: ${(bytes / 1024).toFixed(1)} KiB (${bytes} bytes)`);
  if (values.metafile) {
    mkdirSync(dirname(resolve(root, values.metafile)), { recursive: true });
    writeFileSync(resolve(root, values.metafile), JSON.stringify(metafile));
  }
}
