// The error that stops the server before it starts. Its message names settings through a
// function, so that one error reads in the words the person used: `--port must be ...` when the
// value came from a flag, `PARTS_MCP_HTTP_PORT must be ...` when it came from the environment.

/** The name a person knows a setting by: the flag that set it, or its environment variable. */
export type SettingName = (variable: string) => string;

/** Names every setting by its environment variable. */
export const byVariable: SettingName = (variable) => variable;

/** A message that names settings through `name`. */
export type ConfigMessage = string | ((name: SettingName) => string);

/** Marks a ConfigError of any copy of this module (the registry's symbols are one per process). */
const CONFIG_ERROR = Symbol.for("parts-mcp.ConfigError");

/** A configuration problem; the message is one sentence naming the setting and the fix. */
export class ConfigError extends Error {
  /**
   * The oauth and telemetry parts are bundles of their own (scripts/build.mjs), each with its own
   * copy of this class: `instanceof` recognises an error of any copy, so that one thrown there
   * still ends the start with its one line and exit 2.
   */
  static override [Symbol.hasInstance](value: unknown): boolean {
    return typeof value === "object" && value !== null && CONFIG_ERROR in value;
  }

  readonly [CONFIG_ERROR] = true;
  override readonly name = "ConfigError";
  readonly #message: ConfigMessage;

  constructor(
    message: ConfigMessage,
    /** The environment variable at fault. */
    readonly variable?: string,
  ) {
    super(typeof message === "string" ? message : message(byVariable));
    this.#message = message;
  }

  /** The message with each setting named by `name` (see parseCommandLine's `name`). */
  describe(name: SettingName): string {
    return typeof this.#message === "string" ? this.#message : this.#message(name);
  }
}
