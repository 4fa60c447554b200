// Request validation with the zod schemas of the endpoint table, and messages that name the
// field: "pageSize: must be between 1 and 50", "title: is required", "view: must be one of ...".
import { z } from "zod";
import { ApiError, quote } from "./errors";

type Issue = z.core.$ZodIssue;

/** The schema at a path inside an object/array schema, optional wrappers removed. */
function schemaAt(root: z.ZodType, path: readonly PropertyKey[]): z.ZodType | undefined {
  let schema: z.ZodType | undefined = root;
  for (const key of [...path, null]) {
    while (schema instanceof z.ZodOptional || schema instanceof z.ZodNullable)
      schema = schema.unwrap() as z.ZodType;
    if (key === null || schema === undefined) break;
    if (schema instanceof z.ZodObject) schema = (schema.shape as Record<string, z.ZodType>)[String(key)];
    else if (schema instanceof z.ZodArray) schema = schema.element as z.ZodType;
    else return undefined;
  }
  return schema;
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let value = input;
  for (const key of path) {
    if (value === null || typeof value !== "object") return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/**
 * `customFields[0].dropdownId`; a key that is not an identifier (a metadata key a client chose)
 * is quoted: `metadata["a b"]`. The root is `fallback` ("body").
 */
function formatPath(path: readonly PropertyKey[], fallback = "body"): string {
  let out = "";
  for (const key of path) {
    if (typeof key === "number") out += `[${key}]`;
    else if (!IDENTIFIER.test(String(key))) out += `[${quote(String(key))}]`;
    else out += out === "" ? String(key) : `.${String(key)}`;
  }
  return out === "" ? fallback : out;
}

const ARTICLE: Readonly<Record<string, string>> = {
  object: "an object",
  array: "an array",
  int: "an integer",
  integer: "an integer",
};

/** A bound a person would write: not ±infinity, not the safe-integer limit that int() implies. */
const meaningful = (n: number | null | undefined): number | null =>
  n === null || n === undefined || Math.abs(n) >= Number.MAX_SAFE_INTEGER ? null : n;

function bounds(schema: z.ZodType | undefined): { min: number | null; max: number | null } {
  if (schema instanceof z.ZodNumber)
    return { min: meaningful(schema.minValue), max: meaningful(schema.maxValue) };
  return { min: null, max: null };
}

function describe(issue: Issue, root: z.ZodType, input: unknown): string {
  switch (issue.code) {
    case "invalid_type":
      if (valueAt(input, issue.path) === undefined) return "is required";
      return `must be ${ARTICLE[issue.expected] ?? `a ${issue.expected}`}`;
    case "too_small":
    case "too_big": {
      const small = issue.code === "too_small";
      const limit = Number(small ? issue.minimum : issue.maximum);
      if (issue.origin === "number" || issue.origin === "int") {
        const { min, max } = bounds(schemaAt(root, issue.path));
        if (min !== null && max !== null) return `must be between ${min} and ${max}`;
        return small ? `must be at least ${limit}` : `must be at most ${limit}`;
      }
      if (issue.origin === "string") {
        if (small && limit === 1) return "must not be empty";
        return small
          ? `must be at least ${limit} characters long`
          : `must be at most ${limit} characters long`;
      }
      if (issue.origin === "array") {
        return small ? `must have at least ${limit} entries` : `must have at most ${limit} entries`;
      }
      return issue.message;
    }
    case "invalid_value":
      return `must be one of ${issue.values.map(String).join(", ")}`;
    case "invalid_format":
      return `must be a valid ${issue.format}`;
    default:
      return issue.message;
  }
}

/** A 400 message for zod issues: the first three, each prefixed with its field. */
function issuesMessage(issues: readonly Issue[], root: z.ZodType, input: unknown, fallback = "body"): string {
  return issues
    .slice(0, 3)
    .map((issue) => `${formatPath(issue.path, fallback)}: ${describe(issue, root, input)}`)
    .join("; ");
}

/** Parses with a schema or throws a 400 ApiError naming the field(s). */
export function parseOrThrow<S extends z.ZodType>(schema: S, input: unknown, fallback = "body"): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  throw new ApiError(400, issuesMessage(result.error.issues, schema, input, fallback));
}

const DECIMAL = /^-?\d+(\.\d+)?$/;

/** How a query schema's fields arrive: numbers are converted from their string form. */
export interface QueryPlan {
  schema: z.ZodObject;
  numeric: ReadonlyMap<string, { integer: boolean }>;
}

export function planQuery(schema: z.ZodObject): QueryPlan {
  const numeric = new Map<string, { integer: boolean }>();
  for (const key of Object.keys(schema.shape)) {
    const field = schemaAt(schema, [key]);
    if (field instanceof z.ZodNumber) numeric.set(key, { integer: field.isInt === true });
  }
  return { schema, numeric };
}

/**
 * Parses a raw query string against a plan: each known parameter at most once, numbers given in
 * decimal, then the schema. Unknown parameters are ignored.
 */
export function parseQuery(plan: QueryPlan, rawQuery: string): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  if (rawQuery === "") return parseOrThrow(plan.schema, values, "query") as Record<string, unknown>;
  const params = new URLSearchParams(rawQuery);
  for (const [key, value] of params) {
    if (!Object.hasOwn(plan.schema.shape, key)) continue;
    if (Object.hasOwn(values, key)) throw new ApiError(400, `${key}: must be given once`);
    const number = plan.numeric.get(key);
    if (number === undefined) {
      values[key] = value;
      continue;
    }
    if (!DECIMAL.test(value)) {
      throw new ApiError(400, `${key}: must be ${number.integer ? "an integer" : "a number"}`);
    }
    values[key] = Number(value);
  }
  return parseOrThrow(plan.schema, values, "query") as Record<string, unknown>;
}
