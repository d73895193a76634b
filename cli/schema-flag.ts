import { readFileSync } from 'node:fs';
import type { ModelCallInput } from '../common/call.js';
import { UsageError } from './args.js';

/**
 * `--schema FILE` as the call's `output`: the file's JSON Schema. A file that cannot be read, is not JSON, or is
 * not a JSON object is refused here, naming the flag; whether the schema compiles is the client's check (the call
 * command words its refusal as `--schema` too).
 */
export function outputFromFlags(file: string | undefined): ModelCallInput['output'] {
  if (file === undefined) return undefined;
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new UsageError(
      `\`--schema\` cannot read ${JSON.stringify(file)} (${code}): give the path of a JSON Schema file.`,
    );
  }
  let schema: unknown;
  try {
    schema = JSON.parse(text) as unknown;
  } catch (error) {
    const why = error instanceof Error ? error.message : 'not JSON';
    throw new UsageError(
      `\`--schema\` ${JSON.stringify(file)} is not JSON (${why}): give a JSON Schema file.`,
    );
  }
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
    throw new UsageError(
      `\`--schema\` ${JSON.stringify(file)} is not a JSON Schema object: give one such as {"type": "object", "properties": {...}}.`,
    );
  }
  return { schema: schema as Record<string, unknown> };
}

/** The flag a refused `output` field stands for on the command line (`--schema`), or `undefined`. */
export function outputFlagOf(field: string): string | undefined {
  return field === 'output' || field.startsWith('output.') ? '--schema' : undefined;
}
