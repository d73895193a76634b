import type { Client } from '@temporalio/client';
import { StreamedText, subscribeCallStream } from '../call-stream.js';

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
