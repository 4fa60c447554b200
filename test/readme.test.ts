// The README as a user follows it: every command in its `sh` blocks is run here (servers on the
// ports it names are started on free ports instead, and the commands pointed at them), or, where
// running it here makes no sense (npm install inside the test suite, a download), matched to the
// test that covers it. A command no rule knows fails the test, so a new one cannot go unchecked.
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { withToolsTable } from "../scripts/readme-tools";
import { clientEnv, elsewhere, launcher, startAsClient } from "./install/support";
import { repoRoot } from "./support/mcp-server";

const readme = readFileSync(join(repoRoot, "README.md"), "utf8");
const packageJson = JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8"));

/** The fenced blocks of one language, in order. */
function blocks(language: string): string[] {
  return [...readme.matchAll(new RegExp(`^\`\`\`${language}\\n([\\s\\S]*?)^\`\`\`$`, "gm"))].map(
    (match) => match[1] as string,
  );
}

/** Every command line of the `sh` blocks, without its trailing comment. */
const commands = blocks("sh")
  .flatMap((block) => block.split("\n"))
  .map((line) => line.replace(/\s+#\s.*$/, "").trim())
  .filter((line) => line !== "");

/** Commands this test does not run, each with the test that covers what it does. */
const COVERED_ELSEWHERE: Record<string, string> = {
  "npm install": "test/install/client-config.test.ts", // the build it runs writes mcp.json
  "npm run bundle": "test/install/mcpb.test.ts",
  "npm run image": "test/deploy/image.test.ts",
};

/** The test that runs the README's `podman run` lines, each as written but for names and port. */
const PODMAN_RUN_TEST = "test/deploy/image.test.ts";

const running: ChildProcess[] = [];
afterAll(() => {
  for (const child of running) child.kill("SIGTERM");
});

/** Starts `args` of the built server in the background and waits for `ready` in its output. */
async function startInBackground(args: string[], ready: RegExp): Promise<string> {
  const child = spawn(process.execPath, [launcher, ...args], {
    cwd: repoRoot,
    env: clientEnv({ PARTS_API_ENV: "local" }),
    stdio: ["ignore", "pipe", "pipe"],
  });
  running.push(child);
  let output = "";
  return new Promise((resolve, reject) => {
    const look = (chunk: Buffer) => {
      output += chunk.toString();
      const found = ready.exec(output)?.[1];
      if (found) resolve(found);
    };
    child.stdout.on("data", look);
    child.stderr.on("data", look);
    child.once("exit", (code) => reject(new Error(`${args.join(" ")} exited (${code}): ${output}`)));
  });
}

/** Runs one README command line in a shell from the clone; its output. */
function shell(line: string): string {
  const result = spawnSync("sh", ["-c", line], {
    cwd: repoRoot,
    env: clientEnv(),
    encoding: "utf8",
    timeout: 20_000,
  });
  expect(result.status, `${line}\n${result.stderr}`).toBe(0);
  return result.stdout;
}

describe("README", () => {
  it("has the tool table the registry generates (run `npm run docs` after changing a tool)", () => {
    expect(readme).toBe(withToolsTable(readme));
  });

  it("keeps the headings other documents link to", () => {
    for (const heading of ["## Install and connect", "## Configuration", "## Limits", "## Decisions"]) {
      expect(readme).toContain(`\n${heading}\n`);
    }
    for (const doc of ["docs/architecture.md", "docs/performance.md", "docs/security.md"]) {
      expect(readme).toContain(`](${doc}`);
      expect(readFileSync(join(repoRoot, doc), "utf8").length).toBeGreaterThan(500);
    }
  });

  it("gives, first, the npx entry that `parts-mcp config --npx` prints", () => {
    const first = JSON.parse(blocks("json")[0] as string);
    expect(first).toEqual({ mcpServers: { "parts-mcp": { command: "npx", args: ["-y", "parts-mcp"] } } });
    const printed = JSON.parse(shell("node dist/parts-mcp.js config claude-desktop --npx"));
    const { command, args } = printed.mcpServers["parts-mcp"];
    expect({ command, args }).toEqual(first.mcpServers["parts-mcp"]);
  });

  it("shows what `parts-mcp config claude-code` prints, with this machine's paths", () => {
    const shown = blocks("text").find((block) => block.startsWith("claude mcp add")) as string;
    const line = commands.find((command) => command.includes("config claude-code")) as string;
    const printed = shell(line)
      .replace(process.execPath, "/usr/bin/node")
      .replace(launcher, "/path/to/parts-mcp/dist/parts-mcp.js");
    expect(printed).toBe(shown);
  });

  it("runs every command of its sh blocks, or names the test that does", async () => {
    expect(commands.length).toBeGreaterThan(8);
    const unchecked: string[] = [];
    let apiUrl: string | undefined;
    let mcpUrl: string | undefined;
    for (const line of commands) {
      if (COVERED_ELSEWHERE[line]) {
        expect(readFileSync(join(repoRoot, COVERED_ELSEWHERE[line]), "utf8")).not.toBe("");
        expect(packageJson.scripts[line.replace(/^npm (run )?/, "")] ?? line === "npm install").toBeTruthy();
      } else if (line.startsWith("podman run ")) {
        expect(readFileSync(join(repoRoot, PODMAN_RUN_TEST), "utf8")).toContain("readmeRunLines()");
      } else if (/^(\w+=\S+ )*node dist\/parts-mcp\.js config /.test(line)) {
        expect(shell(line).trim()).not.toBe("");
      } else if (/^node dist\/parts-mcp\.js --http\b/.test(line)) {
        // The ports it names may be taken: the same command on a free one.
        const args = line
          .split(" ")
          .slice(2)
          .filter((arg, i, all) => arg !== "--port" && all[i - 1] !== "--port");
        const url = await startInBackground([...args, "--port", "0"], /ready on (http:\/\/\S+?)["\s]/);
        mcpUrl ??= url;
      } else if (/^node dist\/parts-mcp\.js api --port 8787 &$/.test(line)) {
        apiUrl = await startInBackground(["api", "--port", "0"], /listening on (http:\/\/\S+)/);
      } else if (line.startsWith("curl ") && line.includes("127.0.0.1:8788/mcp")) {
        expect(mcpUrl, "a curl to /mcp comes after the command that starts the server").toBeDefined();
        const answer = shell(line.replace("http://127.0.0.1:8788/mcp", mcpUrl as string));
        expect(answer).toContain('"result"');
      } else if (line.startsWith("curl ") && line.includes("127.0.0.1:8787")) {
        expect(apiUrl, "a curl to the API comes after the command that starts it").toBeDefined();
        const answer = JSON.parse(shell(line.replace("http://127.0.0.1:8787", apiUrl as string)));
        expect(answer.items.length).toBeGreaterThan(0);
      } else if (line.startsWith("npx @modelcontextprotocol/inspector ")) {
        // The Inspector itself is a download; the server command it is given is run as it runs it.
        const [command, ...args] = line.slice("npx @modelcontextprotocol/inspector ".length).split(" ");
        expect(command).toBe("node");
        const server = await startAsClient(
          process.execPath,
          args.map((arg) => join(repoRoot, arg)),
          clientEnv(),
          elsewhere(),
        );
        expect((await server.client.listTools()).tools.length).toBeGreaterThan(0);
        await server.close();
      } else {
        unchecked.push(line);
      }
    }
    expect(unchecked, "README commands that no rule of this test runs or covers").toEqual([]);
  }, 60_000);
});
