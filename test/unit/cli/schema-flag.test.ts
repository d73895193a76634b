import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../../harness/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'schema-flag-'));
const file = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};
// Nothing listens here: a refusal must come before any connection.
const NO_SERVER = { TEMPORAL_ADDRESS: '127.0.0.1:1' };
const call = (...flags: string[]) =>
  runCli(['call', '--model', 'local:fast', '--prompt', 'a city as JSON', ...flags], NO_SERVER);

describe('model-retry call --schema FILE', () => {
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('refuses a file that cannot be read, with exit 2 naming the flag', async () => {
    const { code, stderr } = await call('--schema', join(dir, 'missing.json'));
    expect(code).toBe(2);
    expect(stderr).toMatch(/`--schema` cannot read ".*missing\.json" \(ENOENT\)/);
  });

  it('refuses a file that is not JSON, or not a JSON object', async () => {
    const notJson = await call('--schema', file('bad.json', '{ type: object'));
    expect(notJson.code).toBe(2);
    expect(notJson.stderr).toMatch(/`--schema` ".*bad\.json" is not JSON/);
    const list = await call('--schema', file('list.json', '[1, 2]'));
    expect(list.code).toBe(2);
    expect(list.stderr).toMatch(/is not a JSON Schema object/);
  });

  it('refuses a schema that does not compile, naming the flag and what the validator said', async () => {
    const { code, stderr } = await call('--schema', file('nope.json', '{"type": "nope"}'));
    expect(code).toBe(2);
    expect(stderr).toMatch(/`--schema`: is not a JSON Schema that compiles \(schema is invalid/);
  });

  it('refuses --stream with --schema, naming both', async () => {
    const { code, stderr } = await call('--stream', '--schema', file('ok.json', '{"type": "object"}'));
    expect(code).toBe(2);
    expect(stderr).toContain('`--stream` cannot be used with `--schema`');
  });
});
