import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { NativeConnection } from '@temporalio/worker';
import type { Browser, Page } from 'playwright-core';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProviderRegistry } from '../../activities/providers/registry.js';
import { startModelCall } from '../../client/model-call-client.js';
import type { ModelCallResult } from '../../common/call.js';
import { startDevServer } from '../../worker/dev-server.js';
import type { DevServer } from '../../worker/dev-server.js';
import { fail, ok, startLoopbackProvider } from '../../loopback/index.js';
import type { LoopbackProvider } from '../../loopback/index.js';
import { createModelRetryWorker } from '../../worker/worker.js';
import { runCli } from '../harness/cli.js';

/** Screenshots and pages are kept here for people to look at (gitignored). */
const ARTIFACTS = resolve('test-artifacts');

const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Waits until the page's text contains every one of `texts` (the UI loads its data after the page). */
async function waitForText(page: Page, texts: string[], timeoutMs = 90_000): Promise<string> {
  const body = page.locator('body');
  const end = Date.now() + timeoutMs;
  for (;;) {
    const text = await body.innerText({ timeout: timeoutMs });
    if (texts.every((t) => text.includes(t))) return text;
    if (Date.now() > end)
      throw new Error(`the page never showed ${JSON.stringify(texts)}; it shows:\n${text}`);
    await page.waitForTimeout(250);
  }
}

describe('a finished call seen in a real browser: the Temporal Web UI and our HTML timeline', () => {
  let server: DevServer;
  let lp: LoopbackProvider;
  let native: NativeConnection;
  let browser: Browser;
  const workflowId = `browser-call-${Date.now()}`;
  let result: ModelCallResult;

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    // The suite's dev server runs without the UI: this file starts one of its own, with it.
    [server, lp, browser] = await Promise.all([
      startDevServer({ ui: true }),
      startLoopbackProvider(),
      chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS, timeout: 60_000 }),
    ]);
    const providers = createProviderRegistry(
      { local: { type: 'openai-compatible', baseURL: lp.openaiBaseURL, apiKeyEnv: 'LOOPBACK_KEY' } },
      { env: { LOOPBACK_KEY: 'sk-browser-test' } },
    );
    native = await NativeConnection.connect({ address: server.address });
    const worker = await createModelRetryWorker({
      connection: native,
      namespace: server.namespace,
      taskQueue: 'browser',
      deps: { providers },
      shutdownGraceMs: 2000,
    });
    lp.script('flaky', [fail(502), fail(503), ok('seen in a browser')]);
    result = await worker.runUntil(async () => {
      const handle = await startModelCall(
        server.env.client,
        {
          model: 'local:flaky',
          prompt: 'hi',
          retry: { waits: [300, 600], deadlineInMs: 10_000, reserveMs: 3000, minAttemptMs: 200 },
        },
        { taskQueue: 'browser', workflowId },
      );
      return handle.result();
    });
  });
  afterAll(async () => {
    await browser?.close();
    await native?.close();
    await lp?.close();
    await server?.stop();
  });

  it('the Temporal UI shows each attempt and each wait by its summary; a screenshot is kept', async () => {
    expect(result.attempts.map((a) => a.outcome)).toEqual(['failed', 'failed', 'succeeded']);
    const page = await browser.newPage({ viewport: { width: 1400, height: 1100 } });
    try {
      await page.goto(`${server.uiUrl}/namespaces/${server.namespace}/workflows/${workflowId}`, {
        waitUntil: 'domcontentloaded',
        timeout: 60_000,
      });
      const text = await waitForText(page, [
        'attempt 1 · local:flaky',
        'attempt 2 · local:flaky',
        'attempt 3 · local:flaky',
        'retry in 300 ms after ServerError 502 (c1.1 retry-same)',
        'retry in 600 ms after ServerError 503 (c1.2 retry-same)',
      ]);
      expect(text).toContain(workflowId);
      expect(text).toContain('Completed');
      await page.screenshot({ path: join(ARTIFACTS, 'temporal-ui-call.png'), fullPage: true });
    } finally {
      await page.close();
    }
  });

  it('our HTML timeline renders: a bar per attempt, the waits, the deadline and reserve, titles on hover', async () => {
    const file = join(ARTIFACTS, 'timeline.html');
    const { code, stderr } = await runCli(['history', workflowId, '--html', file], {
      TEMPORAL_ADDRESS: server.address,
      TEMPORAL_NAMESPACE: server.namespace,
    });
    expect(code, stderr).toBe(0);
    const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
    const requests: string[] = [];
    page.on('request', (r) => requests.push(r.url()));
    try {
      await page.goto(pathToFileURL(file).href, { waitUntil: 'load', timeout: 30_000 });
      await page.waitForSelector('svg.timeline rect.attempt', { timeout: 30_000 });
      // Self-contained: the page asked for nothing but itself.
      expect(requests).toEqual([pathToFileURL(file).href]);

      const bars = page.locator('svg.timeline rect.attempt');
      expect(await bars.count()).toBe(3);
      expect(await page.locator('svg.timeline rect.attempt-failed').count()).toBe(2);
      expect(await page.locator('svg.timeline rect.attempt-succeeded').count()).toBe(1);
      expect(await page.locator('svg.timeline rect.wait').count()).toBe(2);

      // Left to right in time: attempt 1, its wait, attempt 2, its wait, attempt 3; each drawn with a width.
      const boxes = [];
      for (const selector of [
        'rect.attempt[data-attempt="c1.1"]',
        'rect.wait[data-after="c1.1"]',
        'rect.attempt[data-attempt="c1.2"]',
        'rect.wait[data-after="c1.2"]',
        'rect.attempt[data-attempt="c1.3"]',
      ]) {
        const box = await page.locator(`svg.timeline ${selector}`).boundingBox();
        expect(box, selector).not.toBeNull();
        expect(box?.width ?? 0).toBeGreaterThan(0);
        boxes.push(box as { x: number; width: number });
      }
      for (let i = 1; i < boxes.length; i++) {
        expect(boxes[i]!.x).toBeGreaterThanOrEqual(boxes[i - 1]!.x);
      }
      const reserve = await page.locator('svg.timeline line.reserve').boundingBox();
      const deadline = await page.locator('svg.timeline line.deadline').boundingBox();
      expect(reserve!.x).toBeLessThan(deadline!.x);
      expect(boxes[4]!.x + boxes[4]!.width).toBeLessThanOrEqual(reserve!.x + 1);

      // The hover title names the class and the status.
      const first = page.locator('svg.timeline rect.attempt[data-attempt="c1.1"]');
      await first.hover();
      expect(await first.locator('title').textContent()).toMatch(
        /^c1\.1 · \[0\] local:flaky · ServerError 502 · took \d+ ms · retry-same, next in 300 ms · /,
      );
      expect(await page.locator('ul.legend li').allInnerTexts()).toEqual([
        'succeeded',
        'failed',
        'cancelled',
        'running',
        'wait',
        'reserve starts',
        'deadline',
      ]);
      expect(await page.locator('table.attempts tbody tr').count()).toBe(3);
      await page.screenshot({ path: join(ARTIFACTS, 'html-timeline.png'), fullPage: true });
    } finally {
      await page.close();
    }
  });
});
