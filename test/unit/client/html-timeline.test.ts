import { describe, expect, it } from 'vitest';
import { escapeHtml, renderHtmlTimeline } from '../../../client/html-timeline.js';
import type { AttemptRecord } from '../../../common/call.js';

const t0 = Date.parse('2026-01-01T00:00:00.000Z');
const at = (ms: number) => new Date(t0 + ms).toISOString();

const failed: AttemptRecord = {
  modelCallId: 'c1.1',
  callId: 'c1',
  attempt: 1,
  backend: 0,
  model: 'local:<script>alert(1)</script>',
  startedAt: at(100),
  endedAt: at(300),
  outcome: 'failed',
  failure: { class: 'ServerError', status: 502, action: 'retry-same', message: 'bad "gateway" & <b>co</b>' },
  retryInMs: 1000,
};
const answered: AttemptRecord = {
  modelCallId: 'c2.1',
  callId: 'c2',
  attempt: 1,
  backend: 0,
  model: 'local:fast',
  startedAt: at(1400),
  endedAt: at(1500),
  outcome: 'succeeded',
};

describe('the HTML timeline page', () => {
  it('escapes every text it shows: model names, messages, the workflow id', () => {
    expect(escapeHtml(`<a href="x">'&'</a>`)).toBe('&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;');
    const html = renderHtmlTimeline([failed], {
      workflowId: 'wf-<img src=x onerror=alert(1)>',
      status: 'failed',
      startedAt: t0,
      endAt: t0 + 2000,
    });
    expect(html).not.toContain('<script>');
    expect(html).not.toContain('<img');
    expect(html).not.toContain('<b>co</b>');
    expect(html).toContain('local:&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).toContain('bad &quot;gateway&quot; &amp; &lt;b&gt;co&lt;/b&gt;');
  });

  it('draws one lane per call, a bar per attempt, a wait after a failure, and no deadline lines without a deadline', () => {
    const html = renderHtmlTimeline([failed, answered], {
      workflowId: 'wf',
      status: 'succeeded',
      startedAt: t0,
      endAt: t0 + 1600,
    });
    expect(html.match(/class="lane-label"/g)).toHaveLength(2);
    expect(html.match(/<rect class="attempt /g)).toHaveLength(2);
    expect(html.match(/<rect class="wait"/g)).toHaveLength(1);
    expect(html).not.toContain('class="deadline"');
    expect(html).toContain(
      '<title>c1.1 · [0] local:&lt;script&gt;alert(1)&lt;/script&gt; · ServerError 502 · took 200 ms',
    );
  });

  it('draws the reserve before the deadline when the call has one, and says when no attempt was made', () => {
    const html = renderHtmlTimeline([], {
      workflowId: 'wf',
      status: 'failed',
      stopReason: 'deadline',
      startedAt: t0,
      endAt: t0 + 10,
      deadlineMs: t0 + 5000,
      reserveMs: 1000,
    });
    const x = (cls: string) => Number(new RegExp(`<line class="${cls}" x1="([\\d.]+)"`).exec(html)?.[1]);
    expect(x('reserve')).toBeLessThan(x('deadline'));
    expect(html).toContain('No attempt was made.');
  });
});
