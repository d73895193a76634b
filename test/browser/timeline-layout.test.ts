import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Browser } from 'playwright-core';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderHtmlTimeline } from '../../client/html-timeline.js';
import type { ToolSpan } from '../../client/tool-history.js';
import type { AttemptRecord } from '../../common/call.js';
import type { FailureClass } from '../../policy/index.js';

/** Screenshots are kept here for people to look at (gitignored). */
const ARTIFACTS = resolve('test-artifacts');
const VIEWPORT = { width: 1200, height: 900 };
const t0 = Date.parse('2026-01-01T00:00:00.000Z');
const at = (ms: number) => new Date(t0 + ms).toISOString();

/** The little of the DOM the layout check reads (the project compiles without the DOM library). */
interface DomElement {
  tagName: string;
  getAttribute(name: string): string | null;
  getBoundingClientRect(): { left: number; top: number; width: number; height: number };
}
interface DomDocument {
  querySelector(selector: string): DomElement | null;
  querySelectorAll(selector: string): Iterable<DomElement>;
}

interface Box {
  kind: string;
  cls: string;
  lane: number;
  x: number;
  y: number;
  w: number;
  h: number;
}

/** A call of `n` attempts: every one fails (a rotating class) and waits, but the last, which answers. */
function longCall(n: number): AttemptRecord[] {
  const classes: FailureClass[] = ['ServerError', 'RateLimited', 'ConnectionLost', 'ResponseTimeout'];
  const records: AttemptRecord[] = [];
  let t = 100;
  for (let i = 1; i <= n; i++) {
    const last = i === n;
    const took = 30 + (i % 7) * 20;
    const wait = last ? undefined : i % 5 === 0 ? 0 : 250 + (i % 3) * 250;
    records.push({
      modelCallId: `c1.${i}`,
      callId: 'c1',
      attempt: i,
      backend: i % 2,
      model: i % 2 ? 'local:backup' : 'local:fast',
      startedAt: at(t),
      endedAt: at(t + took),
      outcome: last ? 'succeeded' : 'failed',
      ...(last
        ? { finishReason: 'stop' }
        : {
            failure: {
              class: classes[i % classes.length] as FailureClass,
              status: 500 + (i % 4),
              action: wait === 0 ? 'advance' : 'retry-same',
              message: 'upstream trouble',
            },
            retryInMs: wait,
          }),
    });
    t += took + (wait ?? 0);
  }
  return records;
}

/** A turn of three calls; the first two answered with tools, run in parallel after them. */
function turnWithTools(): { records: AttemptRecord[]; tools: ToolSpan[] } {
  const call = (c: number, start: number, extra: Partial<AttemptRecord> = {}): AttemptRecord => ({
    modelCallId: `c${c}.1`,
    callId: `c${c}`,
    attempt: 1,
    backend: 0,
    model: 'local:fast',
    startedAt: at(start),
    endedAt: at(start + 300),
    outcome: 'succeeded',
    ...extra,
  });
  const failedFirst = call(2, 700, {
    outcome: 'failed',
    failure: {
      class: 'RateLimited',
      status: 429,
      action: 'retry-same',
      retryAfterMs: 1000,
      message: 'slow down',
    },
    retryInMs: 1000,
  });
  const retried = { ...call(2, 2000), modelCallId: 'c2.2', attempt: 2 };
  const tool = (id: string, callId: string, name: string, start: number, end: number): ToolSpan => ({
    activityId: id,
    callId,
    name,
    startedAt: t0 + start,
    endedAt: t0 + end,
    outcome: 'succeeded',
  });
  return {
    records: [call(1, 0), failedFirst, retried, call(3, 3400)],
    tools: [
      tool('c1.tool.1', 'c1', 'calculator', 320, 650),
      tool('c1.tool.2', 'c1', 'search', 330, 600),
      tool('c2.tool.1', 'c2', 'calculator', 2320, 3350),
    ],
  };
}

describe('the HTML timeline’s layout in a real browser', () => {
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

  /** Renders `html`, takes a screenshot, and returns the boxes of everything drawn in the timeline. */
  async function layout(html: string, name: string): Promise<{ boxes: Box[]; svg: Box }> {
    const page = await browser.newPage({ viewport: VIEWPORT });
    try {
      await page.setContent(html, { waitUntil: 'load' });
      const found = await page.evaluate(() => {
        const document = (globalThis as unknown as { document: DomDocument }).document;
        const rect = (el: DomElement) => el.getBoundingClientRect();
        const svg = rect(document.querySelector('svg.timeline') as DomElement);
        const laneOf = (y: number) => Math.floor((y - svg.top - 34) / 44);
        const boxes = [
          ...document.querySelectorAll('svg.timeline rect, svg.timeline text, svg.timeline line'),
        ].map((el) => {
          const r = rect(el);
          return {
            kind: el.tagName,
            cls: el.getAttribute('class') ?? '',
            lane: laneOf(r.top + r.height / 2),
            x: r.left,
            y: r.top,
            w: r.width,
            h: r.height,
          };
        });
        return {
          boxes,
          svg: { kind: 'svg', cls: '', lane: -1, x: svg.left, y: svg.top, w: svg.width, h: svg.height },
        };
      });
      const shot = await page.screenshot({ path: join(ARTIFACTS, `timeline-${name}.png`), fullPage: true });
      expect(shot.length).toBeGreaterThan(1000);
      return found;
    } finally {
      await page.close();
    }
  }

  /** Everything inside the viewport's width and the SVG; no text over another; no bar over another in a lane. */
  function expectReadable({ boxes, svg }: { boxes: Box[]; svg: Box }): void {
    expect(svg.x + svg.w).toBeLessThanOrEqual(VIEWPORT.width);
    for (const b of boxes) {
      expect(b.x, `${b.cls} left`).toBeGreaterThanOrEqual(svg.x - 0.5);
      expect(b.x + b.w, `${b.cls} right`).toBeLessThanOrEqual(svg.x + svg.w + 0.5);
      expect(b.y, `${b.cls} top`).toBeGreaterThanOrEqual(svg.y - 0.5);
      expect(b.y + b.h, `${b.cls} bottom`).toBeLessThanOrEqual(svg.y + svg.h + 0.5);
    }
    const overlap = (a: Box, b: Box) =>
      Math.min(a.x + a.w, b.x + b.w) - Math.max(a.x, b.x) > 0.5 &&
      Math.min(a.y + a.h, b.y + b.h) - Math.max(a.y, b.y) > 0.5;
    const texts = boxes.filter((b) => b.kind === 'text');
    const bars = boxes.filter((b) => b.kind === 'rect');
    for (const group of [texts, bars]) {
      for (let i = 0; i < group.length; i++) {
        for (let j = i + 1; j < group.length; j++) {
          const [a, b] = [group[i] as Box, group[j] as Box];
          expect(overlap(a, b), `${a.cls} at ${a.x} overlaps ${b.cls} at ${b.x}`).toBe(false);
        }
      }
    }
  }

  it('a 2-second call under a 2-minute deadline fills the width; the deadline and reserve are marked off scale', async () => {
    const records = longCall(3);
    const found = await layout(
      renderHtmlTimeline(records, {
        workflowId: 'short-run',
        status: 'succeeded',
        stopReason: 'succeeded',
        startedAt: t0,
        endAt: Date.parse(records.at(-1)!.endedAt!) + 50,
        deadlineMs: t0 + 120_000,
        reserveMs: 60_000,
      }),
      'short-run',
    );
    expectReadable(found);
    const last = found.boxes.filter((b) => b.cls.startsWith('attempt')).at(-1) as Box;
    expect(last.x + last.w).toBeGreaterThan(found.svg.x + found.svg.w * 0.75);
    const lines = found.boxes.filter((b) => b.cls === 'reserve' || b.cls === 'deadline');
    expect(lines.map((l) => l.cls)).toEqual(['reserve', 'deadline']);
    expect(lines[0]!.x).toBeGreaterThan(last.x + last.w);
    expect(lines[0]!.x).toBeLessThan(lines[1]!.x);
    expect(found.boxes.filter((b) => b.cls === 'wait-label').length).toBe(2);
  });

  it('a 100-attempt call stays readable: every bar inside, none over another, labels only where they fit', async () => {
    const records = longCall(100);
    const end = Date.parse(records.at(-1)!.endedAt!);
    const found = await layout(
      renderHtmlTimeline(records, {
        workflowId: 'hundred-attempts',
        status: 'succeeded',
        startedAt: t0,
        endAt: end,
        deadlineMs: end + 20_000,
        reserveMs: 10_000,
      }),
      'hundred-attempts',
    );
    expect(found.boxes.filter((b) => b.cls.startsWith('attempt '))).toHaveLength(100);
    expectReadable(found);
  });

  it('a turn’s tool calls sit in their calls’ lanes, after the answer that asked for them', async () => {
    const { records, tools } = turnWithTools();
    const found = await layout(
      renderHtmlTimeline(
        records,
        { workflowId: 'turn-tools', status: 'succeeded', startedAt: t0, endAt: t0 + 3800 },
        tools,
      ),
      'turn-tools',
    );
    expectReadable(found);
    const laneOf = (cls: string) => found.boxes.filter((b) => b.cls.startsWith(cls)).map((b) => b.lane);
    expect(laneOf('tool ')).toEqual([0, 0, 1]);
    expect(laneOf('attempt ')).toEqual([0, 1, 1, 2]);
    const waitLabel = found.boxes.find((b) => b.cls === 'wait-label');
    expect(waitLabel?.lane).toBe(1);
  });
});
