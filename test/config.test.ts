// The configuration: each section's defaults and refusals, the command line parsed from one
// declaration per flag, the usage text generated from the same declarations, and the exit codes.
import { spawnSync } from "node:child_process";
import { realpathSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { VERSION } from "../src/app/version";
import {
  API_COMMAND,
  type CommandLine,
  ConfigError,
  LIMITS_DEFAULTS,
  LIMITS_ENV,
  loadApiConfig,
  loadAppsConfig,
  loadCacheConfig,
  loadConfirmWrites,
  loadHttpConfig,
  loadLimitsConfig,
  loadSearchConfig,
  loadSelectionConfig,
  loadTransport,
  type Output,
  parseCommandLine,
  readBoolean,
  readChoice,
  readEnv,
  readInteger,
  readUrl,
  runCommand,
  SERVER_COMMAND,
  usage,
} from "../src/config";
import { CONFIG_COMMAND, writeClientConfig } from "../src/config/clients";
import { repoRoot } from "./support/mcp-server";

const TOKEN = "pat_live_9f8e7d6c5b4a39281716151413121110";
const lab = {
  PARTS_API_ENV: "lab",
  PARTS_API_LAB_URL: "https://lab.parts.example.com",
  PARTS_API_TOKEN: TOKEN,
};

function configError(env: Record<string, string>): ConfigError {
  try {
    loadApiConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    const e = error as ConfigError;
    expect(e.message).not.toContain(TOKEN);
    expect(e.message.trim().split(/\.\s/).length).toBe(1); // one sentence
    return e;
  }
  throw new Error(`expected a ConfigError for ${JSON.stringify(env)}`);
}

describe("defaults", () => {
  it("nothing set: local with the embedded API and its demo token", () => {
    expect(loadApiConfig({})).toEqual({
      environment: "local",
      baseUrl: undefined,
      token: undefined,
      timeoutMs: 30_000,
      attemptTimeoutMs: 15_000,
      maxRetries: 3,
      batchSize: 50,
      maxResponseBytes: 8 * 1024 * 1024,
      logLevel: "info",
    });
  });

  it('empty and blank strings count as unset (MCP clients pass "")', () => {
    const config = loadApiConfig({
      PARTS_API_ENV: "",
      PARTS_API_TOKEN: "",
      PARTS_API_BASE_URL: "  ",
      PARTS_API_TIMEOUT_MS: "",
      PARTS_API_MAX_RETRIES: "",
      PARTS_MCP_LOG_LEVEL: "",
    });
    expect(config).toMatchObject({
      environment: "local",
      token: undefined,
      baseUrl: undefined,
      timeoutMs: 30_000,
    });
  });

  it("reads process.env when given nothing", () => {
    const saved = process.env.PARTS_API_MAX_RETRIES;
    process.env.PARTS_API_MAX_RETRIES = "7";
    try {
      expect(loadApiConfig().maxRetries).toBe(7);
    } finally {
      if (saved === undefined) delete process.env.PARTS_API_MAX_RETRIES;
      else process.env.PARTS_API_MAX_RETRIES = saved;
    }
  });
});

describe("PARTS_API_ENV", () => {
  it.each(["lab", "LAB", " Lab "])("is case-insensitive (%j)", (value) => {
    expect(loadApiConfig({ ...lab, PARTS_API_ENV: value }).environment).toBe("lab");
  });

  it("an unknown value lists the valid ones", () => {
    const error = configError({ PARTS_API_ENV: "staging" });
    expect(error.variable).toBe("PARTS_API_ENV");
    expect(error.message).toContain("local, lab, sandbox, production");
    expect(error.message).toContain('"staging"');
  });

  it("a token without a chosen environment is refused", () => {
    const error = configError({ PARTS_API_TOKEN: TOKEN });
    expect(error.variable).toBe("PARTS_API_ENV");
    expect(error.message).toMatch(/set PARTS_API_ENV/);
  });

  it("local chosen explicitly may use a token", () => {
    expect(loadApiConfig({ PARTS_API_ENV: "local", PARTS_API_TOKEN: TOKEN }).token).toBe(TOKEN);
  });
});

describe("remote environments", () => {
  it.each([
    ["lab", "PARTS_API_LAB_URL"],
    ["sandbox", "PARTS_API_SANDBOX_URL"],
    ["production", "PARTS_API_PRODUCTION_URL"],
  ])("%s uses %s", (environment, variable) => {
    const config = loadApiConfig({
      PARTS_API_ENV: environment,
      [variable]: "https://x.example.com/",
      PARTS_API_TOKEN: TOKEN,
    });
    expect(config).toMatchObject({ environment, baseUrl: "https://x.example.com", token: TOKEN });
    // What advice names: the variable the person set, not PARTS_API_BASE_URL.
    expect(config.baseUrlVariable).toBe(variable);
  });

  it("names PARTS_API_BASE_URL as the URL's variable when it overrides the environment's own", () => {
    const config = loadApiConfig({
      PARTS_API_ENV: "sandbox",
      PARTS_API_SANDBOX_URL: "https://s.example.com",
      PARTS_API_BASE_URL: "https://b.example.com",
      PARTS_API_TOKEN: TOKEN,
    });
    expect(config).toMatchObject({ baseUrl: "https://b.example.com", baseUrlVariable: "PARTS_API_BASE_URL" });
  });

  it("a wrong environment URL is refused naming that variable, never PARTS_API_BASE_URL", () => {
    for (const url of ["ftp://x.example.com", "http://x.example.com", "https://x.example.com/v1"]) {
      const error = configError({
        PARTS_API_ENV: "sandbox",
        PARTS_API_SANDBOX_URL: url,
        PARTS_API_TOKEN: TOKEN,
      });
      expect(error.variable).toBe("PARTS_API_SANDBOX_URL");
      expect(error.message).toContain("PARTS_API_SANDBOX_URL");
      expect(error.message).not.toContain("PARTS_API_BASE_URL");
    }
  });

  it("without a URL: refused, naming the variable", () => {
    const error = configError({
      PARTS_API_ENV: "sandbox",
      PARTS_API_TOKEN: TOKEN,
      PARTS_API_LAB_URL: "https://lab.example.com",
    });
    expect(error.variable).toBe("PARTS_API_SANDBOX_URL");
    expect(error.message).toContain("PARTS_API_SANDBOX_URL");
  });

  it("without a token: refused, naming PARTS_API_TOKEN", () => {
    const error = configError({
      PARTS_API_ENV: "production",
      PARTS_API_PRODUCTION_URL: "https://p.example.com",
    });
    expect(error.variable).toBe("PARTS_API_TOKEN");
    expect(error.message).toContain("PARTS_API_TOKEN");
  });

  it("PARTS_API_BASE_URL overrides the environment's URL and keeps a path prefix", () => {
    const config = loadApiConfig({ ...lab, PARTS_API_BASE_URL: "https://gw.example.com/api//" });
    expect(config.baseUrl).toBe("https://gw.example.com/api");
  });

  it("PARTS_API_BASE_URL alone is enough for a remote environment", () => {
    const config = loadApiConfig({
      PARTS_API_ENV: "lab",
      PARTS_API_BASE_URL: "https://gw.example.com",
      PARTS_API_TOKEN: TOKEN,
    });
    expect(config.baseUrl).toBe("https://gw.example.com");
  });

  it("must be https", () => {
    const error = configError({ ...lab, PARTS_API_LAB_URL: "http://lab.parts.example.com" });
    expect(error.variable).toBe("PARTS_API_LAB_URL");
    expect(error.message).toContain("https://");
  });

  it.each(["http://127.0.0.1:8080", "http://localhost:3000/api", "http://[::1]:9000"])(
    "except on loopback (%s)",
    (url) => {
      expect(loadApiConfig({ ...lab, PARTS_API_LAB_URL: url }).baseUrl).toBe(url);
    },
  );

  it("a non-selected environment's bad URL is ignored", () => {
    expect(loadApiConfig({ ...lab, PARTS_API_PRODUCTION_URL: "nonsense" }).environment).toBe("lab");
  });
});

describe("URLs", () => {
  it.each([
    ["not a url", "absolute http:// or https://"],
    ["ftp://x.example.com", "absolute http:// or https://"],
    ["/relative/path", "absolute http:// or https://"],
    ["https://x.example.com/?a=1", "query string"],
    ["https://x.example.com/#frag", "query string or fragment"],
    ["https://user:pw@x.example.com", "user name or password"],
    ["https://x.example.com/api/v1", "/v1"],
  ])("%s is refused", (url, text) => {
    const error = configError({ ...lab, PARTS_API_BASE_URL: url });
    expect(error.variable).toBe("PARTS_API_BASE_URL");
    expect(error.message).toContain(text);
    if (url.includes("pw")) expect(error.message).not.toContain("pw");
  });

  it("local accepts http on loopback, and elsewhere only without a token", () => {
    expect(loadApiConfig({ PARTS_API_BASE_URL: "http://10.0.0.5:8080" }).baseUrl).toBe(
      "http://10.0.0.5:8080",
    );
    const error = configError({
      PARTS_API_ENV: "local",
      PARTS_API_TOKEN: TOKEN,
      PARTS_API_BASE_URL: "http://10.0.0.5",
    });
    expect(error.variable).toBe("PARTS_API_BASE_URL");
  });

  it("local with a base URL and no token keeps the token undefined (demo token)", () => {
    expect(loadApiConfig({ PARTS_API_BASE_URL: "http://127.0.0.1:7777/" })).toMatchObject({
      environment: "local",
      baseUrl: "http://127.0.0.1:7777",
      token: undefined,
    });
  });
});

describe("the token", () => {
  it("is trimmed", () => {
    expect(loadApiConfig({ ...lab, PARTS_API_TOKEN: `  ${TOKEN}\n` }).token).toBe(TOKEN);
  });

  it("with a Bearer prefix is refused", () => {
    const error = configError({ ...lab, PARTS_API_TOKEN: `Bearer ${TOKEN}` });
    expect(error.variable).toBe("PARTS_API_TOKEN");
    expect(error.message).toContain("Bearer");
  });

  it("with inner spaces or control characters is refused", () => {
    const error = configError({ ...lab, PARTS_API_TOKEN: `${TOKEN} ${TOKEN}` });
    expect(error.variable).toBe("PARTS_API_TOKEN");
  });

  it("never appears in any message, even when put in the wrong variable", () => {
    for (const variable of [
      "PARTS_API_TIMEOUT_MS",
      "PARTS_API_ENV",
      "PARTS_MCP_LOG_LEVEL",
      "PARTS_API_BASE_URL",
    ]) {
      configError({ ...lab, [variable]: TOKEN });
    }
  });
});

describe("numbers", () => {
  it.each([
    ["PARTS_API_TIMEOUT_MS", "timeoutMs", "1200"],
    ["PARTS_API_ATTEMPT_TIMEOUT_MS", "attemptTimeoutMs", "800"],
    ["PARTS_API_MAX_RETRIES", "maxRetries", "0"],
    ["PARTS_API_BATCH_SIZE", "batchSize", "10"],
    ["PARTS_API_MAX_RESPONSE_BYTES", "maxResponseBytes", "65536"],
  ])("%s sets %s", (variable, key, value) => {
    expect(loadApiConfig({ [variable]: value })).toHaveProperty(key, Number(value));
  });

  it.each([
    ["PARTS_API_TIMEOUT_MS", "30s"],
    ["PARTS_API_TIMEOUT_MS", "0"],
    ["PARTS_API_TIMEOUT_MS", "-5"],
    ["PARTS_API_TIMEOUT_MS", "1.5"],
    ["PARTS_API_TIMEOUT_MS", "99999999"],
    ["PARTS_API_ATTEMPT_TIMEOUT_MS", "abc"],
    ["PARTS_API_MAX_RETRIES", "-1"],
    ["PARTS_API_MAX_RETRIES", "11"],
    ["PARTS_API_BATCH_SIZE", "0"],
    ["PARTS_API_MAX_RESPONSE_BYTES", "1e9"],
  ])("%s=%s is refused, naming the variable and the range", (variable, value) => {
    const error = configError({ [variable]: value });
    expect(error.variable).toBe(variable);
    expect(error.message).toMatch(new RegExp(`^${variable} must be a whole number`));
    expect(error.message).toMatch(/from \d+ to \d+/);
    expect(error.message).toContain(`"${value}"`);
  });
});

describe("log level", () => {
  it("is case-insensitive and defaults to info", () => {
    expect(loadApiConfig({ PARTS_MCP_LOG_LEVEL: "DEBUG" }).logLevel).toBe("debug");
    expect(loadApiConfig({ PARTS_MCP_LOG_LEVEL: "silent" }).logLevel).toBe("silent");
  });

  it("an unknown level lists the valid ones", () => {
    const error = configError({ PARTS_MCP_LOG_LEVEL: "verbose" });
    expect(error.message).toContain("debug, info, warn, error, silent");
  });
});

describe("readers for other sections", () => {
  it("readEnv trims and treats blank as unset", () => {
    expect(readEnv({ A: " x " }, "A")).toBe("x");
    expect(readEnv({ A: "" }, "A")).toBeUndefined();
    expect(readEnv({}, "A")).toBeUndefined();
  });

  it("readInteger, readChoice, readBoolean, readUrl", () => {
    expect(readInteger({ N: "5" }, "N", { defaultValue: 1, min: 1, max: 9 })).toBe(5);
    expect(readInteger({}, "N", { defaultValue: 1, min: 1, max: 9 })).toBe(1);
    expect(() => readInteger({ N: "10" }, "N", { defaultValue: 1, min: 1, max: 9 })).toThrow(ConfigError);
    expect(readChoice({ C: "B" }, "C", ["a", "b"] as const, "a")).toBe("b");
    expect(readBoolean({ B: "yes" }, "B", false)).toBe(true);
    expect(readBoolean({ B: "0" }, "B", true)).toBe(false);
    expect(readBoolean({}, "B", true)).toBe(true);
    expect(() => readBoolean({ B: "maybe" }, "B", true)).toThrow(/B must be true or false/);
    expect(readUrl({ U: "https://h.example.com/p/" }, "U")).toBe("https://h.example.com/p");
  });
});

describe("the command line (node:util parseArgs, one declaration per flag)", () => {
  const parse = (argv: string[]) => parseCommandLine(SERVER_COMMAND, argv);
  const refusal = (argv: string[]) => {
    try {
      parse(argv);
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      return (error as ConfigError).message;
    }
    throw new Error(`expected ${argv.join(" ")} to be refused`);
  };

  it("sets the variable each flag mirrors; a value-less flag sets its fixed value", () => {
    const line = parse([
      "--http",
      "--port",
      "9000",
      "--host=::1",
      "--read-only",
      "--no-apps",
      "--tools",
      "parts",
    ]);
    expect(line.values).toEqual({
      PARTS_MCP_TRANSPORT: "http",
      PARTS_MCP_HTTP_PORT: "9000",
      PARTS_MCP_HTTP_HOST: "::1",
      PARTS_MCP_READ_ONLY: "true",
      PARTS_MCP_APPS: "off",
      PARTS_MCP_TOOLS: "parts",
    });
    expect(line.given.map((flag) => flag.flag)).toEqual([
      "--http",
      "--port",
      "--host",
      "--read-only",
      "--no-apps",
      "--tools",
    ]);
    expect(parse(["--stdio", "--http"]).values).toEqual({ PARTS_MCP_TRANSPORT: "http" });
    expect(parse(["--tools", "a", "--tools=b"]).values).toEqual({ PARTS_MCP_TOOLS: "b" });
    expect(parse(["-h"]).help).toBe(true);
    expect(parse(["--version"]).version).toBe(true);
  });

  it.each([
    [["--htttp"], 'Unknown argument "--htttp": see parts-mcp --help for the flags.'],
    [["--htttp=1"], 'Unknown argument "--htttp=1"'],
    [["serve"], 'Unknown argument "serve"'],
    [["--", "--http"], 'Unknown argument "--"'],
    [["-p", "80"], 'Unknown argument "-p"'],
    [["-hx"], 'Unknown argument "-hx"'],
    [["--tools"], "--tools needs a value: see parts-mcp --help."],
    [["--tools="], "--tools needs a value"],
    [["--port", "--http"], "--port needs a value"],
    [["--read-only=yes"], '--read-only takes no value: remove "=yes".'],
    [["--help=me"], '--help takes no value: remove "=me".'],
  ])("refuses %j", (argv, text) => {
    expect(refusal(argv)).toContain(text);
  });

  it("a value beginning with one dash is a value (a negative port is then refused by its reader)", () => {
    expect(parse(["--port", "-1"]).values).toEqual({ PARTS_MCP_HTTP_PORT: "-1" });
  });

  it("an error names the flag when a flag gave the value, the variable otherwise", () => {
    const fromFlag = parse(["--http", "--port", "http"]);
    const error = loadError(() => loadHttpConfig(environmentOf(fromFlag)));
    expect(error.describe(fromFlag.name)).toMatch(
      /^--port must be a whole number from 0 to 65535 \(got "http"\)/,
    );
    expect(error.message).toMatch(/^PARTS_MCP_HTTP_PORT must be a whole number/);

    const fromEnv = parse(["--http"]);
    const same = loadError(() => loadHttpConfig({ PARTS_MCP_HTTP_PORT: "http", ...fromEnv.values }));
    expect(same.describe(fromEnv.name)).toMatch(/^PARTS_MCP_HTTP_PORT must be/);
  });

  it("names every setting in a message by how it was given", () => {
    const line = parse(["--http", "--host", "0.0.0.0", "--allowed-hosts", "mcp.example.com"]);
    const error = loadError(() => loadHttpConfig(environmentOf(line)));
    const text = error.describe(line.name);
    expect(text).toMatch(/^--host is 0\.0\.0\.0, not a loopback address/);
    expect(text).toContain("set PARTS_MCP_ACCESS_KEYS");
    expect(text).toContain("PARTS_MCP_AUTH=per-user");
  });
});

describe("the usage text, generated from the declarations", () => {
  const text = usage(SERVER_COMMAND);

  it("lists every flag with the variable it sets, and -h and --version", () => {
    for (const flag of SERVER_COMMAND.flags) {
      const line = text.split("\n").find((l) => l.trimStart().startsWith(`${flag.flag} `));
      expect(line, flag.flag).toBeDefined();
      expect(line).toContain(flag.description);
      expect(line).toContain(
        flag.sets === undefined ? `(${flag.variable}` : `(${flag.variable}=${flag.sets}`,
      );
      if (flag.httpOnly) expect(line).toContain("with --http only");
    }
    expect(text).toContain("-h, --help");
    expect(text).toContain("--version");
    expect(text).toMatch(
      /^usage: parts-mcp .*\n {7}parts-mcp stdio .*\n {7}parts-mcp api .*\n {7}parts-mcp healthcheck /,
    );
  });

  it("lists every variable a loader reads, with its default", () => {
    const read = new Set<string>();
    const recording = (env: Record<string, string>) =>
      new Proxy(env, {
        get(target, key) {
          if (typeof key === "string") read.add(key);
          return target[key as string];
        },
      });
    for (const environment of ["local", "lab", "sandbox", "production"]) {
      const base = `PARTS_API_${environment.toUpperCase()}_URL`;
      try {
        loadApiConfig(
          recording({ PARTS_API_ENV: environment, [base]: "https://x.example.com", PARTS_API_TOKEN: TOKEN }),
        );
      } catch {}
    }
    loadCacheConfig(recording({}));
    loadSearchConfig(recording({}));
    loadAppsConfig(recording({}));
    loadLimitsConfig(recording({}));
    loadTransport(recording({}));
    loadSelectionConfig(recording({}));
    loadHttpConfig(recording({}));
    expect(read.size).toBeGreaterThan(30);
    for (const variable of read) {
      if (variable === LIMITS_ENV.maxBodyBytes) continue; // the former name, named in its successor's line
      expect(text, variable).toMatch(new RegExp(`^  ${variable}\\b`, "m"));
    }
    expect(text).toContain("PARTS_MCP_SEARCH_PAGES_PER_CALL (default 500)");
    expect(text).toContain("PARTS_MCP_MAX_IN_FLIGHT (default 256)");
    expect(text).toContain(`formerly ${LIMITS_ENV.maxBodyBytes}`);
  });

  it("--auth names every mode that PARTS_MCP_AUTH accepts (as its refusal lists them)", () => {
    let refusal = "";
    try {
      loadHttpConfig({ PARTS_MCP_AUTH: "no-such-mode" });
    } catch (error) {
      refusal = (error as Error).message;
    }
    const modes = /must be (.+?)(?: \(|:)/.exec(refusal)?.[1]?.split(/,? or |, /) ?? [];
    expect(modes).toContain("oauth");
    const line = text.split("\n").find((l) => l.trimStart().startsWith("--auth ")) ?? "";
    const listed = /control: (.+?) \(/.exec(line)?.[1]?.split(/,? or |, /);
    expect(listed).toEqual(modes);
  });

  it("parts-mcp api has its own flags, parsed the same way", () => {
    const api = usage(API_COMMAND);
    for (const flag of ["--port N", "--host H", "--large", "--version"]) expect(api).toContain(flag);
    expect(parseCommandLine(API_COMMAND, ["--port=0", "--large"]).values).toEqual({
      "--port": "0",
      "--large": "true",
    });
    expect(() => parseCommandLine(API_COMMAND, ["--http"])).toThrow(
      'Unknown argument "--http": see parts-mcp api --help for the flags.',
    );
  });
});

describe("runCommand: --help, --version and failures as exit codes", () => {
  const capture = () => {
    const out = { stdout: "", stderr: "" };
    const output: Output = {
      stdout: (text) => {
        out.stdout += text;
      },
      stderr: (text) => {
        out.stderr += text;
      },
    };
    return { out, output };
  };
  const never = async () => {
    throw new Error("should not start");
  };

  it("--version prints the version and exits 0 without starting", async () => {
    const { out, output } = capture();
    expect(await runCommand(SERVER_COMMAND, ["--version"], never, output)).toBe(0);
    expect(out.stdout).toBe(`parts-mcp ${VERSION}\n`);
    expect(VERSION).toMatch(/^\d+\.\d+\.\d+/);
  });

  it("--help prints the usage and exits 0", async () => {
    const { out, output } = capture();
    expect(await runCommand(SERVER_COMMAND, ["--tools", "parts", "-h"], never, output)).toBe(0);
    expect(out.stdout).toBe(`${usage(SERVER_COMMAND)}\n`);
  });

  it("a ConfigError is one line in the words the person used, exit 2", async () => {
    const { out, output } = capture();
    const code = await runCommand(
      SERVER_COMMAND,
      ["--log-level", "loud"],
      async (line) => {
        loadApiConfig(environmentOf(line));
        return undefined;
      },
      output,
    );
    expect(code).toBe(2);
    expect(out.stderr).toBe(
      'parts-mcp: --log-level must be one of debug, info, warn, error, silent (got "loud"): set it to one of them.\n',
    );
    const unknown = capture();
    expect(await runCommand(SERVER_COMMAND, ["--htttp"], never, unknown.output)).toBe(2);
    expect(unknown.out.stderr.trim().split("\n")).toHaveLength(1);
  });

  it("any other error keeps its stack, exit 1; a started server leaves the code undefined", async () => {
    const { out, output } = capture();
    expect(await runCommand(SERVER_COMMAND, [], never, output)).toBe(1);
    expect(out.stderr).toMatch(/^parts-mcp: Error: should not start\n\s+at /);
    expect(await runCommand(SERVER_COMMAND, [], async () => undefined, output)).toBeUndefined();
  });

  it("the installed entry answers --version and refuses an unknown flag", { timeout: 60_000 }, () => {
    const run = (args: string[]) =>
      spawnSync(process.execPath, ["--import", "tsx", "src/cli.ts", ...args], {
        encoding: "utf8",
        timeout: 50_000,
      });
    const version = run(["--version"]);
    expect(version.stdout).toBe(`parts-mcp ${VERSION}\n`);
    expect(version.status).toBe(0);
    const refused = run(["--htttp"]);
    expect(refused.status).toBe(2);
    expect(refused.stderr).toMatch(/^parts-mcp: Unknown argument "--htttp"/);
  });
});

describe("search, views and limits", () => {
  it("search: pages per call and the index budget", () => {
    expect(loadSearchConfig({})).toEqual({ pagesPerCall: 500, indexBudgetBytes: 128 * 1024 * 1024 });
    expect(
      loadSearchConfig({ PARTS_MCP_SEARCH_PAGES_PER_CALL: "5", PARTS_MCP_SEARCH_INDEX_MB: "16" }),
    ).toEqual({ pagesPerCall: 5, indexBudgetBytes: 16 * 1024 * 1024 });
    expect(loadError(() => loadSearchConfig({ PARTS_MCP_SEARCH_PAGES_PER_CALL: "0" })).message).toBe(
      'PARTS_MCP_SEARCH_PAGES_PER_CALL must be a whole number from 1 to 1000 (got "0"): fix it, or remove it to use the default 500.',
    );
    expect(loadError(() => loadSearchConfig({ PARTS_MCP_SEARCH_INDEX_MB: "1.5" })).message).toMatch(
      /^PARTS_MCP_SEARCH_INDEX_MB must be a whole number of MiB from 1 to 65536/,
    );
  });

  it("views: PARTS_MCP_APPS on (default) or off", () => {
    expect(loadAppsConfig({})).toEqual({ enabled: true });
    expect(loadAppsConfig({ PARTS_MCP_APPS: "OFF" })).toEqual({ enabled: false });
    expect(loadAppsConfig({ PARTS_MCP_APPS: "on" })).toEqual({ enabled: true });
    expect(loadAppsConfig({ PARTS_MCP_APPS: "false" })).toEqual({ enabled: false });
    expect(loadAppsConfig(parseCommandLine(SERVER_COMMAND, ["--no-apps"]).values)).toEqual({
      enabled: false,
    });
    expect(loadError(() => loadAppsConfig({ PARTS_MCP_APPS: "maybe" })).message).toBe(
      'PARTS_MCP_APPS must be on or off (got "maybe"): set it to one of them.',
    );
  });

  it("confirmed writes: PARTS_MCP_CONFIRM_WRITES auto (default) or off, flag --confirm-writes", () => {
    expect(loadConfirmWrites({})).toBe("auto");
    expect(loadConfirmWrites({ PARTS_MCP_CONFIRM_WRITES: "OFF" })).toBe("off");
    expect(loadConfirmWrites(parseCommandLine(SERVER_COMMAND, ["--confirm-writes", "off"]).values)).toBe(
      "off",
    );
    expect(loadError(() => loadConfirmWrites({ PARTS_MCP_CONFIRM_WRITES: "always" })).message).toBe(
      'PARTS_MCP_CONFIRM_WRITES must be one of auto, off (got "always"): set it to one of them.',
    );
  });

  it("limits: defaults", () => {
    expect(loadLimitsConfig({})).toEqual({
      maxInFlight: 256,
      maxInFlightPerConnection: 64,
      maxMessageBytes: 1024 * 1024,
      shutdownTimeoutMs: 25_000,
      http: {
        maxConnections: 512,
        headersTimeoutMs: 10_000,
        requestTimeoutMs: 30_000,
        idleTimeoutMs: 65_000,
      },
    });
    expect(loadLimitsConfig({})).toEqual(LIMITS_DEFAULTS);
  });

  it.each([
    ["PARTS_MCP_MAX_IN_FLIGHT", "maxInFlight", "0"],
    ["PARTS_MCP_MAX_IN_FLIGHT_PER_CONNECTION", "maxInFlightPerConnection", "many"],
    ["PARTS_MCP_MAX_MESSAGE_BYTES", "maxMessageBytes", "512"],
    ["PARTS_MCP_SHUTDOWN_TIMEOUT_MS", "shutdownTimeoutMs", "-1"],
    ["PARTS_MCP_HTTP_MAX_CONNECTIONS", "http.maxConnections", "0"],
    ["PARTS_MCP_HTTP_HEADERS_TIMEOUT_MS", "http.headersTimeoutMs", "999"],
    ["PARTS_MCP_HTTP_REQUEST_TIMEOUT_MS", "http.requestTimeoutMs", "10m"],
    ["PARTS_MCP_HTTP_IDLE_TIMEOUT_MS", "http.idleTimeoutMs", "700000"],
  ])("limits: %s is read, and refused out of range", (variable, path, bad) => {
    const good = { "http.headersTimeoutMs": "5000", "http.requestTimeoutMs": "20000" }[path] ?? "2048";
    expect(loadLimitsConfig({ [variable]: good })).toHaveProperty(path, Number(good));
    const error = loadError(() => loadLimitsConfig({ [variable]: bad }));
    expect(error.variable).toBe(variable);
    expect(error.message).toMatch(
      new RegExp(`^${variable} must be a whole number.* from \\d+ to \\d+ \\(got "${bad}"\\)`),
    );
  });

  it("limits: the former PARTS_MCP_MAX_BODY_BYTES still counts, and the new name wins", () => {
    expect(loadLimitsConfig({ PARTS_MCP_MAX_BODY_BYTES: "4096" }).maxMessageBytes).toBe(4096);
    expect(loadHttpConfig({ PARTS_MCP_MAX_BODY_BYTES: "4096" }).maxBodyBytes).toBe(4096);
    expect(
      loadLimitsConfig({ PARTS_MCP_MAX_BODY_BYTES: "4096", PARTS_MCP_MAX_MESSAGE_BYTES: "8192" })
        .maxMessageBytes,
    ).toBe(8192);
    expect(loadError(() => loadLimitsConfig({ PARTS_MCP_MAX_BODY_BYTES: "1" })).variable).toBe(
      "PARTS_MCP_MAX_BODY_BYTES",
    );
  });

  it("limits: the headers cannot take longer than the whole request", () => {
    const error = loadError(() =>
      loadLimitsConfig({
        PARTS_MCP_HTTP_HEADERS_TIMEOUT_MS: "40000",
        PARTS_MCP_HTTP_REQUEST_TIMEOUT_MS: "30000",
      }),
    );
    expect(error.variable).toBe("PARTS_MCP_HTTP_HEADERS_TIMEOUT_MS");
    expect(error.message).toMatch(/is longer than PARTS_MCP_HTTP_REQUEST_TIMEOUT_MS/);
  });
});

function environmentOf(line: CommandLine): Record<string, string> {
  return { ...line.values };
}

function loadError(run: () => unknown): ConfigError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error("expected a ConfigError");
}

describe("parts-mcp config, run from the sources", () => {
  it("names the built dist/parts-mcp.js, and leaves the transport out of the entry's settings", () => {
    vi.stubEnv("PARTS_API_ENV", "local");
    vi.stubEnv("PARTS_MCP_READ_ONLY", "true");
    vi.stubEnv("PARTS_MCP_TRANSPORT", "http");
    try {
      const printed: string[] = [];
      const code = writeClientConfig("claude-desktop", parseCommandLine(CONFIG_COMMAND, []), {
        stdout: (text) => printed.push(text),
        stderr: () => {},
      });
      expect(code).toBe(0);
      const entry = JSON.parse(printed.join("")).mcpServers["parts-mcp"];
      expect(entry.args).toEqual([realpathSync(join(repoRoot, "dist/parts-mcp.js"))]);
      expect(entry.env).toMatchObject({ PARTS_API_ENV: "local", PARTS_MCP_READ_ONLY: "true" });
      expect(entry.env).not.toHaveProperty("PARTS_MCP_TRANSPORT");
    } finally {
      vi.unstubAllEnvs();
    }
  });
});
