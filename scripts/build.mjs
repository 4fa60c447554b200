// Bundles the server into one file: loading one module instead of hundreds is what makes
// the cold start fast (the SDK alone costs ~150 ms when Node resolves it module by module).
import { chmodSync } from "node:fs";
import { build } from "esbuild";

await build({
  entryPoints: ["src/cli.ts"],
  outfile: "dist/parts-mcp.js",
  bundle: true,
  platform: "node",
  target: "node20",
  format: "esm",
  minifySyntax: true,
  legalComments: "none",
  logLevel: "warning",
  banner: {
    js: [
      "#!/usr/bin/env node",
      'import { createRequire as __createRequire } from "node:module";',
      "const require = __createRequire(import.meta.url);",
    ].join("\n"),
  },
});

chmodSync("dist/parts-mcp.js", 0o755);
