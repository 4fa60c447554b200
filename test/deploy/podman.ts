// podman as the image test drives it: with the repository's containers.conf (runc, cgroupfs, no
// default ulimits), each command's output returned and a failure thrown with podman's own words.
import { execFile, spawn } from "node:child_process";
import { join } from "node:path";
import { repoRoot } from "../support/mcp-server";

export const podmanEnv = {
  ...process.env,
  CONTAINERS_CONF: process.env.CONTAINERS_CONF ?? join(repoRoot, "deploy", "containers.conf"),
};

export interface Finished {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `podman ...args`; resolves with how it ended, whatever the exit code. */
export function podmanRun(args: string[], env: NodeJS.ProcessEnv = podmanEnv): Promise<Finished> {
  return new Promise((resolve, reject) => {
    execFile(
      "podman",
      args,
      { env, maxBuffer: 16 * 1024 * 1024, timeout: 120_000 },
      (error, stdout, stderr) => {
        if (error && typeof error.code !== "number") reject(error);
        else resolve({ code: error ? (error.code as number) : 0, stdout, stderr });
      },
    );
  });
}

/** Runs `podman ...args` and returns its stdout, trimmed; throws when it fails. */
export async function podman(args: string[], env?: NodeJS.ProcessEnv): Promise<string> {
  const { code, stdout, stderr } = await podmanRun(args, env);
  if (code !== 0) throw new Error(`podman ${args.join(" ")} exited ${code}: ${stderr.trim()}`);
  return stdout.trim();
}

/** Polls `check` every 250 ms until it is true, or throws after `ms` with `what`. */
export async function waitFor(what: string, ms: number, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`gave up after ${ms} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** Builds the image with `npm run image`'s script under `tag`; its output on failure. */
export function buildImage(tag: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["deploy/image.mjs", "--tag", tag], {
      cwd: repoRoot,
      env: podmanEnv,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk;
    });
    child.stderr.on("data", (chunk: Buffer) => {
      output += chunk;
    });
    child.once("exit", (code) =>
      code === 0 ? resolve() : reject(new Error(`deploy/image.mjs exited ${code}:\n${output.slice(-4000)}`)),
    );
  });
}
