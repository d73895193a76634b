import { readFileSync } from 'node:fs';
import type { Client } from '@temporalio/client';
import { InvalidModelCallInputError } from '../common/input-error.js';
import type { ModelCallInput } from '../common/call.js';
import { checkCallSize } from '../client/call-size.js';
import { UsageError } from './args.js';

/**
 * The prompt of `call`: `--prompt TEXT`, or the whole of `--prompt-file FILE` (`-` for standard input), for
 * prompts too long for a command line (the system refuses one argument over 128 KB).
 */
export function promptFromFlags(prompt: string | undefined, file: string | undefined): string | undefined {
  if (file === undefined) return prompt;
  if (prompt !== undefined) {
    throw new UsageError('give the prompt once: `--prompt TEXT` or `--prompt-file FILE`, not both.');
  }
  if (file.trim() === '') {
    throw new UsageError('`--prompt-file` is empty: give the path of a text file, or - for standard input.');
  }
  let text: string;
  try {
    text = readFileSync(file === '-' ? 0 : file, 'utf8');
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    throw new UsageError(
      `\`--prompt-file\` ${JSON.stringify(file)} cannot be read (${typeof code === 'string' ? code : String(error)}): check the path.`,
    );
  }
  if (text.trim() === '') {
    throw new UsageError(
      `\`--prompt-file\` ${JSON.stringify(file)} holds no text: give a file with the prompt.`,
    );
  }
  return text;
}

/**
 * Refuses (exit 2, naming the flag) a call whose input is over Temporal's payload limit as the session's client
 * stores it: `checkCallSize`, with its field turned into the flag that set it by `flagOf`.
 */
export async function refuseOversizedCall(
  client: Client,
  input: ModelCallInput,
  flagOf: (field: string) => string,
): Promise<void> {
  try {
    await checkCallSize(client, input);
  } catch (error) {
    if (!(error instanceof InvalidModelCallInputError)) throw error;
    throw new UsageError(`\`${flagOf(error.field)}\`${error.message.slice(error.message.indexOf(':'))}`);
  }
}
