import { parseArgs } from 'node:util';
import type { ParseArgsOptionsConfig } from 'node:util';

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
