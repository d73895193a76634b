/**
 * JSON Schema checks for structured output (`output.schema`), with ajv: whether a schema compiles (the client and
 * the CLI ask before anything starts), and what is wrong with an answer (the attempt activity asks). One module so
 * that both sides read a schema the same way.
 *
 * Node side only: it imports ajv, which compiles validators with `new Function`. Workflow code never imports it
 * (it checks the shape of `output` in `common/call-input/call-output.ts`; an uncompilable schema that reaches a
 * workflow anyway fails its first attempt as `BadRequest`).
 */
import { Ajv } from 'ajv';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { Ajv2020 } from 'ajv/dist/2020.js';

/** At most this many validator errors are kept (the first is the one a record shows). */
export const MAX_SCHEMA_ERRORS = 5;
/** Each kept error is cut to this many characters. */
export const MAX_SCHEMA_ERROR_CHARS = 200;

// `strict: false`: schemas come from many tools (zod, the AI SDK, hand-written) with keywords ajv does not know;
// formats are not checked (no format plugin), as most providers' native JSON modes do not check them either.
const OPTIONS = { allErrors: true, strict: false, validateFormats: false, logger: false } as const;
const draft07 = new Ajv(OPTIONS);
const draft2019 = new Ajv2019(OPTIONS);
const draft2020 = new Ajv2020(OPTIONS);

/** Compiled validators by schema text: a call's attempts (and calls of one schema) compile once per worker. */
const compiled = new Map<string, ValidateFunction>();
const MAX_CACHED = 200;

/** The ajv instance for the schema's dialect (`$schema`): 2020-12, 2019-09, else draft-07. */
function ajvFor(schema: Record<string, unknown>): Ajv | Ajv2019 | Ajv2020 {
  const dialect = typeof schema.$schema === 'string' ? schema.$schema : '';
  if (dialect.includes('2020-12')) return draft2020;
  if (dialect.includes('2019-09')) return draft2019;
  return draft07;
}

/**
 * The validator of `schema`, compiled once. Throws an `Error` whose message says why the schema does not compile
 * (ajv's words: `schema is invalid: data/type must be ...`, `can't resolve reference ...`).
 */
export function compileSchema(schema: Record<string, unknown>): ValidateFunction {
  const key = JSON.stringify(schema);
  const known = compiled.get(key);
  if (known) return known;
  const validate = ajvFor(schema).compile(schema);
  if (compiled.size >= MAX_CACHED) compiled.delete(compiled.keys().next().value as string);
  compiled.set(key, validate);
  return validate;
}

/** Why `schema` does not compile, in one line; `undefined` when it does. */
export function schemaProblem(schema: Record<string, unknown>): string | undefined {
  try {
    compileSchema(schema);
    return undefined;
  } catch (error) {
    return cut(error instanceof Error ? error.message : String(error), MAX_SCHEMA_ERROR_CHARS * 2);
  }
}

/** What is wrong with `value` by `schema`: at most {@link MAX_SCHEMA_ERRORS} bounded lines; empty when it is valid. */
export function schemaErrors(schema: Record<string, unknown>, value: unknown): string[] {
  const validate = compileSchema(schema);
  if (validate(value)) return [];
  const errors = (validate.errors ?? []).map(errorLine);
  return (errors.length > 0 ? errors : ['/: does not match the schema'])
    .slice(0, MAX_SCHEMA_ERRORS)
    .map((line) => cut(line, MAX_SCHEMA_ERROR_CHARS));
}

/** `/age: must be integer`, `/: must NOT have additional properties (extra)`. */
function errorLine(error: ErrorObject): string {
  const at = error.instancePath === '' ? '/' : error.instancePath;
  const extra = (error.params as { additionalProperty?: unknown }).additionalProperty;
  const named = typeof extra === 'string' ? ` (${extra})` : '';
  return `${at}: ${error.message ?? error.keyword}${named}`;
}

function cut(text: string, most: number): string {
  return text.length <= most ? text : `${text.slice(0, most - 1)}…`;
}
