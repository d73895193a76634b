import { describe, expect, it } from 'vitest';
import { defaultPayloadConverter } from '@temporalio/common';
import type { temporal } from '@temporalio/proto';
import { fitAxis, LEFT, RIGHT, WIDTH } from '../../../client/timeline-axis.js';
import { renderHtmlTimeline } from '../../../client/html-timeline.js';
import { readToolSpans } from '../../../client/tool-history.js';
import type { AttemptRecord } from '../../../common/call.js';

const t0 = Date.parse('2026-01-01T00:00:00.000Z');
const at = (ms: number) => new Date(t0 + ms).toISOString();

function attempt(n: number, start: number, end: number, extra: Partial<AttemptRecord> = {}): AttemptRecord {
  return {
    modelCallId: `c1.${n}`,
    callId: 'c1',
    attempt: n,
    backend: 0,
    model: 'local:fast',
    startedAt: at(start),
    endedAt: at(end),
    outcome: 'succeeded',
    ...extra,
  };
}

describe('the timeline axis fits the run', () => {
  it('gives a 2-second run under a 2-minute deadline the whole width; the deadline and reserve go past a break', () => {
    const axis = fitAxis(t0, t0 + 2000, t0 + 120_000, 60_000);
    expect(axis.t1).toBe(t0 + 2000);
    expect(axis.x(t0 + 2000)).toBe(axis.plotEnd);
    expect(axis.plotEnd).toBeGreaterThan(WIDTH * 0.8);
    const [reserve, deadline] = axis.marks;
    expect(reserve).toMatchObject({ kind: 'reserve', offScale: true });
    expect(deadline).toMatchObject({ kind: 'deadline', offScale: true });
    expect(reserve!.x).toBeGreaterThan(axis.plotEnd);
    expect(reserve!.x).toBeLessThan(deadline!.x);
    expect(deadline!.x).toBeLessThanOrEqual(WIDTH - RIGHT);
  });

  it('stretches to a deadline near the run’s end and draws it on scale', () => {
    const axis = fitAxis(t0, t0 + 9000, t0 + 10_000, 3000);
    expect(axis.t1).toBe(t0 + 10_000);
    expect(axis.marks.map((m) => m.offScale)).toEqual([false, false]);
    expect(axis.marks[1]!.x).toBe(axis.plotEnd);
    expect(axis.x(t0)).toBe(LEFT);
  });

  it('keeps the reserve on scale and only the deadline past the break when that is how they fall', () => {
    const axis = fitAxis(t0, t0 + 9000, t0 + 60_000, 52_000);
    expect(axis.marks.map((m) => [m.kind, m.offScale])).toEqual([
      ['reserve', false],
      ['deadline', true],
    ]);
  });
});

describe('the HTML timeline draws waits with their cause and tools in their calls’ lanes', () => {
  const failed = attempt(1, 0, 50, {
    outcome: 'failed',
    failure: { class: 'ServerError', status: 502, action: 'retry-same', message: 'bad gateway' },
    retryInMs: 1000,
  });
  it('labels a wide wait with its class, status and length', () => {
    const html = renderHtmlTimeline([failed, attempt(2, 1050, 1100)], {
      workflowId: 'wf',
      status: 'succeeded',
      startedAt: t0,
      endAt: t0 + 1100,
      deadlineMs: t0 + 120_000,
      reserveMs: 60_000,
    });
    expect(html).toMatch(/<text class="wait-label" data-after="c1.1" [^>]*>ServerError 502 · 1.00 s<\/text>/);
    expect(html).toContain('data-scale="off"');
    expect(html).toContain('class="axis-break"');
  });

  it('puts each tool call in the lane of the call that asked for it, parallel ones in bands of their own', () => {
    const html = renderHtmlTimeline(
      [attempt(1, 0, 100), { ...attempt(1, 400, 500), modelCallId: 'c2.1', callId: 'c2' }],
      { workflowId: 'wf', status: 'succeeded', startedAt: t0, endAt: t0 + 500 },
      [
        {
          activityId: 'c1.tool.1',
          callId: 'c1',
          name: 'calculator',
          startedAt: t0 + 120,
          endedAt: t0 + 380,
          outcome: 'succeeded',
        },
        {
          activityId: 'c1.tool.2',
          callId: 'c1',
          name: 'search',
          startedAt: t0 + 120,
          endedAt: t0 + 300,
          outcome: 'failed',
        },
      ],
    );
    const y = (sel: string) => Number(new RegExp(`${sel}[^>]* y="([\\d.]+)"`).exec(html)?.[1]);
    const lane1 = y('data-attempt="c1.1"');
    const lane2 = y('data-attempt="c2.1"');
    expect(y('data-tool="c1.tool.1"')).toBe(lane1);
    expect(y('data-tool="c1.tool.2"')).toBeGreaterThan(lane1);
    expect(y('data-tool="c1.tool.2"')).toBeLessThan(lane2);
    expect(html).toContain('<title>c1.tool.2 · tool search · failed · took 180 ms</title>');
    expect(html).toContain('tool call</li>');
  });
});

describe('tool calls read from a turn’s history', () => {
  const time = (ms: number) => ({ seconds: Math.floor((t0 + ms) / 1000), nanos: ((t0 + ms) % 1000) * 1e6 });
  const input = (value: unknown) => ({ payloads: [defaultPayloadConverter.toPayload(value)] });
  it('are the `<callId>.tool.<n>` activities, with their name, times and how they ended', () => {
    const events = [
      {
        eventId: 5,
        eventTime: time(100),
        activityTaskScheduledEventAttributes: { activityId: 'c1.1', input: input({}) },
      },
      {
        eventId: 9,
        eventTime: time(200),
        activityTaskScheduledEventAttributes: {
          activityId: 'c1.tool.1',
          input: input({ name: 'calculator' }),
        },
      },
      {
        eventId: 10,
        eventTime: time(210),
        activityTaskScheduledEventAttributes: { activityId: 'c1.tool.2', input: input({ name: 'search' }) },
      },
      { eventId: 12, eventTime: time(260), activityTaskCompletedEventAttributes: { scheduledEventId: 9 } },
      { eventId: 13, eventTime: time(300), activityTaskFailedEventAttributes: { scheduledEventId: 10 } },
    ] as unknown as temporal.api.history.v1.IHistoryEvent[];
    expect(readToolSpans([{ events }])).toEqual([
      {
        activityId: 'c1.tool.1',
        callId: 'c1',
        name: 'calculator',
        startedAt: t0 + 200,
        endedAt: t0 + 260,
        outcome: 'succeeded',
      },
      {
        activityId: 'c1.tool.2',
        callId: 'c1',
        name: 'search',
        startedAt: t0 + 210,
        endedAt: t0 + 300,
        outcome: 'failed',
      },
    ]);
  });
});
