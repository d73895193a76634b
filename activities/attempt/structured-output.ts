/**
 * Structured output in the attempt: asks the provider for JSON in its own way (the AI SDK's `responseFormat`),
 * parses the answer and validates it against the call's `output.schema` (ajv, `common/json-schema.ts`).
 */
import type {
  LanguageModelV4CallOptions,
  LanguageModelV4GenerateResult,
  LanguageModelV4Prompt,
} from '@ai-sdk/provider';
import { FailureClass, classify } from '../../policy/index.js';
import type { SchemaMismatchFacts } from '../../common/attempt.js';
import { schemaErrors, schemaProblem } from '../../common/json-schema.js';
import type { ObservedError } from './classify-error.js';
import { textOf, toolCallsOf } from './result.js';
import { scrub } from '../scrub.js';

export type { JsonSchemaMode } from '../providers/types.js';

/** The longest answer a `SchemaMismatch` carries back for the repair (longer ones are cut, and say so). */
export const MAX_MISMATCH_ANSWER_CHARS = 32_000;

/** What the request adds for structured output: the AI SDK's JSON response format with the schema. */
export function responseFormatOf(schema: Record<string, unknown>): Partial<LanguageModelV4CallOptions> {
  return {
    responseFormat: {
      type: 'json',
      schema: schema as NonNullable<
        Extract<LanguageModelV4CallOptions['responseFormat'], { type: 'json' }>['schema']
      >,
      name: 'response',
    },
  };
}

/** The instructions a backend without a native JSON-schema mode gets, as a system message. */
export function schemaInstructions(schema: Record<string, unknown>): string {
  return (
    'Answer with a single JSON value only (no prose, no code fence) that validates against this JSON Schema:\n' +
    JSON.stringify(schema)
  );
}

/** The prompt with the schema's instructions after its leading system messages (where providers expect them). */
export function withSchemaInstructions(
  prompt: LanguageModelV4Prompt,
  schema: Record<string, unknown>,
): LanguageModelV4Prompt {
  const at = prompt.findIndex((m) => m.role !== 'system');
  const i = at === -1 ? prompt.length : at;
  return [...prompt.slice(0, i), { role: 'system', content: schemaInstructions(schema) }, ...prompt.slice(i)];
}

/**
 * Why the call's schema cannot be used (it does not compile), as the failure of the attempt: `BadRequest`, since
 * the same request can never be made. Only a workflow started without the client's check gets here.
 */
export function unusableSchema(schema: Record<string, unknown>): ObservedError | undefined {
  const problem = schemaProblem(schema);
  if (problem === undefined) return undefined;
  return {
    observation: { invalidInput: true },
    message: `\`output.schema\` is not a JSON Schema that compiles (${problem}): fix it; nothing was sent`,
  };
}

/** The answer's JSON text: the text, less one code fence around it (models asked by instructions add one). */
function jsonText(text: string): string {
  const trimmed = text.trim();
  const fenced = /^```[A-Za-z]*\n([\s\S]*)\n```$/.exec(trimmed);
  return fenced?.[1] ?? trimmed;
}

/** The parsed answer, or why it does not parse (one line). */
function parse(text: string): { value: unknown } | { error: string } {
  try {
    return { value: JSON.parse(jsonText(text)) as unknown };
  } catch (error) {
    const why = error instanceof SyntaxError ? error.message : 'not JSON';
    return { error: `/: the answer is not JSON (${why.slice(0, 150)})` };
  }
}

/**
 * The object of a structured answer, or why the answer is a failure: `SchemaMismatch` (with the answer and the
 * validator's errors, for the repair), or `OutputLimit` when it stopped at the output limit. An answer with tool
 * calls is the model asking for tools, not its final answer: nothing is validated and it has no object.
 */
export function structuredAnswer(
  result: LanguageModelV4GenerateResult,
  schema: Record<string, unknown>,
  secrets: readonly string[],
): { object?: unknown } | { failure: ObservedError; mismatch?: SchemaMismatchFacts } {
  if (toolCallsOf(result).length > 0) return {};
  const text = textOf(result);
  const parsed = parse(text);
  const errors = 'error' in parsed ? [parsed.error] : schemaErrors(schema, parsed.value);
  if (errors.length === 0 && 'value' in parsed) return { object: parsed.value };
  const { unified, raw } = result.finishReason;
  const observation = {
    status: 200,
    bodyComplete: true,
    schemaMismatch: true,
    finishReason: unified === 'length' ? unified : (raw ?? unified),
  };
  const cleaned = errors.map((e) => scrub(e, secrets));
  if (classify(observation) === FailureClass.OutputLimit) {
    const message =
      `the answer stopped at the output token limit (finish reason ${raw ?? unified}) before it matched ` +
      `output.schema (${cleaned[0]}): raise settings.maxOutputTokens or use another model`;
    return { failure: { observation, message } };
  }
  const more = cleaned.length > 1 ? ` (and ${cleaned.length - 1} more)` : '';
  return {
    failure: { observation, message: `the answer does not match output.schema: ${cleaned[0]}${more}` },
    mismatch: { answer: boundedAnswer(scrub(text, secrets)), errors: cleaned },
  };
}

function boundedAnswer(text: string): string {
  if (text.length <= MAX_MISMATCH_ANSWER_CHARS) return text;
  return `${text.slice(0, MAX_MISMATCH_ANSWER_CHARS)}\n[the answer is cut here: ${text.length} characters in all]`;
}
