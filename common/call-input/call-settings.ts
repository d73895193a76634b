import type { ModelSettings } from '../attempt.js';
import { InvalidModelCallInputError } from '../input-error.js';

/** The fields of `settings`, each passed through to the provider as the AI SDK names it. */
export const SETTINGS_FIELDS = [
  'maxOutputTokens',
  'temperature',
  'topP',
  'topK',
  'presencePenalty',
  'frequencyPenalty',
  'stopSequences',
  'seed',
  'reasoning',
] as const;

/** The AI SDK's reasoning efforts. */
const REASONING = ['provider-default', 'none', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max'];

/**
 * Fields of the AI SDK's call settings that a user may carry over from `generateText`, with the reason each is
 * not a setting here: said in the refusal, so the fix is in the message.
 */
const NOT_SETTINGS: Record<string, string> = {
  maxTokens: 'it is called `maxOutputTokens`',
  maxRetries: "retries are the call's plan: give `retry` (e.g. `{ waits: [1000, 5000] }`), not a setting",
  abortSignal: 'cancel the workflow (or the scope around `callModel`) instead',
  headers: "give request headers as the call's own `headers` field, beside `settings`",
  providerOptions: "give provider options as the call's own `providerOptions` field, beside `settings`",
  toolChoice: "give it as the call's own `toolChoice` field, beside `settings`",
};

const range = (min: number, max: number) => `a number from ${min} to ${max}`;

/**
 * Checks a call's `settings` before anything starts: an object of the known fields only, each of its type and
 * in its range (`maxOutputTokens` a whole number >= 1, `temperature` 0 to 2, `topP` 0 to 1, `stopSequences` an
 * array of non-empty strings, `seed` a whole number). Throws `InvalidModelCallInputError` naming the field and
 * the fix; a provider with a narrower range (Anthropic's temperature is 0 to 1) answers 400, which aborts.
 */
export function checkSettings(settings: unknown): asserts settings is ModelSettings | undefined {
  if (settings === undefined) return;
  const refuse = (field: string, message: string): never => {
    throw new InvalidModelCallInputError(field, message);
  };
  if (typeof settings !== 'object' || settings === null || Array.isArray(settings)) {
    refuse('settings', 'must be an object such as `{ maxOutputTokens: 500, temperature: 0 }`');
  }
  const given = settings as Record<string, unknown>;
  for (const key of Object.keys(given)) {
    if ((SETTINGS_FIELDS as readonly string[]).includes(key)) continue;
    const why = NOT_SETTINGS[key];
    refuse(
      `settings.${key}`,
      `${why ? `${why}; ` : ''}unknown setting: the settings are ${SETTINGS_FIELDS.join(', ')}`,
    );
  }
  const got = (v: unknown) => ` (got ${typeof v === 'string' ? JSON.stringify(v) : String(v)})`;
  const number = (key: string, ok: (n: number) => boolean, what: string) => {
    const v = given[key];
    if (v === undefined) return;
    if (typeof v !== 'number' || !Number.isFinite(v) || !ok(v))
      refuse(`settings.${key}`, `must be ${what}${got(v)}`);
  };
  number('maxOutputTokens', (n) => Number.isSafeInteger(n) && n >= 1, 'a whole number of tokens, at least 1');
  number('temperature', (n) => n >= 0 && n <= 2, range(0, 2));
  number('topP', (n) => n >= 0 && n <= 1, range(0, 1));
  number('seed', Number.isSafeInteger, 'a whole number');
  number('topK', (n) => Number.isSafeInteger(n) && n >= 1, 'a whole number, at least 1');
  number('presencePenalty', (n) => n >= -2 && n <= 2, range(-2, 2));
  number('frequencyPenalty', (n) => n >= -2 && n <= 2, range(-2, 2));
  if (given.reasoning !== undefined && !REASONING.includes(given.reasoning as string))
    refuse('settings.reasoning', `must be one of ${REASONING.join(', ')}${got(given.reasoning)}`);
  const stops = given.stopSequences;
  if (stops === undefined) return;
  if (typeof stops === 'string') {
    refuse(
      'settings.stopSequences',
      `must be an array of strings: write \`stopSequences: [${JSON.stringify(stops)}]\``,
    );
  }
  if (!Array.isArray(stops)) refuse('settings.stopSequences', `must be an array of strings${got(stops)}`);
  // How many a provider takes differs (OpenAI 4): more is its 400, which aborts the call.
  (stops as unknown[]).forEach((s, i) => {
    if (typeof s !== 'string' || s === '') {
      refuse(`settings.stopSequences[${i}]`, `must be a non-empty string${got(s)}`);
    }
  });
}
