// Headless Chromium for the view tests, from the project's own install: @sparticuz/chromium ships
// the binary brotli-packed inside the npm package (executablePath() unpacks it to the temp
// directory, ~2 s the first time), so `npm ci` is all a fresh machine needs. CHROMIUM_PATH runs a
// system Chromium instead.
// - Shared libraries: the binary needs nss, nspr and expat. When the system lacks them (ldd says
//   "not found"), the copies the package carries for Amazon Linux 2023 are unpacked and put on
//   LD_LIBRARY_PATH; they need only glibc.
// - Fonts: the package's Open Sans is added to the system's fonts through a fontconfig file of our
//   own, so that a machine without fonts still renders text, and screenshots use the same face.
// - None of the package's serverless flags (--single-process, --disable-web-security, ...): the
//   tests rely on the browser's same-origin policy, which those would turn off.
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import Chromium, { inflate } from "@sparticuz/chromium";
import { type Browser, chromium } from "playwright-core";

/** Libraries the executable cannot find, as ldd reports them. */
function missingLibraries(executable: string, env: NodeJS.ProcessEnv): string[] {
  try {
    const output = execFileSync("ldd", [executable], { env, encoding: "utf8" });
    return output
      .split("\n")
      .flatMap((line) => (line.includes("not found") ? [line.trim().split(" ")[0] ?? line] : []));
  } catch {
    return []; // no ldd (not glibc Linux): let the launch itself report what is wrong
  }
}

/** The system's fontconfig, when there is one, plus the package's fonts. */
function fontConfig(): string {
  const dir = join(tmpdir(), "parts-mcp-fonts");
  mkdirSync(dir, { recursive: true });
  const file = join(dir, "fonts.conf");
  writeFileSync(
    file,
    [
      '<?xml version="1.0"?><!DOCTYPE fontconfig SYSTEM "fonts.dtd"><fontconfig>',
      '<include ignore_missing="yes">/etc/fonts/fonts.conf</include>',
      `<dir>${join(tmpdir(), "fonts")}</dir><cachedir>${join(dir, "cache")}</cachedir>`,
      "</fontconfig>",
    ].join(""),
  );
  return file;
}

export interface LaunchedBrowser {
  browser: Browser;
  /** Where the binary came from, for the test log. */
  source: string;
}

export async function launchBrowser(): Promise<LaunchedBrowser> {
  const system = process.env.CHROMIUM_PATH;
  if (system) {
    return { browser: await chromium.launch({ executablePath: system }), source: `CHROMIUM_PATH=${system}` };
  }
  const executablePath = await Chromium.executablePath();
  const env: NodeJS.ProcessEnv = { ...process.env, FONTCONFIG_FILE: fontConfig() };
  let missing = missingLibraries(executablePath, env);
  const ownLibraries = missing.length > 0;
  if (ownLibraries) {
    const packageDir = dirname(dirname(createRequire(import.meta.url).resolve("@sparticuz/chromium")));
    const libraries = join(await inflate(join(packageDir, "bin", "al2023.tar.br")), "lib");
    env.LD_LIBRARY_PATH = [libraries, env.LD_LIBRARY_PATH].filter(Boolean).join(":");
    missing = missingLibraries(executablePath, env);
    if (missing.length > 0) {
      throw new Error(
        `Chromium from @sparticuz/chromium cannot start here: missing ${missing.join(", ")}. Install them, or set CHROMIUM_PATH to a Chromium of this system.`,
      );
    }
  }
  const browser = await chromium.launch({ executablePath, env });
  const libraries = ownLibraries ? " with the package's own nss, nspr and expat" : "";
  return { browser, source: `@sparticuz/chromium ${browser.version()}${libraries}` };
}
