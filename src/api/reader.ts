// Readers of the API's records, compiled once per zod schema (schemas.ts) into one function of
// plain checks: what zod's parse returns for an answer that fits (unknown keys dropped, the keys in
// the schema's order), cheaper. zod's own parsers are shared by every schema the SDK and we check,
// so V8 cannot specialise them: a part took 10.4 µs inside a server against 6.8 µs for its reader
// (1.7 against 0.8 µs in a loop of their own), and the first search over 100,000 parts 3.2 s
// against 2.2 s (docs/performance.md).
// What a reader does not take (a value that does not fit, or a part of a schema it does not know)
// goes to zod, which decides and says what is wrong.
import type { z } from "zod";

/** What a reader returns for a value it does not take: zod decides. */
export const NOT_READ: unique symbol = Symbol("not read");

type Reader = (value: unknown) => unknown;

const readers = new WeakMap<z.ZodType, Reader>();

/** `schema.parse(value)` for a value that fits, else NOT_READ (zod then says what is wrong). */
export function readRecord(schema: z.ZodType, value: unknown): unknown {
  let read = readers.get(schema);
  if (!read) {
    read = compile(schema);
    readers.set(schema, read);
  }
  return read(value);
}

interface Def {
  type: string;
  checks?: { _zod: { def: { check: string; format?: string } } }[];
  /** Set when the type itself carries a check (a string format, `z.int()`). */
  check?: string;
  format?: string;
  pattern?: RegExp;
  entries?: Record<string, unknown>;
  innerType?: z.ZodType;
  element?: z.ZodType;
  shape?: Record<string, z.ZodType>;
  catchall?: z.ZodType;
}

interface Internals {
  def: Def;
  /** The values an enum or a literal takes, as zod checks them. */
  values?: Set<unknown>;
  optin?: string;
}

const internalsOf = (schema: z.ZodType) => (schema as unknown as { _zod: Internals })._zod;
const defOf = (schema: z.ZodType) => internalsOf(schema).def;

/** String formats whose whole check is their pattern (zod's $ZodCheckStringFormat). */
const PATTERN_FORMATS: ReadonlySet<string> = new Set(["datetime"]);

function compile(schema: z.ZodType): Reader {
  try {
    return generate(schema);
  } catch {
    // A schema it cannot follow, or a process that forbids code from strings: zod reads everything.
    return (value) => {
      const parsed = schema.safeParse(value);
      return parsed.success ? parsed.data : NOT_READ;
    };
  }
}

function generate(schema: z.ZodType): Reader {
  const constants: unknown[] = [];
  /** The schemas being written out, for one that holds itself (zod then reads it). */
  const open = new Set<z.ZodType>();
  const constant = (value: unknown) => `c[${constants.push(value) - 1}]`;
  let names = 0;
  const fresh = (prefix: string) => `${prefix}${names++}`;

  /**
   * Statements that check `input` and set `out` to what zod would return, or return NOT_READ; and
   * whether they refuse `undefined` (a required key must then be there, as zod requires).
   */
  const emit = (node: z.ZodType, input: string, out: string): [code: string, refusesUndefined: boolean] => {
    if (open.has(node)) return fallback(node, input, out);
    open.add(node);
    try {
      return emitKnown(node, input, out) ?? fallback(node, input, out);
    } finally {
      open.delete(node);
    }
  };

  /** zod reads this part. */
  const fallback = (node: z.ZodType, input: string, out: string): [string, boolean] => {
    const parsed = fresh("p");
    const code = `const ${parsed} = ${constant(node)}.safeParse(${input}); if (!${parsed}.success) return N; ${out} = ${parsed}.data;`;
    return [code, false];
  };

  const emitKnown = (node: z.ZodType, input: string, out: string): [string, boolean] | undefined => {
    const def = defOf(node);
    const noChecks = (def.checks ?? []).length === 0;
    const plain = noChecks && def.check === undefined;
    const [check] = def.checks ?? [];
    const typed = (test: string): [string, boolean] => [`if (${test}) return N; ${out} = ${input};`, true];
    switch (def.type) {
      case "string":
        if (plain && def.format === undefined) return typed(`typeof ${input} !== "string"`);
        if (
          noChecks &&
          def.check === "string_format" &&
          def.format !== undefined &&
          PATTERN_FORMATS.has(def.format) &&
          def.pattern &&
          !def.pattern.global &&
          !def.pattern.sticky
        ) {
          return typed(`typeof ${input} !== "string" || !${constant(def.pattern)}.test(${input})`);
        }
        break;
      case "number":
        if (plain) return typed(`typeof ${input} !== "number" || !Number.isFinite(${input})`);
        if (
          def.check === undefined &&
          def.checks?.length === 1 &&
          check?._zod.def.check === "number_format" &&
          check._zod.def.format === "safeint"
        ) {
          return typed(`!Number.isSafeInteger(${input})`);
        }
        break;
      case "boolean":
        if (plain) return typed(`typeof ${input} !== "boolean"`);
        break;
      case "enum": {
        const { values } = internalsOf(node);
        if (plain && values instanceof Set) return typed(`!${constant(values)}.has(${input})`);
        break;
      }
      case "optional":
        if (plain && def.innerType && internalsOf(node).optin === "optional") {
          const [inner] = emit(def.innerType, input, out);
          return [`if (${input} === undefined) ${out} = undefined; else { ${inner} }`, false];
        }
        break;
      case "nullable":
        if (plain && def.innerType) {
          const [inner, refuses] = emit(def.innerType, input, out);
          return [`if (${input} === null) ${out} = null; else { ${inner} }`, refuses];
        }
        break;
      case "array":
        if (plain && def.element) {
          const [i, item, read] = [fresh("i"), fresh("e"), fresh("r")];
          const [element] = emit(def.element, item, read);
          const code = `if (!Array.isArray(${input})) return N; ${out} = new Array(${input}.length);
            for (let ${i} = 0; ${i} < ${input}.length; ${i}++) {
              const ${item} = ${input}[${i}]; let ${read}; ${element} ${out}[${i}] = ${read};
            }`;
          return [code, true];
        }
        break;
      case "object":
        if (
          plain &&
          def.shape &&
          !def.catchall &&
          !Object.hasOwn(def.shape, "__proto__") &&
          Object.getOwnPropertySymbols(def.shape).length === 0 &&
          // A key zod fills in when absent (a default) is zod's to read.
          Object.values(def.shape).every((field) => internalsOf(field).optin !== "defaulted")
        ) {
          const fields = Object.entries(def.shape).map(([key, field]) => {
            const [value, read] = [fresh("v"), fresh("r")];
            const name = JSON.stringify(key);
            const [code, refusesUndefined] = emit(field, value, read);
            // As zod: an optional key is kept when the answer has it, a required one must be there.
            const optional = defOf(field).type === "optional";
            const present = optional || refusesUndefined ? "" : `if (!(${name} in ${input})) return N; `;
            const keep = optional ? `if (${name} in ${input}) ` : "";
            return `{ ${present}const ${value} = ${input}[${name}]; let ${read}; ${code} ${keep}${out}[${name}] = ${read}; }`;
          });
          const code = `if (typeof ${input} !== "object" || ${input} === null || Array.isArray(${input})) return N;
            ${out} = {}; ${fields.join("\n")}`;
          return [code, true];
        }
        break;
    }
    return undefined;
  };

  const body = `return function read(input) { let out; ${emit(schema, "input", "out")[0]} return out; };`;
  return new Function("N", "c", body)(NOT_READ, constants) as Reader;
}
