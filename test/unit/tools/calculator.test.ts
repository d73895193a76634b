import { describe, expect, it } from 'vitest';
import { CalculatorError, evaluate } from '../../../activities/tools/calculator.js';

describe('the calculator tool evaluates arithmetic without eval', () => {
  it.each([
    ['6 * 7', 42],
    ['2 + 3 * 4', 14],
    ['(2 + 3) * 4', 20],
    ['2 ^ 3 ^ 2', 512],
    ['-2 ^ 2', -4],
    ['--3', 3],
    ['7 % 4', 3],
    ['1.5e3 / .5', 3000],
    ['  10 - 2 - 3 ', 5],
  ])('%s = %d', (expression, value) => {
    expect(evaluate(expression)).toBe(value);
  });

  it.each([
    ['', 'empty'],
    ['1 / 0', 'division by zero'],
    ['(1 + 2', 'not closed'],
    ['2 +', 'ends too early'],
    ['process.exit()', 'cannot read'],
    ['1 2', 'unexpected'],
    ['10 ^ 400', 'finite'],
  ])('refuses %j (%s)', (expression, why) => {
    expect(() => evaluate(expression)).toThrow(CalculatorError);
    expect(() => evaluate(expression)).toThrow(why);
  });
});
