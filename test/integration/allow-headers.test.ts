import { beforeAll, describe, expect, it } from 'vitest';
import { startModelCall } from '../../client/model-call-client.js';
import { InvalidModelCallInputError } from '../../common/input-error.js';
import { ok } from '../../loopback/index.js';
import { useFixture } from '../harness/fixture.js';
import { finishCall } from '../harness/model-call.js';
import type { TestWorker } from '../harness/temporal.js';

/** A gateway's routing key: a credential by name, no secret to whoever reads this worker's histories. */
const ROUTE = { 'X-Api-Key': 'tenant-route-7' };

describe('credential headers a worker allows by name (`allowHeaders`)', () => {
  const { fx, worker: strict } = useFixture();
  let allowing: TestWorker;

  beforeAll(async () => {
    allowing = await fx.temporal.startWorker({
      deps: { providers: fx.providers, allowHeaders: ['X-API-Key'] },
    });
  });

  it('sends an allowed credential header to the provider when the caller names it too', async () => {
    const m = fx.model();
    fx.lp.script(m.id, [ok('routed')]);
    const handle = await startModelCall(
      fx.temporal.client,
      { model: m.name, prompt: 'hi', headers: ROUTE },
      { taskQueue: allowing.taskQueue, allowHeaders: ['x-api-key'] },
    );
    const run = await finishCall(fx, handle);
    expect(run.result?.output.text).toBe('routed');
    expect(fx.lp.requests(m.id)[0]?.headers['x-api-key']).toBe('tenant-route-7');
  });

  it('refuses it before anything starts when the caller does not name it', async () => {
    const m = fx.model();
    await expect(
      startModelCall(
        fx.temporal.client,
        { model: m.name, prompt: 'hi', headers: ROUTE },
        { taskQueue: allowing.taskQueue },
      ),
    ).rejects.toThrow(InvalidModelCallInputError);
    expect(fx.lp.requestCount(m.id)).toBe(0);
  });

  it('fails the call before any attempt on a worker that does not allow it, naming the header', async () => {
    const m = fx.model();
    const handle = await startModelCall(
      fx.temporal.client,
      { model: m.name, prompt: 'hi', headers: ROUTE },
      { taskQueue: strict.taskQueue, allowHeaders: ['x-api-key'] },
    );
    const run = await finishCall(fx, handle);
    expect(run.failure?.type).toBe('InvalidModelCallInput');
    expect(run.failure?.message).toContain('`headers.X-Api-Key`');
    expect(run.records).toEqual([]);
    expect(fx.lp.requestCount(m.id)).toBe(0);
  });
});
