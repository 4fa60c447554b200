// `npm run build`: bundles the server with esbuild, as it is. One minified CommonJS file,
// dist/parts-mcp.js (the `parts-mcp` command), so a start reads one file instead of resolving
// hundreds of modules. Two parts that carry large optional dependencies are files of their own,
// required only when used: OpenTelemetry (dist/parts-mcp.telemetry.js, when telemetry is on) and
// the oauth mode (dist/parts-mcp.oauth.js). The oauth mode's embedded store, PGlite, is not
// bundled: it is an optional package, loaded from node_modules only when the oauth mode runs
// without PostgreSQL (src/auth/sql.ts says what to install when it is missing).
// mcp.json, this checkout's entry for an MCP client, is `parts-mcp config claude-desktop` of the
// new build: absolute paths, so a client starts it from any folder (git ignores it).
// No test-only code: the embedded API's fault injection, request statistics and state accessors
// (src/embedded/testing/) are for tests and benchmarks; the build fails when the bundle's inputs
// include any of them.
//
//   node scripts/build.mjs [--outdir dist] [--sourcemap] [--metafile path]
import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { build } from "esbuild";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");

/** What `bundle()` writes into its folder (dist/ for the product). */
export const FILES = {
  server: "parts-mcp.js",
  telemetry: "parts-mcp.telemetry.js",
  oauth: "parts-mcp.oauth.js",
};

/**
 * A part of the server in a file of its own, required only when it is used: `importer` reaches
 * it through one dynamic import of `specifier`, which the server bundle leaves to `file`.
 */
function apart(name, importer, specifier, file) {
  return {
    name,
    setup(build) {
      build.onResolve({ filter: new RegExp(`^${specifier.replaceAll(".", "\\.")}$`) }, (args) => {
        if (!args.importer.endsWith(join(...importer.split("/")))) return undefined;
        return { path: `./${file}`, external: true };
      });
    },
  };
}

const common = {
  absWorkingDir: root,
  bundle: true,
  platform: "node",
  target: "node20",
  // CommonJS, because dependencies written in CommonJS require Node's built-in modules, which an
  // ES module bundle cannot do without a require shim (it throws "Dynamic require of "node:assert"
  // is not supported").
  format: "cjs",
  minify: true,
  legalComments: "none",
  logLevel: "warning",
  // CommonJS has no import.meta: the views find their document beside the bundle through this URL.
  define: { "import.meta.url": "__bundle_url" },
  banner: { js: 'const __bundle_url = require("node:url").pathToFileURL(__filename).href;' },
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

/** Builds the server into `outdir` (fails on test-only code); returns esbuild's metafile of the bundle. */
export async function bundle({ outdir = "dist", sourcemap = false } = {}) {
  const dir = resolve(root, outdir);
  mkdirSync(dir, { recursive: true });
  const serverPath = join(dir, FILES.server);
  const result = await build({
    ...common,
    entryPoints: ["src/cli.ts"],
    outfile: serverPath,
    sourcemap: sourcemap ? "linked" : false,
    metafile: true,
    plugins: [
      apart("telemetry-apart", "src/telemetry/index.ts", "./otel", FILES.telemetry),
      apart("oauth-apart", "src/http/index.ts", "../auth", FILES.oauth),
    ],
    banner: { js: `#!/usr/bin/env node\n${common.banner.js}` },
  });
  try {
    checkNoTestOnlyCode(result.metafile);
  } catch (error) {
    rmSync(serverPath, { force: true });
    rmSync(`${serverPath}.map`, { force: true });
    throw error;
  }
  chmodSync(serverPath, 0o755);
  await build({ ...common, entryPoints: ["src/telemetry/otel.ts"], outfile: join(dir, FILES.telemetry) });
  await build({
    ...common,
    entryPoints: ["src/auth/index.ts"],
    outfile: join(dir, FILES.oauth),
    // oidc-provider tells its models apart by their class names, which minifying would change.
    keepNames: true,
    // pg's optional native binding is never used; PGlite is an optional package (src/auth/sql.ts).
    external: ["pg-native", "@electric-sql/pglite"],
  });
  writeFileSync(join(dir, "package.json"), `${JSON.stringify({ type: "commonjs" })}\n`);
  if (dir === resolve(root, "dist")) writeMcpJson(serverPath);
  return result.metafile;
}

/**
 * mcp.json, the entry of this checkout for an MCP client: `parts-mcp config claude-desktop` of the
 * server just built, so its paths are absolute and it starts from any folder (git ignores it).
 */
function writeMcpJson(serverPath) {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("PARTS_")));
  const entry = execFileSync(process.execPath, [serverPath, "config", "claude-desktop"], {
    env: { ...env, PARTS_API_ENV: "local" },
    stdio: ["ignore", "pipe", "ignore"],
  });
  writeFileSync(join(root, "mcp.json"), entry);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const { values } = parseArgs({
    options: {
      outdir: { type: "string", default: "dist" },
      sourcemap: { type: "boolean", default: false },
      metafile: { type: "string" },
    },
  });
  const metafile = await bundle({ outdir: values.outdir, sourcemap: values.sourcemap });
  const bytes = statSync(resolve(root, values.outdir, FILES.server)).size;
  console.log(`${values.outdir}/${FILES.server}: ${(bytes / 1024).toFixed(1)} KiB (${bytes} bytes)`);
  if (values.metafile) {
    mkdirSync(dirname(resolve(root, values.metafile)), { recursive: true });
    writeFileSync(resolve(root, values.metafile), JSON.stringify(metafile));
  }
}
