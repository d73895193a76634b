import { describe, expect, it } from 'vitest';
import { fail, ok } from '../../loopback/index.js';
import { createDataConverter } from '../../payloads/data-converter.js';
import { FolderPayloadStore } from '../../payloads/payload-store.js';
import { modelCallFixture, runCall } from '../harness/model-call.js';
import { useFixture, useTempDir } from '../harness/fixture.js';

describe("Temporal's limits are the plan's limits", () => {
  const { fx, worker } = useFixture();

  it('stops a call with a long prompt and a failing provider `history-limit` before its history passes the plan', async () => {
    const m = fx.model();
    fx.lp.script(
      m.id,
      Array.from({ length: 30 }, () => fail(503)),
    );
    const limit = 8 * 1024 * 1024;
    // 1.2 MB of prompt in every attempt's input, no payload store, a deadline (so the last wait repeats):
    // without the limit the run would go on until Temporal terminated it at 50 MB.
    const run = await runCall(fx, worker, {
      model: m.name,
      prompt: 'tell me about retries. '.repeat(52_000),
      retry: { waits: [10], deadlineInMs: 600_000, reserveMs: 1000, historyLimit: { bytes: limit } },
    });
    expect(run.details?.stopReason).toBe('history-limit');
    expect(JSON.stringify(run.details)).toContain('payload store');
    expect((await run.handle.describe()).status.name).toBe('FAILED');
    expect(run.records.length).toBeGreaterThanOrEqual(4);
    expect(run.records.length).toBeLessThan(8);
    const size = Buffer.byteLength(JSON.stringify(run.history));
    expect(size).toBeLessThan(limit * 1.5); // the JSON form is larger than Temporal's count, never by half
    expect(fx.lp.requestCount(m.id)).toBe(run.records.length);
  });

  const dir = useTempDir('model-retry-history-limit-');

  it('schedules an input over 2 MB when the worker says it has a payload store (its one marker)', async () => {
    const converter = () => createDataConverter({ payloadStore: new FolderPayloadStore(dir) });
    const own = await modelCallFixture({ dataConverter: converter() });
    try {
      const w = await own.temporal.startWorker({
        deps: { providers: own.providers },
        dataConverter: converter(),
      });
      const m = own.model();
      own.lp.script(m.id, [fail(503), ok('read it all')]);
      const run = await runCall(own, w, {
        model: m.name,
        prompt: 'a very long document. '.repeat(120_000), // 2.6 MB
        retry: { waits: [10] },
      });
      expect(run.result?.output.text).toBe('read it all');
      expect(run.historyJson).toContain('MARKER_RECORDED');
    } finally {
      await own.close();
    }
  });
});
