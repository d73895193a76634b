import { describe, expect, it } from 'vitest';
import { UsageError } from '../../../cli/args.js';
import { settingsFlagOf, settingsFromFlags } from '../../../cli/settings-flags.js';

describe('the settings flags of call and turn', () => {
  it('make the settings they name, and none without them', () => {
    expect(settingsFromFlags({})).toBeUndefined();
    expect(
      settingsFromFlags({
        'max-output-tokens': '500',
        temperature: '0.2',
        'top-p': '.9',
        stop: ['END', '\n\n'],
        seed: '-3',
      }),
    ).toEqual({
      maxOutputTokens: 500,
      temperature: 0.2,
      topP: 0.9,
      stopSequences: ['END', '\n\n'],
      seed: -3,
    });
  });

  it('make the newer settings: top-k, the penalties and the reasoning effort', () => {
    expect(
      settingsFromFlags({
        'top-k': '40',
        'presence-penalty': '0.5',
        'frequency-penalty': '-1',
        reasoning: 'low',
      }),
    ).toEqual({ topK: 40, presencePenalty: 0.5, frequencyPenalty: -1, reasoning: 'low' });
  });

  it.each([
    ['max-output-tokens', 'lots'],
    ['temperature', ''],
    ['top-p', '0.9x'],
    ['seed', 'NaN'],
    ['top-k', 'many'],
    ['presence-penalty', '1,5'],
    ['frequency-penalty', 'high'],
  ] as const)('refuses --%s %j as no number, naming the flag', (flag, text) => {
    expect(() => settingsFromFlags({ [flag]: text })).toThrow(UsageError);
    expect(() => settingsFromFlags({ [flag]: text })).toThrow(`\`--${flag}\` must be a number`);
  });

  it('turns a refused settings field back into its flag', () => {
    expect(settingsFlagOf('settings.maxOutputTokens')).toBe('--max-output-tokens');
    expect(settingsFlagOf('settings.topP')).toBe('--top-p');
    expect(settingsFlagOf('settings.stopSequences[1]')).toBe('--stop');
    expect(settingsFlagOf('settings.topK')).toBe('--top-k');
    expect(settingsFlagOf('settings.presencePenalty')).toBe('--presence-penalty');
    expect(settingsFlagOf('settings.frequencyPenalty')).toBe('--frequency-penalty');
    expect(settingsFlagOf('settings.reasoning')).toBe('--reasoning');
    expect(settingsFlagOf('prompt')).toBeUndefined();
  });
});
