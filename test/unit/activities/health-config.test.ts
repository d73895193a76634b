import { describe, expect, it } from 'vitest';
import { ProvidersConfigError, parseProvidersConfig } from '../../../activities/providers/config.js';
import { checkHealthConfig } from '../../../activities/providers/health-config.js';
import { healthFromEnv, healthTaskQueue, watchedBackend } from '../../../activities/health/settings.js';
import { runCli } from '../../harness/cli.js';

const entry = (health: unknown) => ({
  local: { type: 'openai-compatible', baseURL: 'http://127.0.0.1:8080/v1', health },
});

describe("the providers file's health entry", () => {
  it('accepts the example and false', () => {
    expect(() =>
      parseProvidersConfig(
        entry({ trip: { failures: 5, windowMs: 30000 }, coolDownMs: 30000, scope: 'provider' }),
      ),
    ).not.toThrow();
    expect(() => parseProvidersConfig(entry(false))).not.toThrow();
  });

  it.each([
    [{ trip: { failures: 0 } }, /`local\.health\.trip\.failures` must be a whole number from 1/],
    [{ trip: { window: 5 } }, /`local\.health\.trip\.window` is not a known field/],
    [{ coolDownMs: -1 }, /`local\.health\.coolDownMs` must be a whole number/],
    [{ coolDownMs: 600000 }, /`local\.health\.coolDownMs` \(600000\) is over `local\.health\.maxCoolDownMs`/],
    [{ scope: 'account' }, /`local\.health\.scope` must be "model" or "provider"/],
    [{ cooldown: 5 }, /`local\.health\.cooldown` is not a known field/],
    ['on', /`local\.health` must be false or an object/],
  ])('refuses %j, naming the field', (health, message) => {
    expect(() => parseProvidersConfig(entry(health))).toThrow(ProvidersConfigError);
    expect(checkHealthConfig(health, 'local.health').join('\n')).toMatch(message);
  });
});

describe('which backends fleet health watches', () => {
  it('the worker switch with defaults, a provider entry on its own, false turns one off, scope provider', () => {
    expect(watchedBackend('local:fast', false, undefined)).toBeUndefined();
    expect(watchedBackend('local:fast', true, undefined)).toEqual({
      key: 'local:fast',
      settings: { failures: 5, windowMs: 30000, coolDownMs: 30000, maxCoolDownMs: 300000 },
    });
    expect(watchedBackend('local:fast', true, false)).toBeUndefined();
    expect(watchedBackend('local:fast', false, { coolDownMs: 1000, scope: 'provider' })).toMatchObject({
      key: 'local',
      settings: { coolDownMs: 1000 },
    });
  });

  it('MODEL_RETRY_HEALTH=on, and the limit queues keep the call queue', () => {
    expect(healthFromEnv({ MODEL_RETRY_HEALTH: 'on' })).toBe(true);
    expect(healthFromEnv({ MODEL_RETRY_HEALTH: 'off' })).toBe(false);
    expect(healthFromEnv({})).toBe(false);
    expect(healthTaskQueue('model-retry/limit/local:fast')).toBe('model-retry');
    expect(healthTaskQueue('model-retry')).toBe('model-retry');
  });
});

describe('model-retry health (arguments, no server)', () => {
  it('explains itself', async () => {
    const { code, stdout } = await runCli(['health', '--help']);
    expect(code).toBe(0);
    expect(stdout).toMatch(/health reset BACKEND/);
  });

  it('refuses an unknown verb or flag with exit 2', async () => {
    expect((await runCli(['health', 'close', 'local:a'])).code).toBe(2);
    expect((await runCli(['health', 'reset'])).code).toBe(2);
    const flag = await runCli(['health', '--jsn']);
    expect(flag.code).toBe(2);
    expect(flag.stderr).toMatch(/--jsn/);
  });
});
