import { describe, expect, it } from 'vitest';
import { DEV_TIMER_MAX_TIME_SHIFT_MS, FAIRNESS_ARGS, timerShiftArgs } from '../../../worker/dev-server.js';

describe('the dev server timer look-ahead', () => {
  it('is 10 ms by default, passed to start-dev as a JSON duration in a dynamic config value', () => {
    expect(DEV_TIMER_MAX_TIME_SHIFT_MS).toBe(10);
    expect(timerShiftArgs()).toEqual(['--dynamic-config-value', 'history.timerProcessorMaxTimeShift="10ms"']);
    expect(timerShiftArgs(1000)).toEqual([
      '--dynamic-config-value',
      'history.timerProcessorMaxTimeShift="1000ms"',
    ]);
  });

  it('refuses a shift that is not a whole number of ms, naming the option', () => {
    for (const bad of [0, -5, 2.5, Number.NaN]) {
      expect(() => timerShiftArgs(bad)).toThrow(/^`timerMaxTimeShiftMs` must be a whole number of ms/);
    }
  });
});

describe("the dev server's task fairness", () => {
  it('is turned on with a dynamic config value, so tenants share a backlogged queue by weight', () => {
    expect(FAIRNESS_ARGS).toEqual(['--dynamic-config-value', 'matching.enableFairness=true']);
  });
});
