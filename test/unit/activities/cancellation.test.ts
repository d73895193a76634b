import { ActivityCancellationDetails, CancelledFailure } from '@temporalio/common';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { hang, ok, startLoopbackProvider } from '../../../loopback/index.js';
import type { LoopbackProvider } from '../../../loopback/index.js';
import {
  attemptFailure,
  input,
  loopbackRegistry,
  quietEnvironment,
  rejection,
  runAttempt,
} from './helpers.js';

let lp: LoopbackProvider;
beforeEach(async () => {
  lp = await startLoopbackProvider();
});
afterEach(async () => {
  await lp.close();
});

/** Starts an attempt on a provider that never answers and waits until the provider recorded the request. */
async function hangingAttempt() {
  lp.script('m', [hang()]);
  const attempt = runAttempt(loopbackRegistry(lp), input('local:m'));
  // An attempt that failed before its request arrived fails the test with its own error, not a test timeout.
  await Promise.race([lp.waitForRequests(1, 'm'), attempt.done]);
  return attempt;
}

describe('modelRequest, cancelled', () => {
  it('rethrows the CancelledFailure when the workflow asked for it, and aborts the request', async () => {
    const { env, done } = await hangingAttempt();
    env.cancel('CANCELLED', new ActivityCancellationDetails({ cancelRequested: true }));
    const error = await rejection(done);
    expect(error).toBeInstanceOf(CancelledFailure);
    expect((error as CancelledFailure).message).toBe('CANCELLED');
    await lp.idle();
    expect(lp.requests('m')[0]?.outcome).toBe('client-aborted');
  });

  it('fails as WorkerLost (never cancelled) when Core cancels it for a worker shutdown', async () => {
    const { env, done } = await hangingAttempt();
    env.cancel('WORKER_SHUTDOWN', new ActivityCancellationDetails({ workerShutdown: true }));
    const { details } = await attemptFailure(done);
    expect(details).toMatchObject({ class: 'WorkerLost' });
    expect(details.status).toBeUndefined();
    await lp.idle();
    expect(lp.requests('m')[0]?.outcome).toBe('client-aborted');
  });

  it('fails as WorkerLost when the SDK cancels it at shutdown (reason WORKER_SHUTDOWN, no detail flag)', async () => {
    const { env, done } = await hangingAttempt();
    env.cancel('WORKER_SHUTDOWN', ActivityCancellationDetails.fromProto(undefined));
    const { details } = await attemptFailure(done);
    expect(details.class).toBe('WorkerLost');
  });

  it('is WorkerLost when a shutdown and a requested cancellation come together', async () => {
    const { env, done } = await hangingAttempt();
    env.cancel(
      'WORKER_SHUTDOWN',
      new ActivityCancellationDetails({ workerShutdown: true, cancelRequested: true }),
    );
    expect((await attemptFailure(done)).details.class).toBe('WorkerLost');
  });

  it('sends nothing when it was cancelled before it started', async () => {
    lp.script('m', [ok()]);
    const env = quietEnvironment();
    env.cancel();
    const error = await rejection(runAttempt(loopbackRegistry(lp), input('local:m'), env).done);
    expect(error).toBeInstanceOf(CancelledFailure);
    expect(lp.requestCount()).toBe(0);
    lp.reset();
  });

  it('stops heartbeating once it ends', async () => {
    const { env, done } = await hangingAttempt();
    let beats = 0;
    env.on('heartbeat', () => beats++);
    env.cancel();
    await rejection(done);
    const after = beats;
    await new Promise((resolve) => setTimeout(resolve, 1200));
    expect(beats).toBe(after);
  });
});
