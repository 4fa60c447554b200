import { describe, expect, it } from "vitest";
import {
  ConfigError,
  loadApiConfig,
  readBoolean,
  readChoice,
  readEnv,
  readInteger,
  readUrl,
} from "../src/config";

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
