import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatRerunReport } from '../../../client/rerun-format.js';
import { rerunHtml, writeRerunHtml } from '../../../client/rerun-html.js';
import type { RerunPair } from '../../../common/rerun.js';
import { answer, report } from '../../harness/rerun-fixture.js';

const source = (callId: string, step?: number) => ({
  workflowId: 'orig-wf',
  runId: 'run-1',
  callId,
  ...(step !== undefined ? { step } : {}),
});

/** A plain call answered by all three; a turn's step where the candidates ask for tools; one candidate failed. */
const pairs: RerunPair[] = [
  {
    source: source('c1'),
    original: answer('openai:gpt-4o'),
    candidates: [
      answer('anthropic:claude', { text: 'The capital of France is Paris, of course.', latencyMs: 1200 }),
      answer('google:gemini', { latencyMs: 400, costUsd: 0.00005 }),
    ],
  },
  {
    source: source('c2', 2),
    original: answer('openai:gpt-4o', {
      text: '',
      finishReason: 'tool-calls',
      toolCalls: [{ id: 'a', name: 'weather', args: '{"city":"Paris","unit":"C"}' }],
    }),
    candidates: [
      answer('anthropic:claude', {
        text: '',
        finishReason: 'tool-calls',
        toolCalls: [{ id: 'b', name: 'weather', args: '{"unit":"C","city":"Paris"}' }],
      }),
      answer('google:gemini', {
        outcome: 'failed',
        text: '',
        finishReason: undefined,
        usage: undefined,
        costUsd: undefined,
        latencyMs: 30_000,
        failureClass: 'RateLimited',
        stopReason: 'attempts-exhausted',
      }),
    ],
  },
];
const models = ['anthropic:claude', 'google:gemini'];

describe('the rerun report as text', () => {
  it('gives each request a block: each answer’s outcome, tokens, cost and latency, and a short comparison', () => {
    const text = formatRerunReport(
      report(models, pairs, { skipped: [{ source: source('c3'), reason: 'its stored payload is gone' }] }),
    );
    expect(text).toBe(
      [
        'rerun rerun-1: 2 requests rerun on anthropic:claude, google:gemini, 1 skipped',
        'started 2026-01-01T00:00:00.000Z, ended 2026-01-01T00:01:00.000Z',
        '',
        'c1 of orig-wf (run run-1)',
        '  original          succeeded (stop) · in 20 / out 8 tokens · $0.000123 · 850 ms · openai:gpt-4o',
        '  anthropic:claude  succeeded (stop) · in 20 / out 8 tokens · $0.000123 · 1.20 s',
        '                    0 words removed, 3 added (100% of the words kept)',
        '  google:gemini     succeeded (stop) · in 20 / out 8 tokens · $0.00005 · 400 ms',
        '                    same text',
        '',
        'c2 step 2 of orig-wf (run run-1)',
        '  original          succeeded (tool-calls) · tools weather · in 20 / out 8 tokens · $0.000123 · 850 ms · openai:gpt-4o',
        '  anthropic:claude  succeeded (tool-calls) · tools weather · in 20 / out 8 tokens · $0.000123 · 850 ms',
        '                    same text; same tool calls',
        '  google:gemini     failed: RateLimited, attempts-exhausted · 30.0 s',
        '                    no answer to compare',
        '',
        'skipped:',
        '  c3 of orig-wf (run run-1): its stored payload is gone',
        '',
        'totals:',
        '  model             requests  ok  failed                 tokens       cost  latency mean  median  same text  same tools',
        '  original                 2   2       0  in 40 / out 16 tokens  $0.000246        850 ms  850 ms          2           2',
        '  anthropic:claude         2   2       0  in 40 / out 16 tokens  $0.000246        1.02 s  1.02 s          1           2',
        '  google:gemini            2   1       1   in 20 / out 8 tokens   $0.00005        400 ms  400 ms          1           1',
        '',
      ].join('\n'),
    );
  });

  it('shows control characters from models’ and tools’ names as ?, so nothing rewrites the terminal', () => {
    const hostile = answer('evil:\u001b[2Jmodel', {
      toolCalls: [{ id: 'x', name: 'rm\u001b]0;owned\u0007', args: '{}' }],
    });
    const text = formatRerunReport(
      report(
        ['evil:\u001b[2Jmodel'],
        [{ source: source('c1'), original: answer('o:m'), candidates: [hostile] }],
      ),
    );
    // eslint-disable-next-line no-control-regex
    expect(text).not.toMatch(/[\u0000-\u0009\u000b-\u001f]/);
    expect(text).toContain('evil:?[2Jmodel');
    expect(text).toContain('tools rm?]0;owned?');
  });
});

describe('the rerun report as HTML', () => {
  it('puts the original beside each candidate, the candidate’s text as a word diff against it', () => {
    const html = rerunHtml(report(models, pairs));
    expect(html.match(/<section class="pair"/g)).toHaveLength(2);
    expect(html.match(/<article class="answer original/g)).toHaveLength(2);
    expect(html.match(/<article class="answer candidate/g)).toHaveLength(4);
    expect(html).toContain('The capital of France is Paris<ins>, of course</ins>.');
    expect(html).toContain('<dd class="failure-class">RateLimited</dd>');
    expect(html).toContain('<dd class="stop-reason">attempts-exhausted</dd>');
    expect(html).toContain(
      '<code class="tool-name">weather</code><pre>{\n  &quot;city&quot;: &quot;Paris&quot;',
    );
    expect(html).toContain('same tool calls');
    expect(html.match(/<tr>/g)).toHaveLength(4);
    expect(html).not.toContain('<h2>Skipped</h2>');
  });

  it('lists the skipped requests with their reason', () => {
    const html = rerunHtml(
      report(models, [], { skipped: [{ source: source('c9', 4), reason: 'an embedding is not rerun' }] }),
    );
    expect(html).toContain('No request was rerun.');
    expect(html).toContain(
      '<li><span class="source">c9 step 4 of orig-wf (run run-1)</span>: <span class="reason">an embedding is not rerun</span></li>',
    );
  });

  it('escapes everything a model or a record wrote, and loads nothing from anywhere', () => {
    const attack = '<script>alert(1)</script><img src=x onerror=alert(2)>"\'&';
    const hostile = answer(`m:${attack}`, {
      workflowId: attack,
      text: `Sure. ${attack}`,
      toolCalls: [{ id: 'x', name: attack, args: JSON.stringify({ q: attack }) }],
      finishReason: attack,
    });
    const html = rerunHtml(
      report(
        [`m:${attack}`],
        [
          {
            source: { workflowId: attack, runId: attack, callId: attack },
            original: answer('o:m', { text: `Fine. ${attack}` }),
            candidates: [hostile],
          },
        ],
        { rerunWorkflowId: attack, skipped: [{ source: source('c2'), reason: attack }] },
      ),
    );
    expect(html).not.toMatch(/<(script|img|iframe|link|object|embed|svg)/i);
    expect(html).toContain(
      '&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=alert(2)&gt;&quot;&#39;&amp;',
    );
    expect(html).toContain(
      `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">`,
    );
  });

  it('writes the page to a file', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'rerun-html-')), 'report.html');
    const r = report(models, pairs);
    await writeRerunHtml(r, file);
    expect(readFileSync(file, 'utf8')).toBe(rerunHtml(r));
  });
});

describe('why a candidate failed', () => {
  const why = `the provider refused <b>this</b> request: ${'very long reason '.repeat(40)}`;
  const failedPair: RerunPair = {
    source: source('c1'),
    original: answer('openai:gpt-4o'),
    candidates: [
      answer('anthropic:claude', {
        outcome: 'failed',
        text: '',
        finishReason: undefined,
        stopReason: 'non-retryable',
        message: why,
      }),
    ],
  };

  it('is in the text report, cut to 300 characters', () => {
    const text = formatRerunReport(report(['anthropic:claude'], [failedPair]));
    expect(text).toContain('the provider refused <b>this</b> request: very long reason');
    const line = text.split('\n').find((l) => l.includes('the provider refused')) ?? '';
    expect(line.length).toBeLessThan(420);
    expect(line).toContain('…');
  });

  it('is on the HTML answer card, escaped and cut', () => {
    const html = rerunHtml(report(['anthropic:claude'], [failedPair]));
    expect(html).toContain('the provider refused &lt;b&gt;this&lt;/b&gt; request');
    expect(html).not.toContain('<b>this</b>');
    expect(html).not.toContain('very long reason '.repeat(30));
  });
});
