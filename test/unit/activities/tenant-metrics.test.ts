import { beforeAll, describe, expect, it } from 'vitest';
import { Runtime } from '@temporalio/worker';
import { tenantMetrics } from '../../../activities/tenants/metrics.js';
import { freePort } from '../../../worker/free-port.js';
import { until } from '../../harness/until.js';

/** The value of the Prometheus sample `name{...}` whose labels are exactly `labels`. */
function sample(text: string, name: string, labels: Record<string, string>): number | undefined {
  const want = Object.entries(labels)
    .map(([k, v]) => `${k}="${v}"`)
    .join(',');
  const line = text.split('\n').find((l) => l.startsWith(`${name}{${want}} `));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

/**
 * The tenant metrics through a real metric meter: the Temporal runtime's, exported by its Prometheus endpoint as a
 * worker's are (this test file's process holds the runtime alone).
 */
describe('tenant metrics', () => {
  let url: string;
  beforeAll(async () => {
    const port = await freePort();
    Runtime.install({ telemetryOptions: { metrics: { prometheus: { bindAddress: `127.0.0.1:${port}` } } } });
    url = `http://127.0.0.1:${port}/metrics`;
  });

  it('count what a tenant reserved, billed and was refused, tokens whole and USD as a float sum', async () => {
    const acme = tenantMetrics(Runtime.instance().metricMeter, 'acme');
    acme.reserved({ tokens: 1200, costUsd: 0.0042 });
    acme.reserved({ tokens: 300, costUsd: 0.001 });
    acme.billed({ tokens: 900.4, costUsd: 0.0031 });
    acme.refused('held');
    acme.refused('spent');
    acme.refused('spent');
    // A value no meter takes (a provider's odd usage) counts nothing and fails nothing.
    acme.billed({ tokens: Number.NaN, costUsd: -1 });

    const text = await until('the tenant metrics', async () => {
      const body = await (await fetch(url)).text();
      return body.includes('model_retry_tenant_refused{') ? body : undefined;
    });
    const tenant = { tenant: 'acme' };
    expect(sample(text, 'model_retry_tenant_reserved_tokens', tenant)).toBe(1500);
    expect(sample(text, 'model_retry_tenant_reserved_usd_sum', tenant)).toBeCloseTo(0.0052, 10);
    expect(sample(text, 'model_retry_tenant_reserved_usd_count', tenant)).toBe(2);
    expect(sample(text, 'model_retry_tenant_billed_tokens', tenant)).toBe(900);
    expect(sample(text, 'model_retry_tenant_billed_usd_sum', tenant)).toBeCloseTo(0.0031, 10);
    expect(sample(text, 'model_retry_tenant_refused', { ...tenant, why: 'spent' })).toBe(2);
    expect(sample(text, 'model_retry_tenant_refused', { ...tenant, why: 'held' })).toBe(1);
  });
});
