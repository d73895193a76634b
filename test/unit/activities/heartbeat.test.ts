import { Context } from '@temporalio/activity';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { HEARTBEAT_INTERVAL_MS, startHeartbeat } from '../../../activities/heartbeat.js';
import { heartbeatTimeoutMs } from '../../../common/heartbeat.js';

/** Runs an activity that heartbeats for `forMs` of fake time; returns the fake times of its heartbeats. */
async function beatsOver(forMs: number, intervalMs: number | undefined, heartbeatTimeoutMs?: number) {
  vi.useFakeTimers();
  const env = new MockActivityEnvironment(
    heartbeatTimeoutMs === undefined ? undefined : { heartbeatTimeoutMs },
    {
      logger: new DefaultLogger('ERROR'),
    },
  );
  const at: number[] = [];
  const t0 = Date.now();
  env.on('heartbeat', () => at.push(Date.now() - t0));
  const done = env.run(async () => {
    const stop = startHeartbeat(Context.current(), { startedAt: 'x' }, intervalMs);
    await new Promise((resolve) => setTimeout(resolve, forMs));
    stop();
  });
  await vi.advanceTimersByTimeAsync(forMs + 1000);
  await done;
  return at;
}

afterEach(() => {
  vi.useRealTimers();
});

describe('startHeartbeat', () => {
  it("beats every 5 s by default (the contract's cadence: each recorded beat is a billed action)", async () => {
    expect(HEARTBEAT_INTERVAL_MS).toBe(5000);
    const at = await beatsOver(12_000, undefined, heartbeatTimeoutMs(undefined));
    expect(at).toEqual([5000, 10_000]);
  });

  it('beats only after the first interval, then every interval, and stops when told', async () => {
    const at = await beatsOver(3 * HEARTBEAT_INTERVAL_MS + 10, undefined);
    expect(at).toEqual([1, 2, 3].map((k) => k * HEARTBEAT_INTERVAL_MS));
  });

  it('beats at least every half heartbeat timeout, whatever interval it is given', async () => {
    const at = await beatsOver(1010, 60_000, 400);
    expect(at).toEqual([200, 400, 600, 800, 1000]);
  });
});

describe('startHeartbeat, a second loop in one activity', () => {
  it("beats on the first loop's grid: a check that ended just before a beat does not push the next one a whole interval later", async () => {
    vi.useFakeTimers();
    const env = new MockActivityEnvironment(undefined, { logger: new DefaultLogger('ERROR') });
    const at: number[] = [];
    const t0 = Date.now();
    env.on('heartbeat', () => at.push(Date.now() - t0));
    const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    const done = env.run(async () => {
      // The fleet-health check: 4.9 s under its own loop, no beat yet.
      const check = startHeartbeat(Context.current(), { startedAt: 'x' }, 5000);
      await sleep(4900);
      check();
      // The request: its loop beats at 5 s from the activity's start, then every 5 s.
      const request = startHeartbeat(Context.current(), { startedAt: 'x' }, 5000);
      await sleep(10_200);
      request();
    });
    await vi.advanceTimersByTimeAsync(16_000);
    await done;
    expect(at).toEqual([5000, 10_000, 15_000]);
  });
});

describe('heartbeatTimeoutMs', () => {
  it("is three beats of the worker's cadence, the default's when the worker did not say", () => {
    expect(heartbeatTimeoutMs(1000)).toBe(3000);
    expect(heartbeatTimeoutMs(undefined)).toBe(15_000);
    expect(heartbeatTimeoutMs(0)).toBe(15_000);
  });
});
