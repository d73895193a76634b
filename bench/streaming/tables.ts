import { DEFAULT_STREAM_BATCH_MS } from '../../common/stream.js';
import type { Table } from '../lib/report.js';
import { fmtBytes, fmtMs, fmtNum, fmtRatio, ratio } from '../lib/stats.js';
import type { Summary } from '../lib/stats.js';
import type { AnswerShape } from './run.js';

/** Temporal's limits a long stream runs into: events per run, and updates (each poll is one) per run. */
export const HISTORY_EVENT_LIMIT = 51_200;
export const UPDATE_LIMIT = 2000;

/** What a call cost in history at one batch interval, with no subscriber or one (medians of the repetitions). */
export interface CallCost {
  events: number;
  bytes: number;
  signals: number;
  polls: number;
  /** Beyond the same answer not streamed, per second of streamed answer. */
  addedEventsPerSecond: number;
  addedBytesPerSecond: number;
  pollsPerSecond: number;
}

export interface IntervalFigures {
  batchMs: number;
  /** From the provider receiving the request to its last delta, s (median). */
  streamedSeconds: number;
  none: CallCost;
  one: CallCost;
  latencyMs: Summary;
  readAfterClose: number;
  /** The events by type of the first call with a subscriber and of the first without. */
  types: { one: Record<string, number>; none: Record<string, number> };
}

/** The streaming benchmark's tables: events, bytes, latency, and how long a run can stream. */
export function streamingTables(
  rows: IntervalFigures[],
  baseline: { events: number; bytes: number },
  shape: AnswerShape,
  reps: number,
): Table[] {
  const ref = rows.find((r) => r.batchMs === DEFAULT_STREAM_BATCH_MS);
  const vsRef = (v: number, r: number | undefined) => fmtRatio(ratio(v, r ?? Number.NaN));
  const label = (b: number) => (b === DEFAULT_STREAM_BATCH_MS ? `${b} ms (default)` : `${b} ms`);
  const answer = `a ${fmtNum((shape.deltas * shape.chunkDelayMs) / 1000)} s answer (${shape.deltas} deltas)`;
  const of = `median of ${reps} call${reps === 1 ? '' : 's'} each`;
  return [
    {
      title: `History events of a call streaming ${answer}, by batch interval (${of})`,
      columns: [
        'batch interval',
        'publish signals',
        'events, no subscriber',
        'added per s',
        'subscriber polls',
        'events, one subscriber',
        'added per s',
        'vs not streamed',
        'added per s vs default',
      ],
      rows: [
        ['not streamed (baseline)', '0', fmtNum(baseline.events), '0', 'n/a', 'n/a', 'n/a', '1.00×', 'n/a'],
        ...rows.map((r) => [
          label(r.batchMs),
          fmtNum(r.none.signals),
          fmtNum(r.none.events),
          fmtNum(r.none.addedEventsPerSecond),
          fmtNum(r.one.polls),
          fmtNum(r.one.events),
          fmtNum(r.one.addedEventsPerSecond),
          fmtRatio(ratio(r.one.events, baseline.events)),
          vsRef(r.one.addedEventsPerSecond, ref?.one.addedEventsPerSecond),
        ]),
      ],
      notes: [
        '"Added per s": events beyond the same answer not streamed, per second of streamed answer (from the ' +
          "provider receiving the request to its last delta). Signals and polls are the attempt's publish " +
          'signals and the subscriber\'s updates in the history ("one subscriber" column).',
      ],
    },
    {
      title: `History bytes of the same calls (${of})`,
      columns: [
        'batch interval',
        'bytes, no subscriber',
        'added per s',
        'bytes, one subscriber',
        'added per s',
        'vs not streamed',
        'added per s vs default',
      ],
      rows: [
        ['not streamed (baseline)', fmtBytes(baseline.bytes), '0 B', 'n/a', 'n/a', '1.00×', 'n/a'],
        ...rows.map((r) => [
          label(r.batchMs),
          fmtBytes(r.none.bytes),
          fmtBytes(r.none.addedBytesPerSecond),
          fmtBytes(r.one.bytes),
          fmtBytes(r.one.addedBytesPerSecond),
          fmtRatio(ratio(r.one.bytes, baseline.bytes)),
          vsRef(r.one.addedBytesPerSecond, ref?.one.addedBytesPerSecond),
        ]),
      ],
    },
    {
      title:
        'Latency from the provider writing a delta to the subscriber receiving it (every delta of the calls)',
      columns: [
        'batch interval',
        'deltas',
        'p50',
        'p99',
        'max',
        'p50 / interval',
        'p50 vs default',
        'p99 vs default',
        'read after close',
      ],
      rows: rows.map((r) => [
        label(r.batchMs),
        String(r.latencyMs.n),
        fmtMs(r.latencyMs.p50),
        fmtMs(r.latencyMs.p99),
        fmtMs(r.latencyMs.max),
        fmtRatio(ratio(r.latencyMs.p50, r.batchMs)),
        vsRef(r.latencyMs.p50, ref?.latencyMs.p50),
        vsRef(r.latencyMs.p99, ref?.latencyMs.p99),
        String(r.readAfterClose),
      ]),
      notes: [
        'The subscriber polls with the default 100 ms cooldown. "Read after close": deltas it read from the closed ' +
          "run's history because it was between two polls when the run closed (their latency is counted too).",
      ],
    },
    {
      title: "How long one run's answer can stream before Temporal's limits (one subscriber, at these rates)",
      columns: [
        'batch interval',
        'events per s',
        `until ${HISTORY_EVENT_LIMIT.toLocaleString('en')} events`,
        'polls per s',
        `until ${UPDATE_LIMIT.toLocaleString('en')} updates`,
      ],
      rows: rows.map((r) => [
        label(r.batchMs),
        fmtNum(r.one.addedEventsPerSecond),
        fmtDuration((HISTORY_EVENT_LIMIT - baseline.events) / r.one.addedEventsPerSecond),
        fmtNum(r.one.pollsPerSecond),
        fmtDuration(UPDATE_LIMIT / r.one.pollsPerSecond),
      ]),
      notes: [
        'Temporal (self-hosted defaults) ends a run at 51,200 events and refuses updates past 2,000 in one run; ' +
          'every further subscriber adds its own polls.',
      ],
    },
  ];
}

/** One sentence for the default interval, and one comparing each other interval with it. */
export function streamingFindings(rows: IntervalFigures[]): string[] {
  const ref = rows.find((r) => r.batchMs === DEFAULT_STREAM_BATCH_MS);
  if (!ref) return [];
  const out = [
    `At the default ${ref.batchMs} ms, streaming adds ${fmtNum(ref.one.addedEventsPerSecond)} events and ` +
      `${fmtBytes(ref.one.addedBytesPerSecond)} per second of answer with one subscriber ` +
      `(${fmtNum(ref.none.addedEventsPerSecond)} events and ${fmtBytes(ref.none.addedBytesPerSecond)} with none), ` +
      `and a delta reaches the subscriber ${fmtMs(ref.latencyMs.p50)} after the provider sent it at the median ` +
      `(${fmtMs(ref.latencyMs.p99)} p99).`,
  ];
  for (const r of rows) {
    if (r === ref) continue;
    out.push(
      `${r.batchMs} ms against ${ref.batchMs} ms: ` +
        `${fmtRatio(ratio(r.one.addedEventsPerSecond, ref.one.addedEventsPerSecond))} the events per second ` +
        `(one subscriber), ${fmtRatio(ratio(r.latencyMs.p50, ref.latencyMs.p50))} the median latency, ` +
        `${fmtRatio(ratio(r.latencyMs.p99, ref.latencyMs.p99))} the p99.`,
    );
  }
  return out;
}

/** Seconds as `45 s`, `12 min`, `3.1 h`. */
function fmtDuration(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds <= 0) return 'n/a';
  if (seconds < 120) return `${Math.round(seconds)} s`;
  if (seconds < 7200) return `${Math.round(seconds / 60)} min`;
  return `${(seconds / 3600).toFixed(1)} h`;
}
