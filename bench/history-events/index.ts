import { fail, ok, rateLimited } from '../../loopback/index.js';
import type { Benchmark } from '../lib/benchmark.js';
import { runCall, runServerRetry } from '../lib/calls.js';
import type { FinishedRun } from '../lib/calls.js';
import { anatomy } from '../lib/history.js';
import type { CallAnatomy, SegmentKind } from '../lib/history.js';
import { fmtRatio, median, ratio } from '../lib/stats.js';

/** The minimum for per-attempt durability: activity 3 + workflow task 3 (+ timer 2 + workflow task 3). */
export const MINIMUM = { 'failed + wait': 11, 'failed + immediate advance': 6, succeeded: 6 } as const;
/** The goal for what the stop adds: one event for the search attributes. */
export const STOP_GOAL = 1;

const WAIT_MS = 100;

/**
 * Item 1: history events per attempt, counted from real histories. One call meets a 502 (retry-same after a
 * durable wait), then a 429 (advance to the second backend at once), then answers; another answers at once.
 * Beside them, the bench-only `serverRetryWorkflow`: one plain activity call, and one whose two failures
 * Temporal's server retries.
 */
export const historyEvents: Benchmark = {
  name: 'history-events',
  title: '1. History events per attempt',
  async run(ctx) {
    const reps = ctx.size === 'quick' ? 1 : 3;
    const ours = await ctx.startWorker();
    const baseline = await ctx.startServerRetryWorker();
    const mixed: CallAnatomy[] = [];
    const once: CallAnatomy[] = [];
    const plain: CallAnatomy[] = [];
    const server: CallAnatomy[] = [];
    try {
      for (let rep = 0; rep < reps; rep += 1) {
        const a = ctx.model('events-a');
        const b = ctx.model('events-b');
        ctx.lp.script(a.id, [fail(502), rateLimited()]).script(b.id, [ok()]);
        mixed.push(
          checked(
            await runCall(ctx, ours.taskQueue, {
              model: [a.name, b.name],
              prompt: 'count my events',
              retry: { waits: [WAIT_MS] },
            }),
          ),
        );
        const c = ctx.model('events-once');
        ctx.lp.script(c.id, [ok()]);
        once.push(
          checked(
            await runCall(ctx, ours.taskQueue, {
              model: c.name,
              prompt: 'count my events',
              retry: { waits: [WAIT_MS] },
            }),
          ),
        );
        const d = ctx.model('events-plain');
        ctx.lp.script(d.id, [ok()]);
        plain.push(checked(await runServerRetry(ctx, baseline.taskQueue, input(d.name, 1))));
        const e = ctx.model('events-server');
        ctx.lp.script(e.id, [fail(502), fail(502), ok()]);
        server.push(checked(await runServerRetry(ctx, baseline.taskQueue, input(e.name, 3))));
      }
    } finally {
      await ours.stop();
      await baseline.stop();
    }

    const seg = (kind: SegmentKind) =>
      mixed.map((m) => m.attempts.find((s) => s.kind === kind)?.events ?? []);
    const count = (kind: SegmentKind) => median(seg(kind).map((e) => e.length));
    const stopCost = median(mixed.map((m) => m.stop.length));
    const frame = median(mixed.map((m) => m.start.length + m.close.length));
    const serverFrame = median(server.map((m) => m.start.length + m.close.length));
    const serverAttempts = median(server.map((m) => m.attempts.reduce((n, s) => n + s.events.length, 0)));
    const figures = {
      perAttempt: {
        'failed + wait': count('failed + wait'),
        'failed + immediate advance': count('failed + immediate advance'),
        succeeded: count('succeeded'),
      },
      minimum: MINIMUM,
      stop: { events: stopCost, types: mixed[0]?.stop ?? [], goal: STOP_GOAL },
      frame,
      serverRetry: { attempts: 3, attemptEvents: serverAttempts, frame: serverFrame },
      totals: {
        mixed: median(mixed.map((m) => m.total)),
        succeedsAtOnce: median(once.map((m) => m.total)),
        plainActivityCall: median(plain.map((m) => m.total)),
        serverRetryThreeAttempts: median(server.map((m) => m.total)),
      },
      sequences: {
        'failed + wait': seg('failed + wait')[0] ?? [],
        'failed + immediate advance': seg('failed + immediate advance')[0] ?? [],
        succeeded: seg('succeeded')[0] ?? [],
        stop: mixed[0]?.stop ?? [],
        serverRetry: server[0]?.attempts.flatMap((s) => s.events) ?? [],
      },
      varied: [mixed, once, plain, server].some((runs) => new Set(runs.map((r) => r.total)).size > 1),
    };
    const t = figures.totals;
    return {
      name: 'history-events',
      title: this.title,
      params: { repetitions: reps, waitMs: WAIT_MS },
      figures,
      tables: [
        {
          title: 'Events per attempt (median of the repetitions)',
          columns: [
            'part of the history',
            'model-retry',
            'minimum (per-attempt durability)',
            'Temporal server-side retry',
          ],
          rows: [
            [
              'failed attempt, then a durable wait',
              n(count('failed + wait')),
              '11',
              '0 (a retry leaves no event)',
            ],
            ['failed attempt, then an immediate advance', n(count('failed + immediate advance')), '6', '0'],
            ['successful attempt', n(count('succeeded')), '6', `${n(serverAttempts)} for all 3 attempts`],
            [
              "the stop's search attributes",
              `${n(stopCost)} (${figures.stop.types.join(' + ') || 'none'})`,
              `${STOP_GOAL} (goal)`,
              '0',
            ],
            ['start and close of the run', n(frame), '5', n(serverFrame)],
          ],
        },
        {
          title: 'Whole calls (events in the history)',
          columns: ['call', 'model-retry', 'baseline', 'ratio'],
          rows: [
            [
              'answers at once',
              n(t.succeedsAtOnce),
              `${n(t.plainActivityCall)} (a plain activity call)`,
              fmtRatio(ratio(t.succeedsAtOnce, t.plainActivityCall)),
            ],
            [
              '502, wait, 429, advance, answer (3 attempts)',
              n(t.mixed),
              `${n(t.serverRetryThreeAttempts)} (server-side retry, 3 attempts)`,
              fmtRatio(ratio(t.mixed, t.serverRetryThreeAttempts)),
            ],
          ],
          notes: [
            'Event sequences: failed + wait = ' + figures.sequences['failed + wait'].join(', ') + '.',
            'Immediate advance = ' + figures.sequences['failed + immediate advance'].join(', ') + '.',
            'Server-side retry, 3 attempts = ' + figures.sequences.serverRetry.join(', ') + '.',
          ],
        },
      ],
      notes: [
        `A call that answers at once costs ${n(t.succeedsAtOnce - t.plainActivityCall)} event(s) more than a plain ` +
          `activity call: the stop's ${figures.stop.types.join(' and ') || 'nothing'}.`,
        figures.varied
          ? 'Counts varied between repetitions (workflow tasks merged); the table shows medians.'
          : `Every repetition (${reps}) gave the same counts.`,
      ],
    };
  },
};

function input(model: string, maximumAttempts: number) {
  return { model, prompt: 'count my events', maximumAttempts, waitMs: WAIT_MS, timeoutMs: 30_000 };
}

function checked(run: FinishedRun): CallAnatomy {
  if (!run.ok) throw new Error(`history-events: ${run.workflowId} did not succeed`);
  return anatomy(run.history);
}

function n(value: number): string {
  return Number.isFinite(value) ? String(value) : 'n/a';
}
