import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../../harness/cli.js';

/** Nothing listens on port 1: a worker that got as far as connecting fails there. */
const NO_SERVER = { TEMPORAL_ADDRESS: '127.0.0.1:1', MODEL_RETRY_PROVIDERS: '', MODEL_RETRY_TENANTS: '' };

describe('model-retry worker --tenants', () => {
  const dir = mkdtempSync(join(tmpdir(), 'model-retry-tenants-cli-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const file = (name: string, text: string) => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  };

  it('is explained by the help', async () => {
    const { code, stdout } = await runCli(['worker', '--help']);
    expect(code).toBe(0);
    expect(stdout).toContain('--tenants FILE');
    expect(stdout).toContain('MODEL_RETRY_TENANTS');
  });

  it('refuses a bad file with exit 2 before connecting, naming the file and each field', async () => {
    const path = file('bad.json', '{ "acme": { "maxTotalTokens": 0, "perod": "day" } }');
    const { code, stderr } = await runCli(['worker', '--tenants', path], NO_SERVER);
    expect(code).toBe(2);
    expect(stderr).toContain(`the tenants file named by --tenants cannot be used: ${path}: `);
    expect(stderr).toContain('`acme.maxTotalTokens` must be a whole number of tokens, 1 or more');
    expect(stderr).toContain('`acme.perod` is not a field of a tenant');
    expect(stderr).not.toContain('127.0.0.1:1');
    expect(stderr).not.toMatch(/^\s+at /m);
  });

  it.each([
    ['a file that does not exist', () => join(dir, 'missing.json'), 'cannot read the tenants file (ENOENT)'],
    ['a file that is not JSON', () => file('not-json.json', '{ acme: '), 'not valid JSON'],
    ['a list', () => file('list.json', '[]'), 'expected an object of tenants by name'],
  ])('refuses %s, naming it', async (_name, path, problem) => {
    const { code, stderr } = await runCli(['worker', '--tenants', path()], NO_SERVER);
    expect(code).toBe(2);
    expect(stderr).toContain(`--tenants cannot be used: ${path()}: ${problem}`);
  });

  it('refuses an empty flag', async () => {
    const { code, stderr } = await runCli(['worker', '--tenants', ''], NO_SERVER);
    expect(code).toBe(2);
    expect(stderr).toContain('`--tenants` is empty: give the path of a tenants JSON file.');
  });

  it('refuses a bad file named by MODEL_RETRY_TENANTS, naming the variable', async () => {
    const path = file('env.json', '{ "*": { "weight": 5000 } }');
    const { code, stderr } = await runCli(['worker'], { ...NO_SERVER, MODEL_RETRY_TENANTS: path });
    expect(code).toBe(2);
    expect(stderr).toContain(`the tenants file named by MODEL_RETRY_TENANTS cannot be used: ${path}: `);
    expect(stderr).toContain('`*.weight` must be a number above 0 and at most 1000');
  });

  it('reads a good file, says which tenants it names, and goes on to connect', async () => {
    const path = file(
      'good.json',
      '{ "acme": { "maxTotalTokens": 2000000, "weight": 2 }, "*": { "weight": 1 } }',
    );
    const { code, stderr } = await runCli(['worker', '--tenants', path], NO_SERVER);
    expect(stderr).toContain(`model-retry worker: tenants acme, * (from ${path}, named by --tenants)`);
    expect(stderr).not.toContain('cannot be used');
    expect(code).not.toBe(0);
  });
});
