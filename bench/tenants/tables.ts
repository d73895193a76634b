import type { Table } from '../lib/report.js';
import { fmtMs, fmtNum, fmtRatio } from '../lib/stats.js';
import type { EnvelopeSide } from './envelope.js';
import type { FairnessSide } from './fairness.js';
import type { LedgerTrips } from './ledger-trips.js';
import type { Plan } from './plan.js';
import type { TokensSide } from './tokens.js';
import type { TenantSnapshot } from '../../common/tenants.js';

type Ledger = Pick<TenantSnapshot, 'spent' | 'held' | 'overBilled'> | undefined;

export function fairnessTable(on: FairnessSide, off: FairnessSide, plan: Plan): Table {
  const row = (label: string, pick: (s: FairnessSide) => string) => [label, pick(on), pick(off)];
  return {
    title:
      `Fairness: tenant \`trickle\` (${plan.trickleCalls} calls, one every ${plan.trickleEveryMs} ms) alone and ` +
      `while \`burst\` starts ${plan.burstCalls} calls at once; ${plan.workers} worker processes of ` +
      `${plan.activitySlots} activity slots, answers after ${plan.answerMs} ms`,
    columns: ['', 'fairness on', 'fairness off'],
    rows: [
      row('trickle p50, alone', (s) => fmtMs(s.alone.p50)),
      row('trickle p95, alone', (s) => fmtMs(s.alone.p95)),
      row('trickle p50, under the burst', (s) => fmtMs(s.underBurst.p50)),
      row('trickle p95, under the burst', (s) => fmtMs(s.underBurst.p95)),
      row(
        'trickle start request p50 / p95, alone',
        (s) => `${fmtMs(s.alone.startP50)} / ${fmtMs(s.alone.startP95)}`,
      ),
      row(
        'trickle start request p50 / p95, under the burst',
        (s) => `${fmtMs(s.underBurst.startP50)} / ${fmtMs(s.underBurst.startP95)}`,
      ),
      row('p50 under the burst / alone', (s) => fmtRatio(s.p50Ratio)),
      row('p95 under the burst / alone', (s) => fmtRatio(s.p95Ratio)),
      row(
        "from the start's answer to the result, p50 / p95 under the burst / alone",
        (s) => `${fmtRatio(s.afterStartP50Ratio)} / ${fmtRatio(s.afterStartP95Ratio)}`,
      ),
      row('burst p50 (its own calls)', (s) => fmtMs(s.burst.p50)),
      row(
        "trickle's last / burst's last call ended (s from the burst's start)",
        (s) => `${fmtNum(s.trickleEndMs / 1000)} / ${fmtNum(s.burstEndMs / 1000)}`,
      ),
      row('calls that failed (trickle alone, under, burst)', (s) =>
        [s.alone.failed, s.underBurst.failed, s.burst.failed].join(' / '),
      ),
    ],
  };
}

export function envelopeTable(sides: { label: string; side: EnvelopeSide; ledger: Ledger }[]): Table {
  const row = (label: string, pick: (s: EnvelopeSide, l: Ledger) => string) => [
    label,
    ...sides.map((s) => pick(s.side, s.ledger)),
  ];
  const first = sides[0]?.side;
  return {
    title:
      `Envelope: a tenant of ${first?.envelopeTokens ?? '?'} tokens a day starts ${first?.calls ?? '?'} calls at ` +
      `once across two worker processes (each reserves its input and \`maxOutputTokens\`)`,
    columns: ['', ...sides.map((s) => s.label)],
    rows: [
      row('calls succeeded / stopped budget', (s) => `${s.succeeded} / ${s.stoppedBudget}`),
      row('requests the provider received', (s) => String(s.requests)),
      row('tokens billed per request', (s) => String(s.billedPerRequest)),
      row('billed in all', (s) => String(s.billedTokens)),
      row('requests whose billing passed the envelope (goal 0 when billed within reservations)', (s) =>
        String(s.requestsPastEnvelope),
      ),
      row('billed past the envelope', (s) => String(s.billedPastEnvelope)),
      row('ledger: spent / held', (_s, l) => (l ? `${l.spent.tokens} / ${l.held.tokens}` : 'n/a')),
      row('ledger: over-billed (billed beyond reservations)', (_s, l) =>
        l ? String(l.overBilled.tokens) : 'n/a',
      ),
    ],
  };
}

export function tokensTable(on: TokensSide, off: TokensSide, plan: Plan, fits: number): Table {
  const row = (label: string, pick: (s: TokensSide) => string) => [label, pick(on), pick(off)];
  return {
    title:
      `Tokens per minute: ${plan.tpmCalls} calls at once (one attempt each) against a provider of ` +
      `${plan.tokensPerMinute} tokens a minute (emulated: ${fits} answers, then 429s)`,
    columns: ['', '`limits.tokensPerMinute` on', 'off'],
    rows: [
      row('calls succeeded', (s) => String(s.succeeded)),
      row('requests the provider received', (s) => String(s.requests)),
      row('429s met (goal 0 with the bucket)', (s) => String(s.rateLimited)),
      row(
        'how the others stopped',
        (s) =>
          Object.entries(s.stops)
            .map(([k, n]) => `${k} ${n}`)
            .join(', ') || '-',
      ),
    ],
  };
}

export function ledgerTable(trips: LedgerTrips[], callsOf: Record<string, number>): Table {
  return {
    title: 'Ledger round trips: lease updates and settle signals per call, from the ledgers’ histories',
    columns: [
      'tenant',
      'calls',
      'lease updates',
      'settle signals',
      'round trips per call',
      'ledger actions per call',
      'ledger span (s)',
    ],
    rows: trips.map((t) => {
      const calls = callsOf[t.tenant] ?? 0;
      const per = (n: number) => (calls > 0 ? fmtNum(n / calls, 3) : 'n/a');
      return [
        t.tenant,
        String(calls),
        String(t.leaseUpdates),
        String(t.signals),
        per(t.leaseUpdates + t.signals),
        per(t.actions),
        fmtNum(t.spanMs / 1000),
      ];
    }),
  };
}
