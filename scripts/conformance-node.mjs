// A Node 22 binary for the MCP conformance suite, which needs Node 22 while the project itself
// supports and is tested on Node 20. The binary comes from the npm registry (the `node-<os>-<cpu>`
// package that ships it) and is installed apart, into .cache/node22/ (gitignored): as a
// dependency of the project it would put a `node` link in node_modules/.bin, and every npm
// script would then run on Node 22 without anyone noticing.
//
// Fast when cached (one file read); on a fresh clone one `npm install` of that single package.
// Concurrent callers are safe: each installs into its own folder and the first rename wins.
//
//   node scripts/conformance-node.mjs     prints the path of the binary (installing it if needed)
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const MAJOR = 22;
const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const cacheDir = join(root, ".cache");
const installDir = join(cacheDir, `node${MAJOR}`);
const packageName = `node-${process.platform}-${process.arch}`;
const packageDir = (prefix) => join(prefix, "node_modules", packageName);

/** The binary in `prefix`, if a Node of the wanted major is installed there. */
function installedBinary(prefix) {
  const manifest = join(packageDir(prefix), "package.json");
  const binary = join(packageDir(prefix), "bin", "node");
  if (!existsSync(manifest) || !existsSync(binary)) return undefined;
  const { version } = JSON.parse(readFileSync(manifest, "utf8"));
  return String(version).split(".")[0] === String(MAJOR) ? binary : undefined;
}

/** Path of a Node 22 binary: this Node if it is one, else the cached one, installed on first use. */
export function conformanceNode() {
  if (process.versions.node.split(".")[0] === String(MAJOR)) return process.execPath;
  const cached = installedBinary(installDir);
  if (cached) return cached;

  const staging = join(cacheDir, `.node${MAJOR}-${process.pid}-${Date.now()}`);
  mkdirSync(staging, { recursive: true });
  try {
    const npm = process.platform === "win32" ? "npm.cmd" : "npm";
    const args = ["install", "--prefix", staging, "--no-save", "--no-audit", "--no-fund"];
    const result = spawnSync(npm, [...args, `${packageName}@^${MAJOR}`], { encoding: "utf8" });
    if (result.status !== 0) {
      throw new Error(
        `could not install ${packageName}@^${MAJOR} (the conformance suite needs Node ${MAJOR}): ` +
          `${result.error?.message ?? ""}${result.stderr ?? ""}`.trim(),
      );
    }
    if (!installedBinary(staging)) throw new Error(`${packageName}@^${MAJOR} installed no bin/node`);
    // Another process may have finished first: then its copy stays and this one goes.
    if (!installedBinary(installDir)) {
      rmSync(installDir, { recursive: true, force: true });
      try {
        renameSync(staging, installDir);
      } catch (error) {
        if (!installedBinary(installDir)) throw error;
      }
    }
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  const installed = installedBinary(installDir);
  if (!installed) throw new Error(`no Node ${MAJOR} binary in ${installDir} after installing it`);
  return installed;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  console.log(conformanceNode());
}
