import { describe, expect, it } from 'vitest';
import { UsageError } from '../../../cli/args.js';
import { budgetFlagOf, budgetFromFlags } from '../../../cli/budget-flags.js';
import { runCli } from '../../harness/cli.js';

describe('the budget flags of call and turn', () => {
  it('make the budget they name, and none without them', () => {
    expect(budgetFromFlags({})).toBeUndefined();
    expect(budgetFromFlags({ 'budget-usd': '0.25', 'budget-tokens': '20000' })).toEqual({
      maxCostUsd: 0.25,
      maxTotalTokens: 20000,
    });
  });

  it.each([
    ['budget-usd', 'cheap'],
    ['budget-tokens', ''],
  ] as const)('refuses --%s %j as no number, naming the flag', (flag, text) => {
    expect(() => budgetFromFlags({ [flag]: text })).toThrow(UsageError);
    expect(() => budgetFromFlags({ [flag]: text })).toThrow(`\`--${flag}\` must be a number`);
  });

  it('turns a refused budget field back into its flag', () => {
    expect(budgetFlagOf('budget.maxCostUsd')).toBe('--budget-usd');
    expect(budgetFlagOf('budget.maxTotalTokens')).toBe('--budget-tokens');
    expect(budgetFlagOf('settings.topP')).toBeUndefined();
  });

  it.each(['call', 'turn'])(
    '%s refuses a negative --budget-usd with exit 2 before anything starts',
    async (command) => {
      const { code, stderr } = await runCli([
        command,
        '--model',
        'local:m',
        '--prompt',
        'hi',
        '--budget-usd=-1',
      ]);
      expect(code).toBe(2);
      expect(stderr).toContain('`--budget-usd`: must be a finite number of USD, 0 or more (got -1)');
    },
  );

  it.each(['call', 'turn'])('%s refuses a fractional --budget-tokens, naming the flag', async (command) => {
    const { code, stderr } = await runCli([
      command,
      '--model',
      'local:m',
      '--prompt',
      'hi',
      '--budget-tokens',
      '1.5',
    ]);
    expect(code).toBe(2);
    expect(stderr).toContain('`--budget-tokens`: must be a whole number of tokens');
  });
});
