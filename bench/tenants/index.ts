import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Client } from '@temporalio/client';
import { LEASE_TTL_MS } from '../../activities/tenants/leases.js';
import { startDevServer } from '../../worker/dev-server.js';
import type { BenchContext } from '../../test/harness/lab.js';
import { startWorkerProcess } from '../../test/harness/spawn/index.js';
import type { WorkerProcess } from '../../test/harness/spawn/index.js';
import type { Benchmark } from '../lib/benchmark.js';
import { fmtRatio } from '../lib/stats.js';
import { ledgerSays, runCapped } from './envelope.js';
import { measureFairness } from './fairness.js';
import type { FairnessSide } from './fairness.js';
import { ledgerTrips } from './ledger-trips.js';
import {
  BILLED,
  FULL,
  OVER_BILLED,
  QUICK,
  answersPerMinute,
  models,
  scriptLoopback,
  writeFiles,
} from './plan.js';
import type { Plan } from './plan.js';
import { envelopeTable, fairnessTable, ledgerTable, tokensTable } from './tables.js';
import { runTokens } from './tokens.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The worker processes of one server on one task queue, with the run's providers and tenants files. */
async function fleetOf(
  ctx: BenchContext,
  server: { address: string; namespace: string },
  plan: Plan,
  files: { providers: string; tenants: string },
): Promise<{ taskQueue: string; workers: WorkerProcess[] }> {
  const on = { ...ctx, address: server.address, namespace: server.namespace };
  const taskQueue = `bench-tenants-${randomUUID()}`;
  const env = { MODEL_RETRY_PROVIDERS: files.providers, MODEL_RETRY_TENANTS: files.tenants };
  const tuning = { maxConcurrentActivityTaskExecutions: plan.activitySlots };
  const workers = await Promise.all(
    Array.from({ length: plan.workers }, () => startWorkerProcess(on, tuning, { taskQueue, env })),
  );
  return { taskQueue, workers };
}

/** What bench/actions last measured for a call answered at once (ours and the floor's), when it has a result. */
function callActions(): { ours: number; floor: number } | undefined {
  const file = resolve('bench/results/actions.json');
  if (!existsSync(file)) return undefined;
  const rows = (
    JSON.parse(readFileSync(file, 'utf8')) as {
      result: { figures: { rows?: { name: string; ours: { total: number }; floor?: { total: number } }[] } };
    }
  ).result.figures.rows;
  const row = rows?.find((r) => r.name === 'answered at once');
  return row?.floor ? { ours: row.ours.total, floor: row.floor.total } : undefined;
}

/**
 * Tenants: fair shares, envelopes, tokens per minute and what the ledgers cost, each side by side in one run.
 * Two worker processes with few activity slots poll one task queue. Fairness: tenant `trickle` starts a call every
 * so often, alone and while tenant `burst` starts many at once, on the run's server (fairness on) and on a dev
 * server of its own with fairness off. Envelope: a capped tenant starts more calls than its envelope holds, with a
 * provider that bills within the reservations and one that bills past them. Tokens per minute: a provider that
 * answers 429 past its tokens a minute, with `limits.tokensPerMinute` on and off. Ledger: lease updates and settle
 * signals per call, from the ledgers' histories. Small counts on two cores: figures are ratios and counts.
 */
export const tenants: Benchmark = {
  name: 'tenants',
  title: '13. Tenants: fair shares, envelopes, tokens per minute, ledger round trips',
  async run(ctx) {
    const plan = ctx.size === 'quick' ? QUICK : FULL;
    const dir = mkdtempSync(join(tmpdir(), 'model-retry-bench-tenants-'));
    const tag = randomUUID().slice(0, 8);
    const m = models(ctx);
    scriptLoopback(ctx, m, plan);
    const files = writeFiles(dir, ctx, m, plan, tag);
    const fairnessModels = { burst: m.burst.name, trickle: m.trickle.name };
    try {
      // Fairness off first, on a server of its own, stopped before the run's server is measured.
      const own = await startDevServer({ fairness: false, dbFilename: join(dir, 'off.sqlite') });
      let off;
      try {
        const fleet = await fleetOf(ctx, own, plan, files);
        try {
          off = await measureFairness(
            { client: own.env.client, taskQueue: fleet.taskQueue },
            plan,
            fairnessModels,
          );
        } finally {
          await Promise.all(fleet.workers.map((w) => w.stop()));
        }
      } finally {
        await own.stop();
      }
      ctx.log('bench: tenants: fairness off measured');

      const fleet = await fleetOf(ctx, ctx, plan, files);
      const client: Client = ctx.client;
      try {
        const on = await measureFairness({ client, taskQueue: fleet.taskQueue }, plan, fairnessModels);
        ctx.log('bench: tenants: fairness on measured');
        const billed = (b: { inputTokens: number; outputTokens: number }) => b.inputTokens + b.outputTokens;
        const capped = { tenant: `capped-${tag}`, model: m.envelope, billedPerRequest: billed(BILLED) };
        const over = { tenant: `over-${tag}`, model: m.overBilling, billedPerRequest: billed(OVER_BILLED) };
        const within = await runCapped(
          client,
          fleet.taskQueue,
          ctx.lp,
          capped,
          plan.envelopeTokens,
          plan.envelopeCalls,
        );
        const overBilling = await runCapped(
          client,
          fleet.taskQueue,
          ctx.lp,
          over,
          plan.envelopeTokens,
          plan.envelopeCalls,
        );
        const settleBy = Date.now() + LEASE_TTL_MS + 5_000;
        const tpmOn = await runTokens(
          client,
          fleet.taskQueue,
          ctx.lp,
          { bucket: 'on', model: m.tpmOn },
          plan.tpmCalls,
        );
        const tpmOff = await runTokens(
          client,
          fleet.taskQueue,
          ctx.lp,
          { bucket: 'off', model: m.tpmOff },
          plan.tpmCalls,
        );
        // Leases settle when they expire: wait for the last ones before reading the ledgers.
        await sleep(Math.max(0, settleBy - Date.now()));
        const ledgers = {
          within: await ledgerSays(client, capped.tenant),
          overBilling: await ledgerSays(client, over.tenant),
        };
        const trips = await Promise.all(
          ['burst', 'trickle', capped.tenant, over.tenant].map((t) => ledgerTrips(client, t)),
        );
        const callsOf: Record<string, number> = {
          burst: plan.burstCalls,
          trickle: 2 * plan.trickleCalls,
          [capped.tenant]: plan.envelopeCalls,
          [over.tenant]: plan.envelopeCalls,
        };
        const fair = trips.filter((t) => t.tenant === 'burst' || t.tenant === 'trickle');
        const fairCalls = plan.burstCalls + 2 * plan.trickleCalls;
        const fairTrips = fair.reduce((n, t) => n + t.leaseUpdates + t.signals, 0);
        const spanMin = Math.max(...fair.map((t) => t.spanMs)) / 60_000;
        const ledger = {
          trips,
          callsOf,
          roundTripsPerCall: fairTrips / fairCalls,
          ledgerActionsPerCall: fair.reduce((n, t) => n + t.actions, 0) / fairCalls,
          roundTripsPerWorkerPerMinute: spanMin > 0 ? fairTrips / plan.workers / spanMin : undefined,
          callActions: callActions(),
        };
        return {
          name: 'tenants',
          title: tenants.title,
          params: { ...plan },
          tables: [
            fairnessTable(on, off, plan),
            envelopeTable([
              { label: 'billed within the reservation', side: within, ledger: ledgers.within },
              { label: 'billed 20 % past `maxOutputTokens`', side: overBilling, ledger: ledgers.overBilling },
            ]),
            tokensTable(tpmOn, tpmOff, plan, answersPerMinute(plan)),
            ledgerTable(trips, callsOf),
          ],
          figures: {
            fairness: { on, off },
            envelope: {
              within: { ...within, ledger: ledgers.within },
              overBilling: { ...overBilling, ledger: ledgers.overBilling },
            },
            tokens: { on: tpmOn, off: tpmOff },
            ledger,
          },
          notes: notes(on, off, ledger),
        };
      } finally {
        await Promise.all(fleet.workers.map((w) => w.stop()));
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
};

function notes(
  on: FairnessSide,
  off: FairnessSide,
  ledger: {
    roundTripsPerCall: number;
    roundTripsPerWorkerPerMinute: number | undefined;
    ledgerActionsPerCall: number;
    callActions?: { ours: number; floor: number } | undefined;
  },
): string[] {
  const base = ledger.callActions;
  return [
    `Trickle p95 under the burst over alone: ${fmtRatio(on.p95Ratio)} with fairness on, ` +
      `${fmtRatio(off.p95Ratio)} off; from the start's answer to the result: ${fmtRatio(on.afterStartP95Ratio)} ` +
      `on, ${fmtRatio(off.afterStartP95Ratio)} off. Fairness orders a task queue's backlog; a start request waits ` +
      "behind the burst's starts in the server itself, which fairness does not order.",
    `The ledgers of \`burst\` and \`trickle\` cost ${ledger.roundTripsPerCall.toFixed(3)} round trips and ` +
      `${ledger.ledgerActionsPerCall.toFixed(3)} billable actions per call` +
      (base
        ? `, beside a call answered at once: ${base.ours} actions (the floor's ${base.floor}, bench/actions).`
        : '.'),
    'The tokens-per-minute provider is emulated by the loopback script: it answers as many requests as fit in its ' +
      'minute, then 429 to each one after; each side runs well inside one minute.',
    `Round trips per worker per minute: ${ledger.roundTripsPerWorkerPerMinute?.toFixed(1) ?? 'n/a'}, over the ` +
      "ledgers' span in this short run (a longer run spreads the same 30 s leases over more calls). A capped " +
      'tenant past its envelope asks the ledger for each refused attempt: its round trips per call are not the goal.',
  ];
}
