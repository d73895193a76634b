/**
 * The package as a user installs it: `npm pack` (which builds dist/ first, as publishing does) on a copy of the
 * repository, the tarball unpacked into an application's node_modules beside the production dependencies only
 * (those of package-lock.json not marked dev, so no tsx and no TypeScript), and the `model-retry` command run
 * through the symlink npm would put in node_modules/.bin. Not resolvable there, tsx cannot have been used: the
 * command ran the compiled JavaScript, and every entry point of package.json's "exports" resolves to a file the
 * tarball carries. It does not run `npm install` (no registry in tests); the dependencies are this checkout's.
 */
import { execFile, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const run = promisify(execFile);

interface LockEntry {
  dev?: boolean;
}

/** What went into the tarball, as `npm pack --json` lists it. */
let packed: string[] = [];
let app = '';
let work = '';

/** Runs `node ARGS` in `cwd` (the application's folder); resolves to its exit code and output. */
function node(args: string[], cwd = app): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd, stdio: 'pipe' });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'model-retry-pack-'));
  // A copy, so that the build writes its dist/ there and not into this checkout.
  const source = join(work, 'source');
  const build = JSON.parse(readFileSync(join(ROOT, 'tsconfig.build.json'), 'utf8')) as { include: string[] };
  for (const entry of [...build.include, 'bin', 'package.json', 'tsconfig.json', 'tsconfig.build.json']) {
    cpSync(join(ROOT, entry), join(source, entry), { recursive: true });
  }
  for (const doc of ['README.md', 'CHANGELOG.md'])
    if (existsSync(join(ROOT, doc))) cpSync(join(ROOT, doc), join(source, doc));
  symlinkSync(join(ROOT, 'node_modules'), join(source, 'node_modules'), 'dir');
  const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', work], { cwd: source });
  const [result] = JSON.parse(stdout.slice(stdout.indexOf('['))) as {
    filename: string;
    files: { path: string }[];
  }[];
  packed = result!.files.map((file) => file.path);

  app = join(work, 'app');
  const installed = join(app, 'node_modules', 'model-retry');
  mkdirSync(installed, { recursive: true });
  await run('tar', ['xzf', join(work, result!.filename), '-C', installed, '--strip-components=1']);
  const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, LockEntry>;
  };
  for (const [path, entry] of Object.entries(lock.packages)) {
    const name = path.startsWith('node_modules/') ? path.slice('node_modules/'.length) : undefined;
    if (!name || name.includes('node_modules/') || entry.dev) continue;
    const target = join(ROOT, 'node_modules', name);
    if (!existsSync(target)) continue; // an optional dependency for another platform
    mkdirSync(dirname(join(app, 'node_modules', name)), { recursive: true });
    symlinkSync(target, join(app, 'node_modules', name), 'dir');
  }
  mkdirSync(join(app, 'node_modules', '.bin'));
  symlinkSync('../model-retry/bin/model-retry.js', join(app, 'node_modules', '.bin', 'model-retry'));
}, 240_000);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('the installed package', () => {
  it('carries bin/ and the compiled dist/, the demo loopback provider included', () => {
    for (const file of [
      'bin/model-retry.js',
      'dist/cli/main.js',
      'dist/loopback/index.js',
      'dist/workflows/index.js',
    ])
      expect(packed).toContain(file);
  });

  it('has production dependencies only: no tsx, no TypeScript', () => {
    expect(existsSync(join(app, 'node_modules', '@temporalio', 'worker'))).toBe(true);
    expect(existsSync(join(app, 'node_modules', 'tsx'))).toBe(false);
    expect(existsSync(join(app, 'node_modules', 'typescript'))).toBe(false);
  });

  it('runs `model-retry help` from the compiled JavaScript', async () => {
    const { code, stdout, stderr } = await node(['node_modules/.bin/model-retry', 'help']);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toMatch(/^model-retry: durable LLM calls on Temporal/);
  });

  it('runs the compiled JavaScript too from a folder of bin/ and dist/ alone, as the Docker image holds them', async () => {
    const image = join(work, 'image');
    for (const dir of ['bin', 'dist'])
      cpSync(join(app, 'node_modules', 'model-retry', dir), join(image, dir), { recursive: true });
    symlinkSync(join(app, 'node_modules'), join(image, 'node_modules'), 'dir');
    const { code, stdout, stderr } = await node(['bin/model-retry.js', 'help'], image);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toMatch(/^model-retry: durable LLM calls on Temporal/);
  });

  it('reads a recorded history with `model-retry history --file`', async () => {
    const history = join(ROOT, 'test', 'replay', 'histories', 'retry-after-429.json');
    const { code, stdout, stderr } = await node([
      'node_modules/.bin/model-retry',
      'history',
      '--file',
      history,
    ]);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toContain('RateLimited 429 (retry-after 1000 ms)');
    expect(stdout).toContain('Answer: after the limit');
  });

  it('resolves every entry point of package.json "exports" to a module that loads', async () => {
    const { exports } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      exports: Record<string, unknown>;
    };
    const entries = Object.keys(exports)
      .filter((key) => !key.endsWith('.json'))
      .map((key) => `model-retry${key.slice(1)}`);
    expect(entries).toContain('model-retry/workflows');
    const script = `for (const e of ${JSON.stringify(entries)}) await import(e);`;
    const { code, stderr } = await node(['--input-type=module', '-e', script]);
    expect(stderr).toBe('');
    expect(code).toBe(0);
  });
});
