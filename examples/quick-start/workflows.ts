import { generateText } from 'ai';
import { durableModel } from 'model-retry/ai-sdk';

export async function answer(question: string): Promise<string> {
  const { text } = await generateText({
    // Two backends, backoff between attempts, a deadline 10 minutes after the workflow started.
    model: durableModel(['openai:gpt-4o-mini', 'anthropic:claude-haiku-4-5'], {
      retry: { backoff: {} },
      deadlineInMs: 600_000,
    }),
    prompt: question,
  });
  return text;
}
