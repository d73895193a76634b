import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BenchArgsError, parseBenchArgs } from '../../../bench/lib/args.js';
import {
  FIGURES_END,
  FIGURES_START,
  GOALS_END,
  GOALS_START,
  updateBenchmarksDoc,
} from '../../../bench/lib/doc.js';
import { describeMachine, markdownTable, writeResult } from '../../../bench/lib/report.js';
import type { ResultFile } from '../../../bench/lib/report.js';
import { fmtRatio, median, percentile, seededRandom } from '../../../bench/lib/stats.js';

const KNOWN = ['history-events', 'retry-overhead', 'concurrency'];

describe('npm run bench arguments', () => {
  it('runs every benchmark at full size when nothing is named', () => {
    expect(parseBenchArgs([], KNOWN)).toMatchObject({ names: KNOWN, size: 'full', doc: true });
  });

  it('runs the named ones in registry order, at quick size with --quick', () => {
    const args = parseBenchArgs(['concurrency', '--quick', 'history-events'], KNOWN);
    expect(args).toMatchObject({ names: ['history-events', 'concurrency'], size: 'quick' });
  });

  it('takes --out and repeated --server-arg, with or without =', () => {
    const args = parseBenchArgs(
      ['--out', 'x', '--server-arg=--dynamic-config-value', '--server-arg', 'a=1', '--no-doc'],
      KNOWN,
    );
    expect(args).toMatchObject({ out: 'x', serverArgs: ['--dynamic-config-value', 'a=1'], doc: false });
  });

  it('refuses an unknown benchmark, naming the known ones', () => {
    expect(() => parseBenchArgs(['streaming'], KNOWN)).toThrow(
      /unknown benchmark `streaming`: choose from history-events, retry-overhead, concurrency/,
    );
  });

  it('refuses an unknown option and an option without its value', () => {
    expect(() => parseBenchArgs(['--fast'], KNOWN)).toThrow(BenchArgsError);
    expect(() => parseBenchArgs(['--out'], KNOWN)).toThrow(/`--out` needs a value/);
  });
});

describe('bench statistics', () => {
  it('interpolates percentiles between ranks', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([1, 2, 3, 4])).toBe(2.5);
    expect(percentile([0, 100], 99)).toBe(99);
    expect(percentile([], 50)).toBeNaN();
  });

  it('formats ratios and repeats its random draws from a seed', () => {
    expect(fmtRatio(1.234)).toBe('1.23×');
    expect(fmtRatio(Number.NaN)).toBe('n/a');
    const a = seededRandom(7);
    const b = seededRandom(7);
    expect([a(), a(), a()]).toEqual([b(), b(), b()]);
  });
});

describe('bench results and BENCHMARKS.md', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  const file: ResultFile = {
    meta: {
      startedAt: '2026-11-30T00:00:00.000Z',
      finishedAt: '2026-11-30T00:00:10.000Z',
      durationMs: 10_000,
      size: 'full',
      machine: describeMachine({}),
    },
    result: {
      name: 'history-events',
      title: '1. History events per attempt',
      params: {},
      figures: { n: 11 },
      tables: [{ title: 'Events', columns: ['part', 'events'], rows: [['failed | waited', '11']] }],
      notes: ['a finding'],
    },
  };

  it('writes a table as Markdown with its pipes escaped', () => {
    expect(markdownTable(file.result.tables[0] as never)).toContain('| failed \\| waited | 11 |');
  });

  const goalsFile: ResultFile = {
    ...file,
    result: {
      ...file.result,
      name: 'retry-overhead',
      title: '2. Overhead per retry',
      figures: { oursOverFloor: { callP50: 1.02, callP99: 1.25 } },
    },
  };

  function docWith(dir: string, text: string): string {
    const doc = join(dir, 'BENCHMARKS.md');
    writeFileSync(doc, text);
    return doc;
  }

  it('rewrites only the goals and figures sections, naming a benchmark without a result', () => {
    const dir = mkdtempSync(join(tmpdir(), 'bench-doc-'));
    dirs.push(dir);
    writeResult(dir, file);
    const doc = docWith(
      dir,
      `# Method

${GOALS_START}
old goals
${GOALS_END}

${FIGURES_START}
old figures
${FIGURES_END}

## After
`,
    );
    updateBenchmarksDoc(doc, dir, ['history-events', 'replay']);
    const text = readFileSync(doc, 'utf8');
    expect(text).not.toContain('old figures');
    expect(text).not.toContain('old goals');
    expect(text).toContain('### 1. History events per attempt');
    expect(text).toContain('| failed \\| waited | 11 |');
    expect(text).toContain('_No result yet: `npm run bench -- replay`._');
    expect(text.startsWith('# Method')).toBe(true);
    expect(text.endsWith('## After\n')).toBe(true);
  });

  it('tables each goal with the figure the latest result measured and whether it was met', () => {
    const dir = mkdtempSync(join(tmpdir(), 'bench-doc-'));
    dirs.push(dir);
    writeResult(dir, goalsFile);
    const doc = docWith(
      dir,
      `${GOALS_START}
${GOALS_END}
${FIGURES_START}
${FIGURES_END}
`,
    );
    updateBenchmarksDoc(doc, dir, ['retry-overhead', 'replay']);
    const text = readFileSync(doc, 'utf8');
    const goals = text.slice(0, text.indexOf(GOALS_END));
    expect(goals).toMatch(/\| [^|]*p50: at most 1\.1× the floor \| 1\.02× \| met \| `retry-overhead` \|/);
    expect(goals).toMatch(/\| [^|]*p99: at most 1\.1× the floor \| 1\.25× \| not met \| `retry-overhead` \|/);
    expect(goals).toMatch(/replay CPU per event[^|]*\| n\/a \| no figure \| `replay` \|/);
    expect(goals).toContain('Results from 2026-11-30 to 2026-11-30.');
  });

  it('refuses a document without either pair of markers', () => {
    const dir = mkdtempSync(join(tmpdir(), 'bench-doc-'));
    dirs.push(dir);
    const bare = docWith(dir, '# nothing to replace\n');
    expect(() => updateBenchmarksDoc(bare, dir, [])).toThrow(/goals markers are missing/);
    const noFigures = docWith(dir, `${GOALS_START}\n${GOALS_END}\n`);
    expect(() => updateBenchmarksDoc(noFigures, dir, [])).toThrow(/figures markers are missing/);
  });
});
