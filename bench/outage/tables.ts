/** The outage benchmark's tables: per scenario and mode, and the recovery part. */
import type { OutagePlan } from './plan.js';
import type { RecoveryFigures } from './recovery.js';
import type { WaveFigures } from './wave.js';
import type { Table } from '../lib/report.js';
import { fmtMs } from '../lib/stats.js';

/** One wave's row: its scenario, its mode and what it measured. */
export type OutageRow = WaveFigures & { scenario: string; health: 'on' | 'off' };

const dash = (n: number | undefined): string => (n === undefined ? '-' : String(n));
const time = (n: number | undefined): string => (n === undefined ? '-' : fmtMs(n));

/** The goal cell: health on, what reached A against its bound; off, against calls x (retries + 1). */
function goalCell(plan: OutagePlan, r: OutageRow): string {
  const reached = r.requestsToA ?? r.sentAttemptsOnA;
  if (r.health === 'off') return `${reached} vs ~${r.calls * (plan.retriesPerBackend + 1)} expected`;
  if (r.goalBound === undefined) return 'never tripped';
  const how = `${reached} <= ${dash(r.inFlightAtTrip)} + ${plan.threshold} + ${dash(r.probes)} = ${r.goalBound}`;
  return `${r.goalMet ? 'met' : 'MISSED'}: ${how}; ${dash(r.afterVisible)} after the trip was visible`;
}

function policy(plan: OutagePlan): string {
  const waits = Array.from({ length: plan.retriesPerBackend + 1 }, () => fmtMs(plan.waitMs)).join(', ');
  return (
    `retriesPerBackend ${plan.retriesPerBackend}, waits ${waits}; health: trip ${plan.threshold} failures ` +
    `in ${fmtMs(plan.windowMs)}, cool-down ${fmtMs(plan.coolDownMs)}`
  );
}

export function outageTables(plan: OutagePlan, rows: readonly OutageRow[], rec: RecoveryFigures): Table[] {
  return [
    {
      title:
        `${plan.calls} calls at once, chain [A, B], ${plan.workers} worker processes, A failing, B healthy ` +
        `(policy: ${policy(plan)})`,
      columns: [
        'A',
        'fleet health',
        'requests to A (loopback)',
        'attempts on A (sent / CoolingDown)',
        'trips / probes',
        'time to last answer',
        'wasted attempt time on A',
        'unfinished',
        'trip (first breaker / health workflow)',
        'goal: requests to A <= in flight at trip + threshold + probes',
      ],
      rows: rows.map((r) => [
        r.scenario,
        r.health,
        dash(r.requestsToA),
        `${r.attemptsOnA} (${r.sentAttemptsOnA} / ${r.coolingDown})`,
        r.health === 'on' ? `${dash(r.trips)} / ${dash(r.probes)}` : '-',
        time(r.lastAnswerMs),
        time(r.wastedAttemptMs),
        String(r.unfinished),
        r.health === 'on' ? `${time(r.tripAtMs)} / ${time(r.openedAtMs)}` : '-',
        goalCell(plan, r),
      ]),
    },
    {
      title:
        `Recovery: A refuses connections until its breaker opens, then answers (a call every ` +
        `${fmtMs(plan.recoveryIntervalMs)}, first cool-down ${fmtMs(rec.coolDownMs)}, health on)`,
      columns: ['measure', 'value'],
      rows: [
        ['trips / probes granted before A came back', `${rec.tripsBeforeBack} / ${rec.probesBeforeBack}`],
        ['attempts that tried A before it came back', String(rec.sentBeforeBack)],
        [
          'cool-down at the return / still open after it',
          `${time(rec.coolDownAtBackMs)} / ${time(rec.openAfterBackMs)}`,
        ],
        [
          'A back -> its first request (goal: within one cool-down)',
          `${time(rec.backToFirstRequestMs)} (${rec.withinOneCoolDown ? 'met' : 'MISSED'})`,
        ],
        ['end of the open phase -> first request to A', time(rec.untilToFirstRequestMs)],
        ['A back -> breaker closed', time(rec.backToClosedMs)],
        ['probes granted in all', String(rec.probes)],
        ['requests to A once back / calls A answered', `${rec.requestsAfterBack} / ${rec.answeredByA}`],
        ['calls / unfinished', `${rec.calls} / ${rec.unfinished}`],
      ],
    },
  ];
}
