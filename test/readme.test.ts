// The README and docs/ as a user follows them: every command in their `sh` blocks is run here
// (servers on the ports they name are started on free ports instead, and the commands pointed at
// them), or, where running it here makes no sense (npm ci inside the test suite, a download),
// matched to the test that covers it. A command no rule knows fails the test, so a new one cannot
// go unchecked. The README stays short, its links lead somewhere, and what it says the sample data
// answers is what the built server answers.
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { GENERATED, withToolsTable } from "../scripts/readme-tools";
import { clientEnv, elsewhere, launcher, startAsClient } from "./install/support";
import { repoRoot } from "./support/mcp-server";

const read = (path: string) => readFileSync(join(repoRoot, path), "utf8");
const readme = read("README.md");
const packageJson = JSON.parse(read("package.json"));
const serverJson = JSON.parse(read("server.json"));

/** The README, then every document of docs/. */
const DOCUMENTS = [
  "README.md",
  ...readdirSync(join(repoRoot, "docs"))
    .filter((name) => name.endsWith(".md"))
    .sort()
    .map((name) => `docs/${name}`),
];

/** The fenced blocks of one language in `text`, in order. */
function blocks(text: string, language: string): string[] {
  return [...text.matchAll(new RegExp(`^\`\`\`${language}\\n([\\s\\S]*?)^\`\`\`$`, "gm"))].map(
    (match) => match[1] as string,
  );
}

/** Every command line of a document's `sh` blocks, without its trailing comment. */
function commandsOf(text: string): string[] {
  return blocks(text, "sh")
    .flatMap((block) => block.split("\n"))
    .map((line) => line.replace(/\s+#\s.*$/, "").trim())
    .filter((line) => line !== "");
}

/** Commands this test does not run, each with the test that covers what it does. */
const COVERED_ELSEWHERE: Record<string, string> = {
  "npm ci": "test/install/client-config.test.ts", // the build its `prepare` runs writes mcp.json
  "npm install": "test/install/client-config.test.ts", // the same build, through `prepare`
  "npm test": ".ci/run", // CI runs it, and this test runs inside it
  "bash .ci/run": ".ci/run",
  "npm run build": "test/install/client-config.test.ts",
  "npm run bundle": "test/install/mcpb.test.ts",
  "npm run image": "test/deploy/image.test.ts",
};

/** The test that runs the `podman run` lines of docs/deploying.md, each as written but for names and port. */
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

/** Runs one command line in a shell from the clone; its output. */
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

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
function anchorOf(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, "")
    .replaceAll(" ", "-");
}

/** Runs or checks every command of one document; the lines no rule covers. */
async function checkCommands(document: string): Promise<string[]> {
  const unchecked: string[] = [];
  let apiUrl: string | undefined;
  let mcpUrl: string | undefined;
  for (const line of commandsOf(read(document))) {
    if (COVERED_ELSEWHERE[line]) {
      expect(read(COVERED_ELSEWHERE[line])).not.toBe("");
      // `npm ci` and `npm install` build through the `prepare` script; `.ci/run` runs `npm test`.
      const installs = line === "npm ci" || line === "npm install";
      if (line === "bash .ci/run") expect(read(".ci/run")).toContain("npm test");
      else {
        const script = installs ? "prepare" : line.replace(/^npm (run )?/, "");
        expect(packageJson.scripts[script]).toBeTruthy();
      }
      if (line === "npm test") expect(read(".ci/run")).toContain("npm test");
      if (installs) expect(packageJson.scripts.prepare).toContain("npm run build");
    } else if (line.startsWith("git clone ")) {
      // This test runs inside such a clone; the address is the repository the releases name.
      const repository = line.slice("git clone ".length).replace(/\.git$/, "");
      const mcpbEntry = serverJson.packages.find(
        (entry: { registryType: string }) => entry.registryType === "mcpb",
      );
      expect(mcpbEntry.identifier.startsWith(`${repository}/releases/`)).toBe(true);
    } else if (line.startsWith("cd ")) {
      expect(line).toBe(`cd ${packageJson.name}`);
    } else if (line.startsWith("podman run ")) {
      expect(read(PODMAN_RUN_TEST)).toContain("deployingRunLines()");
    } else if (/^(\w+=\S+ )*node dist\/parts-mcp\.js (config |--help$)/.test(line)) {
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
      unchecked.push(`${document}: ${line}`);
    }
  }
  return unchecked;
}

describe("README", () => {
  it("is for people: at most 300 lines, with the sections a newcomer looks for", () => {
    expect(readme.split("\n").length).toBeLessThanOrEqual(300);
    for (const heading of [
      "## Install and connect",
      "## A first question",
      "## Settings most people need",
      "## Tools",
      "## Resources, prompts and views",
      "## HTTP and the remote connector",
      "## Limits",
      "## Development",
    ]) {
      expect(readme).toContain(`\n${heading}\n`);
    }
    // Set-up and test commands a newcomer runs first.
    expect(readme).toMatch(/\nnpm install\s/);
    expect(readme).toMatch(/\nnpm test\s/);
  });

  it("has the tool tables the registry generates (run `npm run docs` after changing a tool)", () => {
    for (const which of GENERATED) {
      const text = read(which.file);
      expect(text, which.file).toBe(withToolsTable(text, which));
    }
  });

  it("links only to files and headings that exist, in the README and in docs/", () => {
    const broken: string[] = [];
    for (const document of DOCUMENTS) {
      for (const [, target] of read(document).matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/.test(target as string)) continue;
        const [path, anchor] = (target as string).split("#");
        const file = path ? join(dirname(document), path) : document;
        if (!existsSync(join(repoRoot, file))) {
          broken.push(`${document}: ${target}`);
        } else if (anchor && file.endsWith(".md")) {
          const headings = [...read(file).matchAll(/^#+ (.+)$/gm)].map((match) =>
            anchorOf(match[1] as string),
          );
          if (!headings.includes(anchor)) broken.push(`${document}: ${target}`);
        }
      }
    }
    expect(broken).toEqual([]);
    for (const doc of [
      "configuration",
      "tools",
      "deploying",
      "decisions",
      "architecture",
      "security",
      "performance",
    ]) {
      expect(readme).toContain(`](docs/${doc}.md`);
    }
  });

  it("names only files of the project that exist, in the README and in docs/", () => {
    const missing: string[] = [];
    for (const document of DOCUMENTS) {
      const named = read(document).matchAll(
        /`((?:src|scripts|test|deploy|ui|docs|registry|mcpb)\/[^`\s*<>{}]+|tools\/[\w-]+\.ts)`/g,
      );
      for (const [, path] of named) {
        if (!existsSync(join(repoRoot, path as string))) missing.push(`${document}: ${path}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it("says the package is not published yet, and gives the npx entry `parts-mcp config --npx` prints", () => {
    expect(readme).toMatch(/not published on npm yet/);
    const shown = JSON.parse(blocks(readme, "json").find((block) => block.includes('"npx"')) as string);
    expect(shown).toEqual({ mcpServers: { "parts-mcp": { command: "npx", args: ["-y", "parts-mcp"] } } });
    const printed = JSON.parse(shell("node dist/parts-mcp.js config claude-desktop --npx"));
    const { command, args } = printed.mcpServers["parts-mcp"];
    expect({ command, args }).toEqual(shown.mcpServers["parts-mcp"]);
  });

  it("shows what `parts-mcp config claude-code` prints, with this machine's paths", () => {
    const shown = blocks(readme, "text").find((block) => block.startsWith("claude mcp add")) as string;
    const line = commandsOf(readme).find((command) => command.includes("config claude-code")) as string;
    const printed = shell(line)
      .replace(process.execPath, "/usr/bin/node")
      .replace(launcher, "/path/to/parts-mcp/dist/parts-mcp.js");
    expect(printed).toBe(shown);
  });

  it("answers the first questions with what the built server answers on the sample data", async () => {
    const section = readme.split("\n## A first question\n")[1]?.split("\n## ")[0] ?? "";
    const call = /`search_parts (\{[^`]+\})`/.exec(section)?.[1] as string;
    const flat = section.replace(/\s+/g, " ");
    const said = (pattern: RegExp) => Number(pattern.exec(flat)?.[1]);
    /** The README's words for a list: "A, B and C" as ["A", "B", "C"]. */
    const listed = (pattern: RegExp) => pattern.exec(flat)?.[1]?.split(/, | and /);
    const server = await startAsClient(process.execPath, [launcher], clientEnv(), elsewhere());
    try {
      const found = await server.client.callTool({ name: "search_parts", arguments: JSON.parse(call) });
      const { items, complete } = found.structuredContent as {
        items: { materialId: string; title: string; versionName?: string; id: string; matched?: string }[];
        complete: boolean;
      };
      const made = (material: string) => items.filter((item) => item.materialId === material).length;
      expect(complete).toBe(true);
      expect(items.length).toBe(said(/answers (\d+) parts in one call/));
      expect(made("ti64")).toBe(said(/(\d+) made of Ti-6Al-4V Grade 5/));
      expect(made("ti64-eli")).toBe(said(/(\d+) made of the ELI grade/));
      expect(made("ss-316l")).toBe(said(/(\d+) stainless-steel bone screws/));
      expect(made("ti64") + made("ti64-eli")).toBe(said(/tell the (\d+) made of it/));
      const matchedSaid = /`"matched": "([^"]+)"`/.exec(flat)?.[1];
      expect(matchedSaid).toBeDefined();
      expect(items.map((item) => item.matched)).toContain(matchedSaid);

      // The outboard engine mount bracket, Rev A, described in one call.
      const bracket = (
        await server.client.callTool({
          name: "search_parts",
          arguments: { text: "outboard engine mount bracket Rev A" },
        })
      ).structuredContent as { items: { id: string }[] };
      expect(bracket.items).toHaveLength(1);
      const described = (
        await server.client.callTool({ name: "describe_part", arguments: { id: bracket.items[0]?.id } })
      ).structuredContent as { standards: { code: string }[]; criticalities: { name: string }[] };
      const standardsSaid = listed(/in one call: ((?:[A-Z]+ [A-Z]?\d+(?:, | and )?)+);/);
      expect(standardsSaid).toEqual(described.standards.map((standard) => standard.code));
      // "flight safety critical, with a key characteristic": how each criticality's name begins.
      const criticalitiesSaid =
        /in one call: (?:[A-Z]+ [A-Z]?\d+(?:, | and )?)+; ([^,;]+), with an? ([^.;]+)\./
          .exec(flat)
          ?.slice(1) ?? [];
      expect(criticalitiesSaid).toHaveLength(2);
      expect(
        described.criticalities.map((criticality, i) =>
          criticality.name.toLowerCase().slice(0, criticalitiesSaid[i]?.length),
        ),
      ).toEqual(criticalitiesSaid);

      // The pasted list, as the README shows it, in one resolve_parts call.
      const pasted = /> ```\n([\s\S]*?)> ```/.exec(section)?.[1] as string;
      const lines = pasted
        .split("\n")
        .map((line) => line.replace(/^> /, ""))
        .filter((line) => line !== "");
      const resolved = (await server.client.callTool({ name: "resolve_parts", arguments: { lines } }))
        .structuredContent as {
        items: {
          status: string;
          quantity?: number;
          matchedBy: string;
          confidence: number;
          alternatives?: unknown[];
        }[];
      };
      const statuses = resolved.items.map((item) => item.status);
      expect(statuses.filter((status) => status === "match").length).toBe(said(/gives (\d+) matches/));
      expect(statuses.filter((status) => status === "ambiguous").length).toBe(
        said(/matches and (\d+) ambiguous/),
      );
      expect(resolved.items.map((item) => item.quantity).filter(Boolean)).toEqual(
        listed(/The quantities ([\d, and]+) are read/)?.map(Number),
      );
      const [serial, title, manifold, hinge, reference] = resolved.items;
      expect([serial?.matchedBy, serial?.confidence, reference?.matchedBy, reference?.confidence]).toEqual([
        "serialId",
        1,
        "externalRef",
        1,
      ]);
      expect([title?.matchedBy, title?.confidence]).toEqual([
        "title",
        said(/its title and revision \((0\.\d+)\)/),
      ]);
      expect(manifold?.alternatives?.length).toBe(said(/brake" has (\d+) parts of that title/));
      expect(hinge?.alternatives?.length).toBe(said(/finds the (\d+) aileron hinge fittings/));

      // The comparison, of the two revisions it names by serial id, each with its process.
      const [, serialSaid, ...processesSaid] =
        /Rev A \(`([^`]+)`\) is made by ([^;]+?) and Rev B by ([^;]+?);/.exec(flat) ?? [];
      const revisions = (
        await server.client.callTool({ name: "search_parts", arguments: { text: serialSaid } })
      ).structuredContent as { items: { id: string; versionName?: string }[] };
      const ids = ["Rev A", "Rev B"].map(
        (version) => revisions.items.find((item) => item.versionName === version)?.id,
      );
      const compared = (await server.client.callTool({ name: "compare_parts", arguments: { ids } }))
        .structuredContent as {
        fields: { field: string; status: string; values: unknown[] }[];
        standards: { common: string[]; byPart: Record<string, string[]> };
      };
      const field = (name: string) => compared.fields.find((each) => each.field === name);
      expect(field("processId")?.status).toBe("different");
      expect(processesSaid).toHaveLength(2);
      expect(field("processId")?.values.map((value) => String(value).toLowerCase())).toEqual(
        processesSaid.map((name) => expect.stringContaining(name)),
      );
      const codes = (named: string[] | undefined) => named?.map((code) => code.split(" (")[0]);
      expect(codes(compared.standards.common)).toEqual(listed(/both are made to ([^;]+?) and Rev B adds/));
      expect(codes(compared.standards.byPart[ids[1] as string])).toEqual(listed(/and Rev B adds ([^;]+);/));
      expect(field("externalRef")?.status).toBe("unknown");
      expect(field("externalRef")?.values[0]).toBeNull();
      expect(field("externalRef")?.values[1]).not.toBeNull();
      expect(field("serialId")?.values[0]).toBe(serialSaid);
    } finally {
      await server.close();
    }
  }, 60_000);

  it("runs every command of the README's and docs' sh blocks, or names the test that does", async () => {
    expect(commandsOf(readme).length).toBeGreaterThan(6);
    const unchecked: string[] = [];
    for (const document of DOCUMENTS) unchecked.push(...(await checkCommands(document)));
    expect(unchecked, "commands that no rule of this test runs or covers").toEqual([]);
  }, 90_000);
});
