import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

interface Service {
  image?: string;
  build?: unknown;
  ports?: string[];
  depends_on?: Record<string, { condition: string }>;
  environment?: Record<string, string>;
  command?: string[];
  stop_grace_period?: string;
}

const compose = parse(readFileSync('docker-compose.yml', 'utf8')) as { services: Record<string, Service> };
const services = compose.services;

describe('docker-compose.yml (no Docker engine here, so its structure is checked)', () => {
  it('has PostgreSQL, the Temporal server, its UI, the search-attribute setup and a worker built from this repo', () => {
    expect(Object.keys(services).sort()).toEqual([
      'postgresql',
      'temporal',
      'temporal-admin',
      'temporal-ui',
      'worker',
    ]);
    expect(services.temporal?.image).toMatch(/^temporalio\/auto-setup:/);
    expect(services['temporal-ui']?.image).toMatch(/^temporalio\/ui:/);
    expect(services.worker?.build).toBe('.');
    expect(services.worker?.command).toEqual(['worker']);
  });

  it('exposes the frontend on 7233 and the UI on 8080', () => {
    expect(services.temporal?.ports).toContain('7233:7233');
    expect(services['temporal-ui']?.ports).toContain('8080:8080');
  });

  it('starts each service after what it needs is healthy', () => {
    expect(services.temporal?.depends_on?.postgresql?.condition).toBe('service_healthy');
    expect(services.worker?.depends_on?.temporal?.condition).toBe('service_healthy');
    expect(services.worker?.depends_on?.['temporal-admin']?.condition).toBe('service_completed_successfully');
  });

  it('configures the worker by environment, keys passed through from the host and never written here', () => {
    const env = services.worker?.environment ?? {};
    expect(env.TEMPORAL_ADDRESS).toBe('temporal:7233');
    expect(env.MODEL_RETRY_TASK_QUEUE).toBe('model-retry');
    expect(env.OPENAI_API_KEY).toBe('${OPENAI_API_KEY:-}');
    expect(env.ANTHROPIC_API_KEY).toBe('${ANTHROPIC_API_KEY:-}');
    expect(services.temporal?.environment?.POSTGRES_SEEDS).toBe('postgresql');
  });

  it('gives the worker more time to stop than its own shutdown grace', () => {
    const graceMs = Number(services.worker?.environment?.MODEL_RETRY_SHUTDOWN_GRACE_MS);
    const stopSeconds = Number(/^(\d+)s$/.exec(services.worker?.stop_grace_period ?? '')?.[1]);
    expect(stopSeconds * 1000).toBeGreaterThan(graceMs);
  });

  it('registers every search attribute the workflows set', async () => {
    const { SEARCH_ATTRIBUTES } = await import('../../../common/search-attributes.js');
    const setup = JSON.stringify(services['temporal-admin']?.command);
    for (const key of SEARCH_ATTRIBUTES) expect(setup).toContain(`--name ${key.name} `);
  });

  it('builds the worker image on Node 24', () => {
    expect(readFileSync('Dockerfile', 'utf8')).toMatch(/^FROM node:24/m);
  });
});
