// The one place that reads process.env. Every loader takes an `Env` (the process environment by
// default, a plain object in tests), so no request helper ever reads the environment itself.

export type Env = Readonly<Record<string, string | undefined>>;

/** The process environment as it is now. */
export function processEnv(): Env {
  return process.env;
}

/** The process environment with `overrides` (the command-line flags) on top. */
export function environment(overrides: Env = {}): Env {
  return { ...process.env, ...overrides };
}
