import { parseArgs } from 'node:util';
import type { ParseArgsOptionsConfig } from 'node:util';
import { resolveTaskQueue } from '../worker/config.js';

/** Refused input: the CLI prints the message and exits 2 without starting anything. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** `parseArgs` (strict, with `--help`) whose errors become `UsageError`s that point at the command's help. */
export function parseCommandArgs<O extends ParseArgsOptionsConfig>(
  command: string,
  args: string[],
  options: O,
) {
  try {
    return parseArgs({
      args,
      options: { ...options, help: { type: 'boolean', short: 'h' } } as O & {
        help: { type: 'boolean'; short: 'h' };
      },
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new UsageError(`${message}\nRun \`model-retry ${command} --help\` for the options.`);
  }
}

/** How a command that starts or attaches to a run (`call`, `turn`) runs: output, task queue and workflow id. */
export interface RunFlags {
  json: boolean;
  taskQueue: string;
  /** `--workflow-id`, when given (never empty). */
  givenId?: string;
}

/**
 * The flags `call` and `turn` share, checked: no positional argument (a prompt left unquoted), `--json`,
 * `--task-queue` (else `MODEL_RETRY_TASK_QUEUE`, else the default), a `--workflow-id` that is not empty.
 * @throws UsageError naming the flag and the fix.
 */
export function runFlags(
  values: {
    json?: boolean | undefined;
    'task-queue'?: string | undefined;
    'workflow-id'?: string | undefined;
  },
  positionals: readonly string[],
): RunFlags {
  if (positionals.length > 0) {
    throw new UsageError(
      `unexpected argument ${JSON.stringify(positionals[0])}: quote the prompt, as in --prompt "..."`,
    );
  }
  const givenId = values['workflow-id'];
  if (givenId !== undefined && givenId.trim() === '') {
    throw new UsageError('`--workflow-id` is empty: give an id, or leave the flag out for a new one.');
  }
  return {
    json: values.json === true,
    taskQueue: resolveTaskQueue(values['task-queue']),
    ...(givenId !== undefined ? { givenId } : {}),
  };
}
