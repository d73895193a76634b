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

  it.each([
    ['max-output-tokens', 'lots'],
    ['temperature', ''],
    ['top-p', '0.9x'],
    ['seed', 'NaN'],
  ] as const)('refuses --%s %j as no number, naming the flag', (flag, text) => {
    expect(() => settingsFromFlags({ [flag]: text })).toThrow(UsageError);
    expect(() => settingsFromFlags({ [flag]: text })).toThrow(`\`--${flag}\` must be a number`);
  });

  it('turns a refused settings field back into its flag', () => {
    expect(settingsFlagOf('settings.maxOutputTokens')).toBe('--max-output-tokens');
    expect(settingsFlagOf('settings.topP')).toBe('--top-p');
    expect(settingsFlagOf('settings.stopSequences[1]')).toBe('--stop');
    expect(settingsFlagOf('prompt')).toBeUndefined();
  });
});
