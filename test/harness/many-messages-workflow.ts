/**
 * A user's own workflow that builds a long conversation of short messages itself (as a chat kept in workflow
 * state grows) and makes one `callModel` with it: its own input is small, so only the attempt's input can pass
 * Temporal's payload limit.
 */
import { callModel } from '../../workflows/index.js';
import type { ModelCallResult } from '../../workflows/index.js';

export interface ManyMessagesInput {
  model: string;
  /** How many user messages, each `text` with its number in front. */
  count: number;
  text: string;
}

export async function manyMessagesWorkflow(input: ManyMessagesInput): Promise<ModelCallResult> {
  const messages = Array.from({ length: input.count }, (_, i) => ({
    role: 'user' as const,
    content: `${i}: ${input.text}`,
  }));
  return callModel({ model: input.model, messages, retry: { waits: [10] } });
}
