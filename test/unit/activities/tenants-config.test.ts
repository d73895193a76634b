import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  TenantsConfigError,
  createActivities,
  createProviderRegistry,
  parseTenantsConfig,
  readTenantsFile,
  tenantsFromEnv,
} from '../../../activities/index.js';
import type { TenantsConfig } from '../../../activities/index.js';

const dir = mkdtempSync(join(tmpdir(), 'model-retry-tenants-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A file in the test's folder holding `text`; its path. */
function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

const GOOD: TenantsConfig = {
  acme: { maxTotalTokens: 2_000_000, period: 'day', weight: 2 },
  globex: { maxCostUsd: 25, windowMs: 3_600_000 },
  batch: { weight: 0.5 },
  '*': { maxCostUsd: 5, period: 'month' },
};

/** The error `run` throws (it must throw a TenantsConfigError). */
function refusal(run: () => unknown): TenantsConfigError {
  try {
    run();
  } catch (error) {
    if (error instanceof TenantsConfigError) return error;
    throw error;
  }
  throw new Error('it was accepted');
}

const providers = createProviderRegistry({
  local: {
    type: 'openai-compatible',
    baseURL: 'http://127.0.0.1:8080/v1',
    models: { fast: { maxOutputTokens: 8192 }, priced: { pricing: { inputPerMTok: 1, outputPerMTok: 2 } } },
  },
});

describe('the tenants file', () => {
  it('is read and checked: each tenant, `*` for the rest, with weight-only entries', () => {
    expect(parseTenantsConfig(GOOD, 'tenants.json')).toEqual(GOOD);
    expect(readTenantsFile(file('good.json', JSON.stringify(GOOD)))).toEqual(GOOD);
    expect(parseTenantsConfig({})).toEqual({});
  });

  it('is a frozen copy: changing the object it was read from changes nothing the worker tells', () => {
    const given = { acme: { maxTotalTokens: 10 } };
    const checked = parseTenantsConfig(given);
    given.acme.maxTotalTokens = 99;
    expect(checked.acme?.maxTotalTokens).toBe(10);
    expect(Object.isFrozen(checked) && Object.isFrozen(checked.acme)).toBe(true);
  });

  it('is refused naming the file and every problem, each with its field and the fix', () => {
    const error = refusal(() =>
      parseTenantsConfig(
        {
          acme: { maxTotalTokens: 0, period: 'week' },
          '': { weight: 1 },
          ['x'.repeat(65)]: {},
          globex: { maxCostUsd: 1, budget: 3 },
        },
        'tenants.json',
      ),
    );
    expect(error.source).toBe('tenants.json');
    expect(error.problems).toEqual([
      expect.stringContaining('`acme.maxTotalTokens` must be a whole number of tokens, 1 or more'),
      expect.stringContaining('`acme.period` must be "day" or "month"'),
      'tenant name "" is empty: name the tenant, like "acme"',
      expect.stringContaining('is 65 UTF-8 bytes long (at most 64'),
      expect.stringContaining('`globex.budget` is not a field of a tenant; the fields are maxCostUsd'),
    ]);
    expect(error.message).toMatch(/^tenants\.json: \n- `acme\.maxTotalTokens`/);
  });

  it.each([
    [[], 'expected an object of tenants by name, like { "acme": {'],
    ['acme', 'expected an object of tenants by name'],
    [null, 'expected an object of tenants by name'],
  ])('refuses %j as a whole', (value, message) => {
    expect(refusal(() => parseTenantsConfig(value, 'tenants.json')).message).toContain(message);
  });

  it('refuses a file it cannot read or parse, naming the file', () => {
    const missing = join(dir, 'missing.json');
    expect(refusal(() => readTenantsFile(missing)).message).toBe(
      `${missing}: cannot read the tenants file (ENOENT): check the path`,
    );
    const broken = file('broken.json', '{ "acme": ');
    expect(refusal(() => readTenantsFile(broken)).message).toMatch(/broken\.json: not valid JSON/);
  });

  it('is named by MODEL_RETRY_TENANTS; unset or empty: no tenants file', () => {
    const path = file('env.json', JSON.stringify(GOOD));
    expect(tenantsFromEnv({ MODEL_RETRY_TENANTS: path })).toEqual(GOOD);
    expect(tenantsFromEnv({})).toBeUndefined();
    expect(tenantsFromEnv({ MODEL_RETRY_TENANTS: ' ' })).toBeUndefined();
    const bad = file('env-bad.json', JSON.stringify({ acme: { weight: -1 } }));
    expect(refusal(() => tenantsFromEnv({ MODEL_RETRY_TENANTS: bad })).message).toBe(
      `${bad} (named by MODEL_RETRY_TENANTS): \`acme.weight\` must be a number above 0 and at most 1000, like 2 (got -1); leave it out for 1`,
    );
  });
});

describe("the worker's activities with a tenants file", () => {
  it('refuse to be built with a bad one, given or named by MODEL_RETRY_TENANTS, naming it and the field', () => {
    const given = refusal(() => createActivities({ providers, env: {}, tenants: { acme: { weight: 0 } } }));
    expect(given.message).toContain('the `tenants` option: `acme.weight` must be a number above 0');
    const bad = file(
      'worker-bad.json',
      JSON.stringify({ acme: { maxCostUsd: 1, period: 'day', windowMs: 60_000 } }),
    );
    const named = refusal(() => createActivities({ providers, env: { MODEL_RETRY_TENANTS: bad } }));
    expect(named.message).toContain(`${bad} (named by MODEL_RETRY_TENANTS)`);
    expect(named.message).toContain('`acme.windowMs` is given with `acme.period`');
  });

  it('tell the workflows the tenants and each model output limit (modelRetryConfig)', async () => {
    const activities = createActivities({ providers, env: {}, tenants: GOOD });
    // A run is told its own tenant's entry and the default, never the rest of the file.
    const given = await activities.modelRetryConfig({ tenant: 'acme' });
    expect(given.tenants).toEqual({ acme: GOOD.acme, '*': GOOD['*'] });
    expect(given.outputLimits).toEqual({ 'local:fast': 8192 });
    expect((await activities.modelRetryConfig({ tenant: 'initech' })).tenants).toEqual({ '*': GOOD['*'] });
    expect((await activities.modelRetryConfig()).tenants).toEqual({ '*': GOOD['*'] });
    const path = file('worker-good.json', JSON.stringify(GOOD));
    const named = await createActivities({
      providers,
      env: { MODEL_RETRY_TENANTS: path },
    }).modelRetryConfig({ tenant: 'globex' });
    expect(named.tenants).toEqual({ globex: GOOD.globex, '*': GOOD['*'] });
  });

  it('the option wins over MODEL_RETRY_TENANTS, which is then not read', async () => {
    const env = { MODEL_RETRY_TENANTS: join(dir, 'not-there.json') };
    const config = await createActivities({
      providers,
      env,
      tenants: { acme: { weight: 3 } },
    }).modelRetryConfig({ tenant: 'acme' });
    expect(config.tenants).toEqual({ acme: { weight: 3 } });
  });

  it('without one (and without output limits) say nothing of either', async () => {
    const config = await createActivities({
      providers: createProviderRegistry({}),
      env: {},
    }).modelRetryConfig();
    expect(config).not.toHaveProperty('tenants');
    expect(config).not.toHaveProperty('outputLimits');
  });

  it('start with a cost envelope though a model has no price: the calls that need one are refused later', async () => {
    const config = await createActivities({
      providers,
      env: {},
      tenants: { '*': { maxCostUsd: 5 } },
    }).modelRetryConfig();
    expect(config.tenants).toEqual({ '*': { maxCostUsd: 5 } });
    expect(config.pricing).not.toHaveProperty('local:fast');
  });
});
