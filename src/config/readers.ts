// The readers every section of the configuration is built from, and the declaration of a
// setting that --help lists. Each reader takes the value as written (an environment variable or
// a flag), checks it, and throws a ConfigError that names the setting and the fix. Values are
// echoed in messages only when too short to be a secret (see `shown`).
import type { Env } from "./env";
import { ConfigError } from "./errors";

/** One setting as people see it in --help: its variable, what it does, and its default. */
export interface Setting {
  variable: string;
  description: string;
  /** The default as people read it; absent when there is none. */
  defaultText?: string;
}

/** Settings of one concern, listed together in --help. */
export interface SettingGroup {
  title: string;
  settings: readonly Setting[];
}

export interface IntegerRule {
  defaultValue: number;
  min: number;
  max: number;
  /** Named in the message, e.g. "milliseconds". */
  unit?: string;
}

/** A whole-number setting: what --help shows and what its reader checks, in one declaration. */
export interface IntegerSetting extends Setting {
  rule: IntegerRule;
}

export function integerSetting(variable: string, description: string, rule: IntegerRule): IntegerSetting {
  return { variable, description, defaultText: String(rule.defaultValue), rule };
}

export function readIntegerSetting(env: Env, setting: IntegerSetting): number {
  return readInteger(env, setting.variable, setting.rule);
}

/** The trimmed value of a variable; unset, empty and blank all count as unset (MCP clients pass ""). */
export function readEnv(env: Env, name: string): string | undefined {
  const raw = env[name];
  if (raw === undefined) return undefined;
  const value = raw.trim();
  return value === "" ? undefined : value;
}

/** The value quoted for a message, only when it is too short to be a secret. */
export function shown(value: string): string {
  return value.length <= 16 ? ` (got "${value}")` : "";
}

/** A whole number within [min, max], or the default when unset. */
export function readInteger(env: Env, name: string, rule: IntegerRule): number {
  const raw = readEnv(env, name);
  if (raw === undefined) return rule.defaultValue;
  const value = /^\d{1,16}$/.test(raw) ? Number(raw) : Number.NaN;
  if (!(value >= rule.min && value <= rule.max)) {
    const what = rule.unit ? `a whole number of ${rule.unit}` : "a whole number";
    throw new ConfigError(
      (n) =>
        `${n(name)} must be ${what} from ${rule.min} to ${rule.max}${shown(raw)}: fix it, or remove it to use the default ${rule.defaultValue}.`,
      name,
    );
  }
  return value;
}

/** One of `choices`, case-insensitive, or the default when unset. */
export function readChoice<const T extends string>(
  env: Env,
  name: string,
  choices: readonly T[],
  defaultValue: T,
): T {
  const raw = readEnv(env, name);
  if (raw === undefined) return defaultValue;
  const lower = raw.toLowerCase();
  const found = choices.find((choice) => choice.toLowerCase() === lower);
  if (found === undefined) {
    throw new ConfigError(
      (n) => `${n(name)} must be one of ${choices.join(", ")}${shown(raw)}: set it to one of them.`,
      name,
    );
  }
  return found;
}

const TRUE = new Set(["1", "true", "yes", "on"]);
const FALSE = new Set(["0", "false", "no", "off"]);

/**
 * true/false (also 1/0, yes/no, on/off), or the default when unset. `words` are the two values
 * the message suggests: ["on", "off"] for a switch.
 */
export function readBoolean(
  env: Env,
  name: string,
  defaultValue: boolean,
  words: readonly [string, string] = ["true", "false"],
): boolean {
  const raw = readEnv(env, name);
  if (raw === undefined) return defaultValue;
  const lower = raw.toLowerCase();
  if (TRUE.has(lower)) return true;
  if (FALSE.has(lower)) return false;
  throw new ConfigError(
    (n) => `${n(name)} must be ${words[0]} or ${words[1]}${shown(raw)}: set it to one of them.`,
    name,
  );
}

/** A comma-separated list without blanks or repeats; undefined when unset or empty. */
export function readList(env: Env, name: string): string[] | undefined {
  const raw = readEnv(env, name);
  if (raw === undefined) return undefined;
  const items = raw
    .split(",")
    .map((item) => item.trim())
    .filter((item) => item !== "");
  return items.length === 0 ? undefined : [...new Set(items)];
}

/** An address to listen on: an IP address (IPv6 with or without brackets) or a host name. */
export function readHost(env: Env, name: string, defaultValue: string): string {
  const host = readEnv(env, name) ?? defaultValue;
  if (!/^[A-Za-z0-9.:_-]+$/.test(host.replace(/^\[(.*)\]$/, "$1"))) {
    throw new ConfigError(
      (n) =>
        `${n(name)} must be an IP address or host name${shown(host)}: for example 127.0.0.1, or 0.0.0.0 for every interface.`,
      name,
    );
  }
  return host;
}
