import type { BundleOptions, WorkerOptions } from '@temporalio/worker';
import { describe, expect, it } from 'vitest';
import { createProviderRegistry } from '../../../activities/providers/registry.js';
import { ClaimCheckCodec } from '../../../payloads/claim-check-codec.js';
import { AesGcmCodec } from '../../../payloads/aes-gcm-codec.js';
import { FolderPayloadStore } from '../../../payloads/payload-store.js';
import { ModelRetryPlugin, aiSdkPreloadPath } from '../../../plugin/index.js';
import { key } from '../payloads/helpers.js';

const providers = createProviderRegistry({});
const worker = (more: Partial<WorkerOptions> = {}) => ({ taskQueue: 'q', ...more }) as WorkerOptions;

describe('ModelRetryPlugin', () => {
  it("gives a Worker model-retry's activities, its own of the same name winning, and lets heartbeats through", () => {
    const mine = async () => 'mine';
    const options = new ModelRetryPlugin({ activities: { providers } }).configureWorker(
      worker({ activities: { lookupWeather: mine, runTool: mine } }),
    );
    const activities = options.activities as Record<string, unknown>;
    expect(Object.keys(activities)).toEqual(
      expect.arrayContaining(['modelRequest', 'lookupWeather', 'runTool']),
    );
    expect(activities.runTool).toBe(mine);
    expect(options.maxHeartbeatThrottleInterval).toBe(5000);
    expect(options.defaultHeartbeatThrottleInterval).toBe(5000);
    const own = new ModelRetryPlugin({ activities: { providers } }).configureWorker(
      worker({ maxHeartbeatThrottleInterval: 1000 }),
    );
    expect(own.maxHeartbeatThrottleInterval).toBe(1000);
  });

  it("tells the workflows the cadence its Workers heartbeat at: its option, or the Worker's own", async () => {
    const cadenceOf = async (options: WorkerOptions) =>
      (
        await (
          options.activities as { modelRetryConfig: () => Promise<{ heartbeatMs?: number }> }
        ).modelRetryConfig()
      ).heartbeatMs;
    const byDefault = new ModelRetryPlugin({ activities: { providers } }).configureWorker(worker());
    expect(await cadenceOf(byDefault)).toBe(5000);
    const set = new ModelRetryPlugin({
      activities: { providers },
      heartbeatThrottleMs: 2000,
    }).configureWorker(worker());
    expect(set.maxHeartbeatThrottleInterval).toBe(2000);
    expect(await cadenceOf(set)).toBe(2000);
    const own = new ModelRetryPlugin({
      activities: { providers },
      heartbeatThrottleMs: 2000,
    }).configureWorker(worker({ maxHeartbeatThrottleInterval: '1 second' }));
    expect(own.maxHeartbeatThrottleInterval).toBe(1000);
    expect(await cadenceOf(own)).toBe(1000);
    // One plugin, two Workers: the second, with no setting of its own, takes the plugin's, not the first's.
    const shared = new ModelRetryPlugin({ activities: { providers }, heartbeatThrottleMs: 2000 });
    expect(
      shared.configureWorker(worker({ maxHeartbeatThrottleInterval: '1 second' }))
        .maxHeartbeatThrottleInterval,
    ).toBe(1000);
    const second = shared.configureWorker(worker());
    expect(second.maxHeartbeatThrottleInterval).toBe(2000);
    expect(await cadenceOf(second)).toBe(2000);
    expect(() => new ModelRetryPlugin({ heartbeatThrottleMs: 0 })).toThrow('heartbeatThrottleMs');
    expect(() => new ModelRetryPlugin({ heartbeatThrottleMs: 50 })).toThrow('at least 100');
  });

  it('builds no activities for a Client, whose options get only the data converter', () => {
    // A providers file that does not exist: a Worker would refuse to start; a Client never reads it.
    const plugin = new ModelRetryPlugin({
      activities: { env: { MODEL_RETRY_PROVIDERS: '/nonexistent/providers.json' } },
      payloads: { codecKeys: [key('k1')] },
    });
    const client = plugin.configureClient({});
    expect(client.dataConverter?.payloadCodecs?.some((c) => c instanceof AesGcmCodec)).toBe(true);
    expect(() => plugin.configureWorker(worker())).toThrow('/nonexistent/providers.json');
  });

  it('tells the activities there is a payload store when the claim-check codec is on', async () => {
    const store = new FolderPayloadStore('/tmp/model-retry-plugin-test-store');
    const plugin = new ModelRetryPlugin({ activities: { providers }, payloads: { payloadStore: store } });
    const options = plugin.configureWorker(worker());
    expect(options.dataConverter?.payloadCodecs?.some((c) => c instanceof ClaimCheckCodec)).toBe(true);
    const config = (options.activities as { modelRetryConfig: () => Promise<{ payloadStore: boolean }> })
      .modelRetryConfig;
    expect((await config()).payloadStore).toBe(true);
  });

  it('passes the tenants to the activities: a Worker with a bad one is refused, a good one told to workflows', async () => {
    const bad = new ModelRetryPlugin({ activities: { providers, tenants: { acme: { weight: -1 } } } });
    expect(() => bad.configureWorker(worker())).toThrow('`acme.weight` must be a number above 0');
    const tenants = { acme: { maxTotalTokens: 1000, period: 'day' as const }, '*': { weight: 1 } };
    const options = new ModelRetryPlugin({ activities: { providers, tenants } }).configureWorker(worker());
    const config = (
      options.activities as {
        modelRetryConfig: (ask?: { tenant?: string }) => Promise<{ tenants?: unknown }>;
      }
    ).modelRetryConfig;
    expect((await config({ tenant: 'acme' })).tenants).toEqual(tenants);
  });

  it("puts the AI SDK's polyfills first in the workflow bundle", () => {
    const bundler = new ModelRetryPlugin().configureBundler({ workflowsPath: '/w.ts' } as BundleOptions);
    const config = bundler.webpackConfigHook?.({ entry: ['/w.ts'] }) as { entry: string[] };
    expect(config.entry).toEqual([aiSdkPreloadPath(), '/w.ts']);
  });
});
