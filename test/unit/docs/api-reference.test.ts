/**
 * The API reference (`npm run docs`, TypeDoc): it documents every entry point of package.json's "exports", and
 * TypeDoc converts and validates it (every referenced type exported, every `{@link}` resolved) without an error
 * or a warning, so that an export or a doc comment cannot break the reference silently. `--emit none`: nothing
 * is written.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const run = promisify(execFile);

describe('the API reference', () => {
  it('has an entry point for each of package.json\'s "exports"', () => {
    const { exports } = JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8')) as {
      exports: Record<string, string | { default: string }>;
    };
    const { entryPoints } = JSON.parse(readFileSync(`${ROOT}typedoc.json`, 'utf8')) as {
      entryPoints: string[];
    };
    const sources = Object.values(exports)
      .filter((target) => typeof target !== 'string')
      .map((target) => target.default.replace(/^\.\/dist\//, '').replace(/\.js$/, '.ts'));
    expect(sources.length).toBeGreaterThan(0);
    expect([...entryPoints].sort()).toEqual([...sources].sort());
  });

  it('builds with no error and no warning', async () => {
    const typedoc = fileURLToPath(import.meta.resolve('typedoc/package.json')).replace(
      /package\.json$/,
      'bin/typedoc',
    );
    const { stdout, stderr } = await run(
      process.execPath,
      [typedoc, '--emit', 'none', '--treatWarningsAsErrors'],
      {
        cwd: ROOT,
      },
    );
    expect(`${stdout}${stderr}`).not.toMatch(/warning|error/i);
  }, 120_000);
});
