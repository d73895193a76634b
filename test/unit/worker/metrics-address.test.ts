import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../common/config-error.js';
import { resolveMetricsAddress } from '../../../worker/metrics.js';

describe('the worker metrics address', () => {
  it('comes from --metrics, else MODEL_RETRY_METRICS_ADDRESS, else there is none', () => {
    expect(resolveMetricsAddress('127.0.0.1:9464', { MODEL_RETRY_METRICS_ADDRESS: '0.0.0.0:1' })).toBe(
      '127.0.0.1:9464',
    );
    expect(resolveMetricsAddress(undefined, { MODEL_RETRY_METRICS_ADDRESS: '0.0.0.0:9464' })).toBe(
      '0.0.0.0:9464',
    );
    expect(resolveMetricsAddress(undefined, { MODEL_RETRY_METRICS_ADDRESS: '' })).toBeUndefined();
    expect(resolveMetricsAddress(undefined, {})).toBeUndefined();
    expect(resolveMetricsAddress('[::1]:9464', {})).toBe('[::1]:9464');
  });

  it('is refused, naming the flag or the variable, when it is not HOST:PORT', () => {
    expect(() => resolveMetricsAddress('9464', {})).toThrow(ConfigError);
    expect(() => resolveMetricsAddress('9464', {})).toThrow(/`--metrics` must be HOST:PORT/);
    expect(() => resolveMetricsAddress(undefined, { MODEL_RETRY_METRICS_ADDRESS: 'host:99999' })).toThrow(
      /MODEL_RETRY_METRICS_ADDRESS must be HOST:PORT/,
    );
  });
});
