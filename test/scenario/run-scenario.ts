import type { ModelCallFixture } from '../harness/model-call.js';
import type { TestWorker } from '../harness/temporal.js';
import type { ActivityDeps } from '../../activities/index.js';
import { deadProvider, loopbackProvider, nextPrefillModel } from './fleet.js';
import { at, sleep, startCall } from './run-call.js';
import type { Evidence, RunningCall } from './run-call.js';
import type { Neighbour, Scenario } from './scenario.js';
import { CONTINUE_ANSWER, CONTINUE_WIDE, stepOf } from './scripts.js';
import { TENANT_OUTPUT_BOUND, leastReservation, nextTenant } from './tenants.js';
import { tenantLedgerId } from '../../common/tenants.js';

export { retryOf } from './run-call.js';
export type { Evidence } from './run-call.js';

/** The workers a scenario may run on (see `fleet.ts`). */
export interface ScenarioWorkers {
  /** The deps of every in-process worker: the scenario providers. */
  deps: ActivityDeps;
  /** The in-process worker that serves a case alone. */
  shared: TestWorker;
  /** A task queue that an in-process worker and a `model-retry worker` process both poll (started once). */
  pair(): Promise<PairWorkers>;
  /** Starts an in-process worker (on `taskQueue`, else a fresh one) with an identity of its own. */
  start(taskQueue?: string): Promise<TestWorker>;
}

/** The two workers of a pair queue; a kill replaces `worker` (a process may run one worker per task queue). */
export interface PairWorkers {
  queue: string;
  worker: TestWorker;
}

/** Everything seen of one scenario: the main call's evidence first, then each neighbour's. */
export interface GroupEvidence {
  scenario: Scenario;
  /** The main chain's models (a neighbour's are some of them). */
  models: string[];
  calls: Evidence[];
}

/**
 * Runs one scenario to its end on the real dev server: the main call and its neighbours at once, on one task
 * queue and on the same backends, and gathers every call's evidence.
 */
export async function runScenario(
  fx: ModelCallFixture,
  workers: ScenarioWorkers,
  s: Scenario,
): Promise<GroupEvidence> {
  // When a call of the case continues cut streams, the scripts answer continuations (in the case's mode).
  const continuing = s.onCut === 'continue' || (s.neighbours ?? []).some((n) => n.onCut === 'continue');
  const text = s.wide ? CONTINUE_WIDE : CONTINUE_ANSWER;
  const continues = continuing ? { mode: s.continueMode ?? 'exact', text } : undefined;
  // A tenant's answers bill what their attempt reserved (at the least), so that its envelope is what stops it.
  const usage = s.tenant
    ? { inputTokens: leastReservation(s) - TENANT_OUTPUT_BOUND, outputTokens: TENANT_OUTPUT_BOUND }
    : undefined;
  const models = s.chain.map((b) => {
    // A dead backend of its own per case: with fleet health on, one case's failures must not open another's.
    if (b.kind === 'dead') return `${deadProvider(s)}:${fx.model('nothing-listens').id}`;
    if (b.kind === 'unknown') return 'nope:no-such-provider';
    const m = { id: (s.prefill ? nextPrefillModel() : undefined) ?? fx.model('sc').id };
    const steps = b.faults.map((f) => stepOf(f, m.id, s.stream, continues, usage));
    // The last step repeats, so the provider never runs out (the plan bounds the attempts). Neighbours share the
    // script: which step a request gets depends on the order of arrival, and each request says which it got.
    const last = steps.length - 1;
    fx.lp.script(
      m.id,
      steps.map((step, i) => (i === last ? { ...step, repeat: true } : step)),
    );
    return `${loopbackProvider(s)}:${m.id}`;
  });
  // A case with a second worker runs on the pair's queue; a case whose worker is killed alone gets a worker of
  // its own (a kill on the pair's queue replaces the pair's in-process worker).
  const pair = s.secondWorker ? await workers.pair() : undefined;
  let own = s.kill && pair === undefined ? await workers.start() : undefined;
  const taskQueue = own?.taskQueue ?? pair?.queue ?? workers.shared.taskQueue;

  // A fresh tenant per case: its ledger starts empty, and the case's calls share it.
  const tenant = s.tenant ? { ...s.tenant, name: nextTenant(s.tenant.maxTotalTokens) } : undefined;
  const run: Scenario = tenant ? { ...s, tenant } : s;
  const main = await startCall(fx, withoutNeighbours(run), models, taskQueue);
  const neighbours = (s.neighbours ?? []).map(async (n) => {
    await sleep(n.startMs);
    return startCall(
      fx,
      neighbourScenario(run, n),
      n.chain.map((i) => models[i] as string),
      taskQueue,
    );
  });

  let mainClosed = false;
  void main.closed.then(() => {
    mainClosed = true;
  });
  let killed = false;
  const killing = s.kill
    ? at(
        'request' in s.kill
          ? { at: 'request', request: s.kill.request, plusMs: s.kill.plusMs ?? 0 }
          : { at: 'check', check: s.kill.check },
        main.requests,
        () => mainClosed,
        main.checks,
      ).then(async (reached) => {
        if (!reached) return;
        killed = true;
        await (own ?? pair?.worker)?.stop();
        const next = await workers.start(taskQueue);
        if (own !== undefined) own = next;
        else if (pair !== undefined) pair.worker = next;
      })
    : Promise.resolve();

  const calls: RunningCall[] = [main, ...(await Promise.all(neighbours))];
  await Promise.all(calls.map((c) => c.closed));
  await killing;
  const evidence: Evidence[] = [];
  for (const c of calls) evidence.push(await c.finish(killed));
  if (own !== undefined) await own.stop();
  // The ledger runs until stopped: the case is over, and its tenant is never used again.
  if (tenant?.name !== undefined)
    await fx.temporal.client.workflow
      .getHandle(tenantLedgerId(tenant.name))
      .terminate('scenario over')
      .catch(() => undefined);
  return { scenario: run, models, calls: evidence };
}

function withoutNeighbours(s: Scenario): Scenario {
  const { neighbours: _n, ...rest } = s;
  return rest;
}

/** A neighbour as a scenario of its own: its backends, plan, stream, cancel and budget; the main call's fleet. */
function neighbourScenario(s: Scenario, n: Neighbour): Scenario {
  const chain = n.chain.map((i) => s.chain[i]).filter((b) => b !== undefined);
  return {
    chain,
    plan: n.plan,
    stream: n.stream,
    ...(n.onCut ? { onCut: n.onCut } : {}),
    ...(n.stream !== s.stream ? { scriptsStream: s.stream } : {}),
    ...(n.cancel ? { cancel: n.cancel } : {}),
    ...(n.budget ? { budget: n.budget } : {}),
    ...(s.health ? { health: s.health } : {}),
    ...(s.limits ? { limits: s.limits } : {}),
    ...(s.secondWorker ? { secondWorker: s.secondWorker } : {}),
    ...(s.tenant ? { tenant: s.tenant } : {}),
    // The main call's kill shuts down the neighbours' worker too: their attempts in flight may be WorkerLost.
    ...(s.kill ? { kill: s.kill } : {}),
  };
}
