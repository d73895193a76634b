import type { ModelSettings } from '../common/attempt.js';
import { UsageError } from './args.js';

/** `parseArgs` options of the generation settings flags (`call` and `turn`). */
export const SETTINGS_FLAG_OPTIONS = {
  'max-output-tokens': { type: 'string' },
  temperature: { type: 'string' },
  'top-p': { type: 'string' },
  'top-k': { type: 'string' },
  'presence-penalty': { type: 'string' },
  'frequency-penalty': { type: 'string' },
  stop: { type: 'string', multiple: true },
  seed: { type: 'string' },
  reasoning: { type: 'string' },
} as const;

/** The settings flags as `parseArgs` gives them. */
export interface SettingsFlagValues {
  'max-output-tokens'?: string | undefined;
  temperature?: string | undefined;
  'top-p'?: string | undefined;
  'top-k'?: string | undefined;
  'presence-penalty'?: string | undefined;
  'frequency-penalty'?: string | undefined;
  stop?: string[] | undefined;
  seed?: string | undefined;
  reasoning?: string | undefined;
}

/** The flag that sets each `settings` field. */
const FLAG_OF_SETTING: Readonly<Record<string, string>> = {
  maxOutputTokens: '--max-output-tokens',
  temperature: '--temperature',
  topP: '--top-p',
  topK: '--top-k',
  presencePenalty: '--presence-penalty',
  frequencyPenalty: '--frequency-penalty',
  stopSequences: '--stop',
  seed: '--seed',
  reasoning: '--reasoning',
};

const NUMBER = /^[+-]?(\d+(\.\d*)?|\.\d+)(e[+-]?\d+)?$/i;

/**
 * The call's `settings` from its flags, `undefined` when none is given. Only the syntax is checked here (a
 * number is a number); the ranges are the input check's (`checkSettings`), whose refusals
 * {@link settingsFlagOf} turns back into flags.
 */
export function settingsFromFlags(values: SettingsFlagValues): ModelSettings | undefined {
  const settings: ModelSettings = {};
  const number = (
    flag: Exclude<keyof SettingsFlagValues, 'stop' | 'reasoning'>,
    field:
      'maxOutputTokens' | 'temperature' | 'topP' | 'topK' | 'presencePenalty' | 'frequencyPenalty' | 'seed',
  ) => {
    const text = values[flag];
    if (text === undefined) return;
    if (typeof text !== 'string' || !NUMBER.test(text.trim())) {
      throw new UsageError(`\`--${flag}\` must be a number, not ${JSON.stringify(text)}.`);
    }
    settings[field] = Number(text);
  };
  number('max-output-tokens', 'maxOutputTokens');
  number('temperature', 'temperature');
  number('top-p', 'topP');
  number('top-k', 'topK');
  number('presence-penalty', 'presencePenalty');
  number('frequency-penalty', 'frequencyPenalty');
  number('seed', 'seed');
  if (values.stop !== undefined) settings.stopSequences = [...values.stop];
  // Which efforts there are is the input check's list; it refuses any other as `--reasoning`.
  if (values.reasoning !== undefined) settings.reasoning = values.reasoning as ModelSettings['reasoning'];
  return Object.keys(settings).length > 0 ? settings : undefined;
}

/** The flag of an input field `settings.<name>` (or `settings.stopSequences[i]`), or `undefined` for others. */
export function settingsFlagOf(field: string): string | undefined {
  const match = /^settings\.(\w+)/.exec(field);
  return match ? FLAG_OF_SETTING[match[1] as string] : undefined;
}

/** Help text lines for the settings flags, shared by `call --help` and `turn --help`. */
export const SETTINGS_HELP = `Generation settings (checked before anything starts; exit 2 naming the flag):
  --max-output-tokens N  Most tokens of the answer (a whole number, at least 1).
  --temperature X      Sampling temperature, 0 to 2 (Anthropic takes 0 to 1).
  --top-p X            Nucleus sampling, 0 to 1.
  --top-k N            Sample from the N likeliest tokens only (a whole number, at least 1).
  --presence-penalty X, --frequency-penalty X
                       Penalties for repeating, -2 to 2.
  --reasoning EFFORT   Reasoning effort: provider-default, none, minimal, low, medium, high, xhigh, max.
  --stop TEXT          A stop sequence; repeat for more (OpenAI takes at most 4).
  --seed N             A whole number, for providers that sample deterministically with one.
`;
