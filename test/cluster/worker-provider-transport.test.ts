import { describe, expect, it } from 'vitest';
import { readCallHistory } from '../../client/history-reader.js';
import { startModelCall } from '../../client/model-call-client.js';
import { ok } from '../../loopback/index.js';
import type { Toxic } from '../harness/cluster/toxiproxy.js';
import { attemptsQuery } from '../../common/queries.js';
import { useClusterFixture } from '../harness/cluster-fixture.js';
import { settle } from '../harness/settle.js';
import { useToxiproxy } from '../harness/toxiproxy.js';

/**
 * Each of Toxiproxy's transport faults between the worker and the provider, and the class the contract gives
 * what the worker sees: a reset after the request went out and a body cut short are `ConnectionLost`, a link
 * that goes silent is `ResponseTimeout`, and an answer sliced into small pieces or delayed is still an answer.
 */
const CASES: { fault: string; toxic: Toxic; expected: string | undefined }[] = [
  {
    fault: 'reset_peer',
    toxic: { type: 'reset_peer', attributes: { timeout: 0 } },
    expected: 'ConnectionLost',
  },
  { fault: 'timeout', toxic: { type: 'timeout', attributes: { timeout: 0 } }, expected: 'ResponseTimeout' },
  {
    fault: 'slicer',
    toxic: { type: 'slicer', attributes: { average_size: 8, size_variation: 4, delay: 1000 } },
    expected: undefined,
  },
  {
    fault: 'latency',
    toxic: { type: 'latency', attributes: { latency: 1000, jitter: 0 } },
    expected: undefined,
  },
  {
    fault: 'limit_data',
    toxic: { type: 'limit_data', attributes: { bytes: 64 } },
    expected: 'ConnectionLost',
  },
];

/** Room for the latency case's answer; the silent link's attempt ends here. */
const ATTEMPT_TIMEOUT_MS = 5000;

describe('transport faults between the worker and the provider (Toxiproxy)', () => {
  const { fx } = useClusterFixture({ workers: 0 });
  const toxiproxy = useToxiproxy();

  it('classifies each as the contract says', async () => {
    const upstream = new URL(fx.lp.openaiBaseURL).host;
    const providers: Record<string, unknown> = {};
    for (const c of CASES) {
      const proxy = await toxiproxy().proxy(`provider-${c.fault}`, upstream);
      await proxy.add(c.toxic);
      providers[c.fault.replace('_', '-')] = {
        type: 'openai-compatible',
        baseURL: `http://${proxy.address}/v1`,
        apiKeyEnv: 'CHAOS_LOOPBACK_KEY',
      };
    }
    await fx.startWorker({ providersFile: fx.writeProviders('proxied', providers) });

    const seen = await Promise.all(
      CASES.map(async (c) => {
        const model = `transport-${c.fault}`;
        fx.lp.script(model, [{ ...ok(`${c.fault} answered`), repeat: true }]);
        const handle = await startModelCall(
          fx.client,
          {
            model: `${c.fault.replace('_', '-')}:${model}`,
            prompt: 'hi',
            retry: { maxAttempts: 1, attemptTimeoutMs: ATTEMPT_TIMEOUT_MS },
          },
          { taskQueue: fx.taskQueue, workflowId: `cluster-transport-${c.fault}` },
        );
        const { result } = await settle(handle);
        const records = await handle.query(attemptsQuery);
        expect(readCallHistory(await handle.fetchHistory()).attempts).toEqual(records);
        expect(records, c.fault).toHaveLength(1);
        if (c.expected === undefined) expect(result?.output.text, c.fault).toBe(`${c.fault} answered`);
        return { fault: c.fault, class: records[0]?.failure?.class };
      }),
    );
    expect(seen).toEqual(CASES.map((c) => ({ fault: c.fault, class: c.expected })));
  });
});
