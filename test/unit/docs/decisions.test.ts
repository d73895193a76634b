import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The decision records under docs/decisions/ keep their shape: a title, a Decision and a Why part, short, every
 * repository path they name still there, and each one listed in the README's index.
 */

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const DIR = join(ROOT, 'docs/decisions');
const MAX_CHARS = 2_500;

/** Top-level entries of the checkout: a backticked name that starts with one of them is read as a repo path. */
const TOP_LEVEL = new Set(readdirSync(ROOT).filter((name) => name !== 'node_modules'));

function recordFiles(): string[] {
  return readdirSync(DIR)
    .filter((name) => statSync(join(DIR, name)).isDirectory())
    .flatMap((area) =>
      readdirSync(join(DIR, area))
        .filter((name) => name.endsWith('.md'))
        .map((name) => `${area}/${name}`),
    )
    .sort();
}

/** Repo paths named in backticks: path-like, and starting at one of the checkout's top-level entries. */
export function namedPaths(text: string): string[] {
  const paths: string[] = [];
  for (const [, token] of text.matchAll(/`([^`\s]+)`/g)) {
    if (!/^[A-Za-z0-9_.-]+(\/[A-Za-z0-9_.-]+)*\/?$/.test(token!)) continue;
    if (!TOP_LEVEL.has(token!.split('/')[0]!)) continue;
    paths.push(token!);
  }
  return paths;
}

/** Relative link targets of markdown links, without an anchor. */
function linkTargets(text: string): string[] {
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)]
    .map(([, target]) => target!.split('#')[0]!)
    .filter((target) => target !== '' && !/^[a-z]+:/i.test(target));
}

const records = recordFiles();

describe('decision records', () => {
  it('there are records in area folders', () => {
    expect(records.length).toBeGreaterThan(0);
  });

  it.each(records)('%s has a title, a Decision and a Why, and is short', (file) => {
    const text = readFileSync(join(DIR, file), 'utf8');
    expect(text).toMatch(/^# \S.*\n/);
    expect(text).toContain('**Decision.** ');
    expect(text).toContain('**Why.** ');
    expect(text.indexOf('**Decision.**')).toBeLessThan(text.indexOf('**Why.**'));
    expect(text.length).toBeLessThanOrEqual(MAX_CHARS);
    expect(text).not.toMatch(/\bissues? #?\d/i);
  });

  it.each(records)('%s names only paths that exist', (file) => {
    const text = readFileSync(join(DIR, file), 'utf8');
    const missing = namedPaths(text).filter((path) => !existsSync(join(ROOT, path)));
    const brokenLinks = linkTargets(text).filter(
      (target) => !existsSync(resolve(DIR, dirname(file), target)),
    );
    expect({ missing, brokenLinks }).toEqual({ missing: [], brokenLinks: [] });
  });

  it('the README indexes every record, and links only to files that exist', () => {
    const readme = readFileSync(join(DIR, 'README.md'), 'utf8');
    const linked = new Set(linkTargets(readme));
    expect(records.filter((file) => !linked.has(file))).toEqual([]);
    expect([...linked].filter((target) => !existsSync(resolve(DIR, target)))).toEqual([]);
  });

  it('retired.md names only paths that exist', () => {
    const text = readFileSync(join(DIR, 'retired.md'), 'utf8');
    expect(namedPaths(text).filter((path) => !existsSync(join(ROOT, path)))).toEqual([]);
  });

  it('the path check finds a missing path', () => {
    expect(namedPaths('see `policy/no-such-file.ts` and `Date.parse`')).toEqual(['policy/no-such-file.ts']);
    expect(relative(ROOT, DIR)).toBe('docs/decisions');
  });
});
