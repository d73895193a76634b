import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Browser } from 'playwright-core';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rerunHtml } from '../../client/rerun-html.js';
import type { RerunPair } from '../../common/rerun.js';
import { answer, report } from '../harness/rerun-fixture.js';

/** Screenshots and the pages are kept here for people to look at (gitignored). */
const ARTIFACTS = resolve('test-artifacts');

/** The little of the DOM the layout check reads (the project compiles without the DOM library). */
interface Rect {
  left: number;
  right: number;
  top: number;
  bottom: number;
  width: number;
  height: number;
}
interface DomElement {
  className: string;
  firstChild: unknown;
  tagName: string;
  textContent: string | null;
  scrollWidth: number;
  clientWidth: number;
  getBoundingClientRect(): Rect;
  querySelectorAll(selector: string): Iterable<DomElement>;
  closest(selector: string): DomElement | null;
}
interface DomWindow {
  document: {
    documentElement: DomElement;
    querySelectorAll(selector: string): Iterable<DomElement>;
    createRange(): {
      setStart(node: unknown, offset: number): void;
      setEnd(node: unknown, offset: number): void;
      getClientRects(): { length: number };
    };
  };
  getComputedStyle(el: DomElement): Record<string, string>;
  innerWidth: number;
  pwned?: boolean;
}

interface Box {
  what: string;
  left: number;
  right: number;
  top: number;
  bottom: number;
  /** Content wider than the box (text running out of its cell). */
  overflows: boolean;
}
interface Layout {
  pageWidth: number;
  scrollWidth: number;
  scripts: number;
  pwned: boolean;
  /** Per pair: its section, its answer columns, and everything inside each column. */
  pairs: { section: Box; columns: { column: Box; inside: Box[] }[] }[];
  totalsCells: Box[];
  /** Totals cells (but the model's name, which may break anywhere) and numbers with a word broken across lines. */
  brokenWords: string[];
  marks: { tag: string; width: number; height: number; background: string; decoration: string }[];
  failed: { outcome: string; failureClass: string; border: string }[];
  skipped: string[];
}

const sentence = (i: number) =>
  `Step ${i}: the invoice for order ${1000 + i} was checked against the ledger, and its total matches the amount paid. `;
const long = (n: number, from = 0) => Array.from({ length: n }, (_, i) => sentence(i + from)).join('');
const url = `https://example.com/${'a-very-long-path-segment-'.repeat(12)}end`;

/**
 * Five requests rerun on three candidates (four columns): long answers that differ here and there, an unbroken
 * URL, tool calls with long arguments, one candidate that failed, a failed original, hostile text, skipped ones.
 */
function bigReport() {
  const models = [
    'anthropic:claude-sonnet-4-5-20250929',
    'google:gemini-2.5-flash-preview-with-a-long-name',
    'local:fast',
  ];
  const original = long(25);
  const pairs: RerunPair[] = [
    {
      source: { workflowId: 'orders-2026-01-01-nightly-reconciliation', runId: 'run-1', callId: 'c1' },
      original: answer('openai:gpt-4o', { text: original, latencyMs: 4200 }),
      candidates: [
        answer(models[0]!, { text: original.replace(/matches/g, 'agrees with'), latencyMs: 5100 }),
        answer(models[1]!, { text: `${long(10)}See ${url} for the rest. ${long(20, 10)}`, latencyMs: 1900 }),
        answer(models[2]!, { text: original, latencyMs: 300 }),
      ],
    },
    {
      source: { workflowId: 'support-agent', runId: 'run-7', callId: 'c3', step: 2 },
      original: answer('openai:gpt-4o', {
        text: '',
        finishReason: 'tool-calls',
        toolCalls: [{ id: 'a', name: 'lookup_order', args: JSON.stringify({ order: 1042, note: long(3) }) }],
      }),
      candidates: [
        answer(models[0]!, {
          text: 'Let me look that up.',
          finishReason: 'tool-calls',
          toolCalls: [
            { id: 'b', name: 'lookup_order', args: JSON.stringify({ note: long(3), order: 1042 }) },
            { id: 'c', name: `search_${'knowledge_base_'.repeat(5)}`, args: JSON.stringify({ q: url }) },
          ],
        }),
        answer(models[1]!, {
          outcome: 'failed',
          text: '',
          finishReason: undefined,
          usage: undefined,
          costUsd: undefined,
          latencyMs: 62_000,
          failureClass: 'RateLimited',
          stopReason: 'attempts-exhausted',
        }),
        answer(models[2]!, {
          text: '<script>window.pwned = true</script><img src=x onerror="window.pwned=true">',
        }),
      ],
    },
    {
      source: { workflowId: 'orders-2026-01-01-nightly-reconciliation', runId: 'run-1', callId: 'c2' },
      original: answer('openai:gpt-4o', {
        outcome: 'failed',
        text: '',
        failureClass: 'ServerError',
        stopReason: 'attempts-exhausted',
      }),
      candidates: models.map((m) => answer(m, { text: long(4) })),
    },
    ...[4, 5].map((c): RerunPair => ({
      source: { workflowId: 'batch', runId: 'run-2', callId: `c${c}` },
      original: answer('openai:gpt-4o', { text: long(8) }),
      candidates: models.map((m, i) => answer(m, { text: long(8 + i, i) })),
    })),
  ];
  return report(models, pairs, {
    skipped: [
      {
        source: { workflowId: 'batch', runId: 'run-2', callId: 'c6' },
        reason: `its stored payload is gone: ${url}`,
      },
      { source: { workflowId: 'batch', runId: 'run-2', callId: 'c7' }, reason: 'an embedding is not rerun' },
    ],
  });
}

describe('the rerun report’s layout in a real browser', () => {
  let browser: Browser;
  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    browser = await chromium.launch({
      executablePath: '/usr/bin/chromium',
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--no-first-run',
        '--disable-background-networking',
      ],
      timeout: 60_000,
    });
  });
  afterAll(async () => {
    await browser?.close();
  });

  async function layout(html: string, width: number, name: string): Promise<Layout> {
    writeFileSync(join(ARTIFACTS, `rerun-${name}.html`), html);
    const page = await browser.newPage({ viewport: { width, height: 900 } });
    try {
      await page.setContent(html, { waitUntil: 'load' });
      const found = await page.evaluate(() => {
        const win = globalThis as unknown as DomWindow;
        const { document } = win;
        const box = (el: DomElement, what: string): Box => {
          const r = el.getBoundingClientRect();
          return {
            what,
            left: r.left,
            right: r.right,
            top: r.top,
            bottom: r.bottom,
            overflows: el.scrollWidth > el.clientWidth + 1,
          };
        };
        const all = (root: { querySelectorAll(s: string): Iterable<DomElement> }, s: string) => [
          ...root.querySelectorAll(s),
        ];
        return {
          pageWidth: win.innerWidth,
          scrollWidth: document.documentElement.scrollWidth,
          scripts: all(document, 'script, img, iframe, object, embed').length,
          pwned: win.pwned === true,
          pairs: all(document, 'section.pair').map((section) => ({
            section: box(section, 'section'),
            columns: all(section, 'article.answer').map((article) => ({
              column: box(article, article.className),
              inside: all(article, 'header, dl, dd, .change, .text, ul.tools li, pre').map((el) =>
                box(el, `${el.tagName.toLowerCase()}.${el.className}`),
              ),
            })),
          })),
          totalsCells: all(document, 'table.totals td, table.totals th').map((el) =>
            box(el, el.textContent ?? ''),
          ),
          brokenWords: all(
            document,
            'table.totals th, table.totals td:not(:first-child), dd.tokens, dd.cost, dd.latency',
          ).flatMap((el) => {
            const text = el.textContent ?? '';
            return [...text.matchAll(/\S+/g)].flatMap((word) => {
              const range = document.createRange();
              range.setStart(el.firstChild, word.index);
              range.setEnd(el.firstChild, word.index + word[0].length);
              return range.getClientRects().length > 1 ? [`${word[0]} in ${text}`] : [];
            });
          }),
          marks: all(document, '.text del, .text ins').map((el) => {
            const style = win.getComputedStyle(el);
            const r = el.getBoundingClientRect();
            return {
              tag: el.tagName.toLowerCase(),
              width: r.width,
              height: r.height,
              background: style.backgroundColor ?? '',
              decoration: style.textDecorationLine ?? '',
            };
          }),
          failed: all(document, 'article.outcome-failed').map((el) => ({
            outcome: all(el, 'dd.outcome')[0]?.textContent ?? '',
            failureClass: all(el, 'dd.failure-class')[0]?.textContent ?? '',
            border: win.getComputedStyle(el).borderLeftColor ?? '',
          })),
          skipped: all(document, 'ul.skipped li').map((el) => el.textContent ?? ''),
        };
      });
      const shot = await page.screenshot({ path: join(ARTIFACTS, `rerun-${name}.png`), fullPage: true });
      expect(shot.length).toBeGreaterThan(1000);
      return found;
    } finally {
      await page.close();
    }
  }

  /** Columns side by side inside their pair, never over each other; everything in a column inside it, no overflow. */
  function expectReadable(found: Layout): void {
    expect(found.scrollWidth, 'the page scrolls sideways').toBeLessThanOrEqual(found.pageWidth);
    for (const { section, columns } of found.pairs) {
      columns.forEach(({ column }, i) => {
        expect(column.left).toBeGreaterThanOrEqual(section.left - 0.5);
        expect(column.right).toBeLessThanOrEqual(section.right + 0.5);
        const next = columns[i + 1]?.column;
        if (next)
          expect(column.right, `${column.what} runs into the next column`).toBeLessThanOrEqual(
            next.left + 0.5,
          );
      });
      for (const { column, inside } of columns) {
        for (const b of inside) {
          expect(b.left, `${b.what} left of its column`).toBeGreaterThanOrEqual(column.left - 0.5);
          expect(b.right, `${b.what} past its column`).toBeLessThanOrEqual(column.right + 0.5);
          expect(b.overflows, `${b.what} overflows`).toBe(false);
        }
      }
    }
    for (const cell of found.totalsCells) expect(cell.overflows, `totals cell ${cell.what}`).toBe(false);
    expect(found.brokenWords, 'words broken across lines').toEqual([]);
  }

  it('five requests on three candidates with long answers: four columns side by side, nothing over its cell', async () => {
    const found = await layout(rerunHtml(bigReport()), 1280, 'wide');
    expect(found.pairs).toHaveLength(5);
    expect(found.pairs.every((p) => p.columns.length === 4)).toBe(true);
    expectReadable(found);
    expect(found.totalsCells.length).toBe(4 * 10 + 10);
  });

  it('on a narrow window the columns shrink and wrap their text instead of overflowing', async () => {
    expectReadable(await layout(rerunHtml(bigReport()), 760, 'narrow'));
  });

  it('marks the diff visibly, shows the failures with their class, lists the skipped, and runs nothing', async () => {
    const found = await layout(rerunHtml(bigReport()), 1280, 'marks');
    const dels = found.marks.filter((m) => m.tag === 'del');
    const inss = found.marks.filter((m) => m.tag === 'ins');
    expect(dels.length).toBeGreaterThan(0);
    expect(inss.length).toBeGreaterThan(0);
    for (const m of found.marks) {
      expect(m.width * m.height, `${m.tag} has no size`).toBeGreaterThan(0);
      expect(m.background).not.toMatch(/^(transparent|rgba\(0, 0, 0, 0\))$/);
    }
    expect(dels[0]!.decoration).toContain('line-through');
    expect(dels[0]!.background).not.toBe(inss[0]!.background);
    expect(found.failed).toEqual([
      {
        outcome: 'failed',
        failureClass: 'RateLimited',
        border: 'rgb(180, 35, 24)',
      },
      {
        outcome: 'failed',
        failureClass: 'ServerError',
        border: 'rgb(180, 35, 24)',
      },
    ]);
    expect(found.skipped).toEqual([
      `c6 of batch (run run-2): its stored payload is gone: ${url}`,
      'c7 of batch (run run-2): an embedding is not rerun',
    ]);
    expect(found.scripts).toBe(0);
    expect(found.pwned).toBe(false);
  });
});
