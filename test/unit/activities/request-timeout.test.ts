import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { requestTimeoutMs } from '../../../activities/attempt/attempt-time.js';
import { hang, startLoopbackProvider } from '../../../loopback/index.js';
import type { LoopbackProvider } from '../../../loopback/index.js';
import { attemptFailure, input, loopbackRegistry, runAttempt } from './helpers.js';

let lp: LoopbackProvider;
beforeEach(async () => {
  lp = await startLoopbackProvider();
});
afterEach(async () => {
  await lp.close();
});

describe("an attempt's request timeout counts from its start, within the call's deadline", () => {
  it('is T without a deadline, and what is left of the deadline at the start when that is shorter', () => {
    const at = 1_000_000;
    expect(requestTimeoutMs(input('local:m', { timeoutMs: 30_000 }), at)).toBe(30_000);
    expect(requestTimeoutMs(input('local:m', { timeoutMs: 30_000, spendUntil: at + 90_000 }), at)).toBe(
      30_000,
    );
    // Scheduled with T = 30 s and 40 s left; started 25 s later (it waited in its limit queue): 15 s left.
    expect(requestTimeoutMs(input('local:m', { timeoutMs: 30_000, spendUntil: at + 15_000 }), at)).toBe(
      15_000,
    );
    expect(requestTimeoutMs(input('local:m', { timeoutMs: 30_000, spendUntil: at - 5 }), at)).toBe(1);
  });

  it('ends an attempt that starts close to the deadline by itself, as ResponseTimeout, before T', async () => {
    lp.script('m', [hang()]);
    const attempt = input('local:m', { timeoutMs: 120_000, spendUntil: Date.now() + 2_000 });
    const { failure, details } = await attemptFailure(runAttempt(loopbackRegistry(lp), attempt).done);
    expect(failure.type).toBe('ResponseTimeout');
    expect(details.message).toMatch(/no complete answer within \d{1,4} ms/);
  });
});
