import type { ModelCallInput } from '../call.js';
import { DEFAULT_REPAIRS, MAX_REPAIRS } from '../../policy/index.js';
import { InvalidModelCallInputError } from '../input-error.js';

const OUTPUT_KEYS = ['schema', 'repairs'];

/** A call's structured output, checked, with its default filled in. */
export interface CheckedOutput {
  schema: Record<string, unknown>;
  repairs: number;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * A call's `output`, checked for its shape: `undefined` when the call has none. `schema` must be a JSON Schema
 * object, `repairs` a whole number from 0 to 10; `stream` with a schema is refused (a streamed answer would reach
 * its caller before it could be validated). Whether the schema compiles is asked where ajv runs: the client and
 * the CLI before the start (`checkOutputSchema`), the attempt activity otherwise.
 */
export function outputOf(input: Pick<ModelCallInput, 'output' | 'stream'>): CheckedOutput | undefined {
  const output: unknown = input.output;
  if (output === undefined) return undefined;
  if (!isObject(output)) {
    throw new InvalidModelCallInputError('output', 'must be an object `{ schema, repairs? }`');
  }
  for (const key of Object.keys(output)) {
    if (!OUTPUT_KEYS.includes(key)) {
      throw new InvalidModelCallInputError(`output.${key}`, 'unknown field; the fields are schema, repairs');
    }
  }
  if (!isObject(output.schema)) {
    throw new InvalidModelCallInputError(
      'output.schema',
      'must be a JSON Schema object, e.g. `{ "type": "object", "properties": { "city": { "type": "string" } } }`',
    );
  }
  const repairs = output.repairs ?? DEFAULT_REPAIRS;
  if (typeof repairs !== 'number' || !Number.isInteger(repairs) || repairs < 0 || repairs > MAX_REPAIRS) {
    throw new InvalidModelCallInputError(
      'output.repairs',
      `must be a whole number from 0 to ${MAX_REPAIRS} (got ${JSON.stringify(repairs)}); 0 drops a backend at its first mismatch`,
    );
  }
  if (input.stream !== undefined && input.stream !== false) {
    throw new InvalidModelCallInputError(
      'stream',
      'cannot be used with `output.schema` (a streamed answer reaches its caller before it can be validated): leave out one of them',
    );
  }
  return { schema: output.schema, repairs };
}
