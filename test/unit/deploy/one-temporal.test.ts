/**
 * One copy of each `@temporalio/*` package where the package is installed. Temporal's packages pin one another
 * exactly, and a second copy breaks a worker (two `@temporalio/proto` register the same protobuf names: the
 * command dies at load with "duplicate name ... in Namespace coresdk"). npm's "overrides" can hide a mismatch in
 * this checkout but are ignored when model-retry is installed as a dependency, so every production dependency that
 * depends on a `@temporalio/*` package must ask for the very version model-retry pins.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

interface LockEntry {
  version?: string;
  dev?: boolean;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
}

const lock = JSON.parse(readFileSync('package-lock.json', 'utf8')) as { packages: Record<string, LockEntry> };
const ours = lock.packages['']!.dependencies!;

describe('the @temporalio/* packages an installation resolves', () => {
  it('are asked for at the versions model-retry pins, by every production dependency', () => {
    const mismatches: string[] = [];
    for (const [path, entry] of Object.entries(lock.packages)) {
      if (path === '' || entry.dev) continue;
      for (const [name, wanted] of Object.entries({ ...entry.peerDependencies, ...entry.dependencies })) {
        const pinned = ours[name];
        if (name.startsWith('@temporalio/') && pinned !== undefined && wanted !== pinned)
          mismatches.push(`${path}@${entry.version} wants ${name}@${wanted}, model-retry pins ${pinned}`);
      }
    }
    expect(mismatches).toEqual([]);
  });

  it('are all pinned to one version', () => {
    const versions = new Set(
      Object.entries(ours)
        .filter(([name]) => name.startsWith('@temporalio/'))
        .map(([, version]) => version),
    );
    expect(versions.size).toBe(1);
  });
});
