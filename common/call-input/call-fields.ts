/** The checks of single fields of a call that shape its request: the tool choice, the response format, the budget. */
import type { WireRequest, WireTool } from '../request.js';
import { budgetProblems } from '../../policy/index.js';
import { InvalidModelCallInputError } from '../input-error.js';

/** A plain object (not null, not an array). */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The tool choice, checked: `auto`, `none`, `required`, or `{ type: 'tool', toolName }` naming a given tool. */
export function toolChoiceOf(choice: unknown, tools: WireTool[] | undefined): WireRequest['toolChoice'] {
  if (choice === undefined) return undefined;
  const type = isObject(choice) ? choice.type : undefined;
  if (type === 'auto' || type === 'none' || type === 'required') return { type };
  if (type === 'tool' && isObject(choice)) {
    const name = choice.toolName;
    if (typeof name !== 'string' || !(tools ?? []).some((t) => t.name === name)) {
      throw new InvalidModelCallInputError(
        'toolChoice.toolName',
        `must name one of the call's tools (${(tools ?? []).map((t) => t.name).join(', ') || 'none given'})`,
      );
    }
    return { type: 'tool', toolName: name };
  }
  throw new InvalidModelCallInputError(
    'toolChoice',
    "must be `{ type: 'auto' | 'none' | 'required' }` or `{ type: 'tool', toolName }`",
  );
}

/** A JSON answer without a schema; a schema is the call's `output` (validated, repaired). */
export function responseFormatOf(format: unknown, hasOutput: boolean): WireRequest['responseFormat'] {
  if (format === undefined) return undefined;
  if (!isObject(format) || (format.type !== 'text' && format.type !== 'json'))
    throw new InvalidModelCallInputError(
      'responseFormat',
      "must be `{ type: 'text' }` or `{ type: 'json' }`",
    );
  if (format.type === 'json' && format.schema !== undefined)
    throw new InvalidModelCallInputError(
      'responseFormat.schema',
      'give the schema as `output: { schema }`: model-retry validates the answer against it and repairs it',
    );
  if (format.type === 'json' && hasOutput)
    throw new InvalidModelCallInputError('responseFormat', 'not with `output`, which asks for JSON itself');
  return format as WireRequest['responseFormat'];
}

/** Refuses a `budget` with unknown keys or amounts that are negative, non-finite or (tokens) fractional. */
export function checkBudget(budget: unknown, at = 'budget'): void {
  const problem = budgetProblems(budget, at)[0];
  if (problem) throw new InvalidModelCallInputError(problem.field, problem.message);
}
