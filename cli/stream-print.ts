import type { Client } from '@temporalio/client';
import { StreamedText, subscribeCallStream } from '../client/call-stream.js';
import { ProgressPrinter } from './progress.js';
import { messageOf } from './session.js';

/** Prints a call's streamed text as it arrives (`call --stream`, the demo). */
export interface StreamPrinter {
  /**
   * The run closed: waits for the subscription to end, then prints what of `finalText` (the answer, or the
   * partial text of an interrupted stream) was not printed yet, and a final newline. Returns what it printed
   * in all.
   */
  end(finalText: string | undefined): Promise<string>;
}

/** Starts printing workflow `workflowId`'s deltas to `out` as they arrive. */
export function printStream(
  client: Client,
  workflowId: string,
  out: { write(text: string): unknown },
  onError: (error: unknown) => void,
): StreamPrinter {
  const shown = new StreamedText();
  const reading = (async () => {
    for await (const item of subscribeCallStream(client, workflowId)) {
      const text = shown.take(item);
      if (text !== undefined) out.write(text);
    }
  })().catch(onError);
  return {
    async end(finalText) {
      await reading;
      let printed = shown.text;
      if (finalText !== undefined && finalText.startsWith(printed)) {
        const rest = finalText.slice(printed.length);
        out.write(rest);
        printed = finalText;
      }
      if (printed !== '' && !printed.endsWith('\n')) out.write('\n');
      return printed;
    },
  };
}

/**
 * What a following command prints to: with `stream` (and no `--json`), a printer of the deltas on stdout and
 * progress one line per event on stderr (a live countdown would cut into the streamed text); else the usual
 * progress, or none with `--json`.
 */
export function followOutputs(
  client: Client,
  workflowId: string,
  options: { stream: boolean; json: boolean; say: (line: string) => void },
): { printer?: StreamPrinter; progress?: ProgressPrinter } {
  if (options.json) return {};
  if (!options.stream) return { progress: new ProgressPrinter(process.stderr) };
  const printer = printStream(client, workflowId, process.stdout, (e) =>
    options.say(`streaming stopped: ${messageOf(e)}`),
  );
  return { printer, progress: new ProgressPrinter({ write: (t: string) => process.stderr.write(t) }) };
}
