// Builds the MCP Apps view document: ui/src bundled with ext-apps' App runtime and ui/styles.css
// into ONE self-contained HTML file (no CDN, no network: it must work under the spec's default
// CSP), dist/ui/parts-view.html, which the server reads at run time (src/mcp/views.ts).
// - zod's `locales` keep English only: the other languages are most of zod, the view never shows
//   a zod message, and every host downloads the document.
// - The script is inlined, so `</script` and `<!--` are escaped in it.
// - It prints the document's size and how much of it is our own code (target: ≤ 50 KiB).
//
//   node scripts/build-ui.mjs [--outfile dist/ui/parts-view.html]
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { build, transform } from "esbuild";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");

export const VIEW_DOCUMENT = "dist/ui/parts-view.html";

/** zod's `locales` namespace with English only, for a browser bundle. */
export const zodEnglishOnly = {
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

/** Text that would end or confuse an inline <script> element, escaped the same way JS reads it. */
export function escapeInlineScript(js) {
  return js.replace(/<\/(script)/gi, "<\\/$1").replace(/<!--/g, "<\\!--");
}

/**
 * Bundles the views and returns the HTML document with its sizes in bytes: `total`, `ours` (our
 * sources, styles and the HTML around them) and `runtime` (ext-apps' App and its dependencies).
 */
export async function buildViewDocument() {
  const result = await build({
    absWorkingDir: root,
    entryPoints: ["ui/src/main.ts"],
    bundle: true,
    write: false,
    format: "iife",
    platform: "browser",
    target: ["chrome111", "firefox113", "safari16.4"],
    minify: true,
    legalComments: "none",
    charset: "utf8",
    metafile: true,
    logLevel: "warning",
    plugins: [zodEnglishOnly],
  });
  const js = escapeInlineScript(result.outputFiles[0].text);
  if (/<\/script/i.test(js)) throw new Error("the view bundle still contains </script after escaping");
  const css = (
    await transform(readFileSync(join(root, "ui/styles.css"), "utf8"), { loader: "css", minify: true })
  ).code.trim();
  const before = [
    "<!doctype html>",
    '<html lang="en">',
    "<head>",
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<meta name="color-scheme" content="light dark">',
    "<title>Parts</title>",
    `<style>${css}</style>`,
    "</head>",
    '<body><main id="app"></main><script>',
  ].join("");
  const after = "</script></body></html>";
  const html = before + js + after;

  const [output] = Object.values(result.metafile.outputs);
  let ownJs = 0;
  for (const [path, { bytesInOutput }] of Object.entries(output.inputs)) {
    if (!path.includes("node_modules")) ownJs += bytesInOutput;
  }
  const bytes = (text) => Buffer.byteLength(text, "utf8");
  const total = bytes(html);
  const ours = ownJs + bytes(before) + bytes(after) + (bytes(js) - bytes(result.outputFiles[0].text));
  return { html, total, ours, runtime: total - ours };
}

/** Builds and writes the document; returns its sizes. */
export async function buildUi({ outfile = VIEW_DOCUMENT } = {}) {
  const built = await buildViewDocument();
  const path = resolve(root, outfile);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, built.html);
  return { path, ...built };
}

const kib = (n) => `${(n / 1024).toFixed(1)} KiB`;

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const { values } = parseArgs({ options: { outfile: { type: "string", default: VIEW_DOCUMENT } } });
  const { total, ours, runtime } = await buildUi({ outfile: values.outfile });
  console.log(
    `${values.outfile}: ${kib(total)} (ours ${kib(ours)}, App runtime and dependencies ${kib(runtime)})`,
  );
}
