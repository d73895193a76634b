/**
 * The floor's activities: the same AI SDK request as an attempt (`doGenerate`, no SDK retry), nothing else; and the
 * contract's floor's local activity.
 */
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { createProviderFetch } from '../../activities/providers/transport.js';

export function createPlainActivities(baseURL: string, apiKey: string) {
  const fetch = createProviderFetch();
  return {
    async plainRequest(model: string, prompt: string): Promise<string> {
      const lm = createOpenAICompatible({ name: 'local', baseURL, apiKey, fetch }).chatModel(model);
      const result = await lm.doGenerate({
        prompt: [{ role: 'user', content: [{ type: 'text', text: prompt }] }],
      });
      return result.content.map((part) => (part.type === 'text' ? part.text : '')).join('');
    },
    /** The contract's floor's local activity: the worker's settings, as `modelRetryConfig` answers them. */
    async plainConfig(): Promise<{ payloadStore: boolean }> {
      return { payloadStore: false };
    },
  };
}

export type PlainActivities = ReturnType<typeof createPlainActivities>;
