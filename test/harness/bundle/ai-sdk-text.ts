/**
 * Bench only: the smallest workflow a user writes with the AI SDK on model-retry, one `generateText` on a
 * `durableModel`, bundled on its own (as a user's workflows file is) so that the `ai-sdk` benchmark can set what
 * the AI SDK adds to a run beside `callModel` in a user's workflow (test/harness/bundle/user-call.ts) and the floor
 * (test/harness/floor/workflows.ts), each in its own bundle.
 */
import { generateText } from 'ai';
import { durableModel } from '../../../workflows/ai-sdk/index.js';

export interface TextInput {
  model: string;
  prompt: string;
}

/** One `generateText` whose single model request is one durable model call. */
export async function durableTextWorkflow(input: TextInput): Promise<string> {
  const { text } = await generateText({ model: durableModel(input.model), prompt: input.prompt });
  return text;
}
