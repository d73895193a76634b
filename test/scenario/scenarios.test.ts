import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { formatHistory } from '../../client/history-format.js';
import { modelCallFixture, TEST_SECRETS } from '../harness/model-call.js';
import { startWorkerProcess } from '../harness/processes.js';
import type { WorkerProcess } from '../harness/processes.js';
import type { ModelCallFixture } from '../harness/model-call.js';
import { replayAll } from '../harness/replay.js';
import { scenario } from './arbitraries.js';
import { attemptWorkers, checkFleet } from './fleet-invariants.js';
import { checkInvariants } from './invariants.js';
import { REGRESSIONS } from './regressions.js';
import { SCENARIO_KEY_ENV, scenarioRegistry, writeScenarioProvidersFile } from './fleet.js';
import { runScenario } from './run-scenario.js';
import type { PairWorkers, ScenarioWorkers } from './run-scenario.js';
import { describeScenario } from './scenario.js';
import { slowChecksPlugin } from './slow-checks.js';
import { scenarioTenants, writeScenarioTenantsFile } from './tenants.js';
import { TENANTS_FILE_ENV } from '../../activities/tenants/config.js';
import type { Scenario } from './scenario.js';
import type { AttemptRecord } from '../../common/call.js';
import type { Violation } from './stop-oracle.js';

/**
 * The randomized scenario suite: fast-check generates fault scripts, plans, chains, cancellations and worker
 * shutdowns (also while a slow local activity runs before an attempt), fleet health on or off, per-worker limits
 * and sometimes a second worker (a `model-retry worker` process) on the call's task queue; each case runs
 * `modelCallWorkflow` (and `callModel` inside it) on the real dev server
 * against the loopback provider, and every invariant is checked on what the run left behind. A case in three runs
 * one or two neighbour calls beside the main one (same workers, same backends); every call's invariants are
 * checked, and the fleet's across them (`fleet-invariants.ts`). Half the streamed calls continue cut streams
 * (`onCut: 'continue'`, their backends answering continuations, sometimes as a model that bends them): what
 * subscribers read is then checked against the answer, each character once (`delivery.ts`).
 *
 * `SCENARIO_SEED` replays a run; `SCENARIO_RUNS` sets the number of cases (default 30, about two minutes here);
 * `SCENARIO_PATH` replays one case of a seed, as printed (the regression cases of `regressions.ts` come first);
 * `SCENARIO_JSON` runs one scenario given as JSON; `SCENARIO_VERBOSE=1` prints a failing case's history and every
 * case's attempts (with `SCENARIO_HISTORY=1` every call's history too);
 * `SCENARIO_SHRINK=1` stops at the first failing case and shrinks it.
 */
const seed = Number(process.env.SCENARIO_SEED ?? Math.floor(Math.random() * 2 ** 31));
const numRuns = Number(process.env.SCENARIO_RUNS ?? 30);
const path = process.env.SCENARIO_PATH;
const shrink = process.env.SCENARIO_SHRINK === '1';
const verbose = process.env.SCENARIO_VERBOSE === '1';
/** One scenario as JSON (as a failing case prints it): runs only that one, e.g. after editing it by hand. */
const only = process.env.SCENARIO_JSON;

interface Failed {
  index: number;
  scenario: Scenario;
  workflowId: string;
  violations: Violation[];
  /** The run's history, one line per event (printed with `SCENARIO_VERBOSE=1`). */
  history: string[];
}

describe('randomized scenarios against the real workflow, dev server and loopback provider', () => {
  let fx: ModelCallFixture;
  let workers: ScenarioWorkers;
  let dir: string | undefined;
  let pair: Promise<PairWorkers & { process: WorkerProcess }> | undefined;
  beforeAll(async () => {
    fx = await modelCallFixture();
    // Every worker has the suite's tenants file: a case for a tenant is held to its envelope on any of them.
    const deps = { providers: scenarioRegistry(fx.lp, TEST_SECRETS.apiKey), tenants: scenarioTenants() };
    // Each in-process worker has its own activities (its own maxInFlight slots and fleet-health copy), like a
    // process of its own: an identity each lets the fleet invariants tell them apart in history.
    let started = 0;
    const identity = (what: string) => `scenario-${what}-${++started}@${process.pid}`;
    // Every in-process worker can make a case's local activities slow (`slowChecks`).
    const plugins = [slowChecksPlugin];
    const shared = await fx.temporal.startWorker({ deps, plugins, identity: identity('shared') });
    const scenarioDir = mkdtempSync(join(tmpdir(), 'model-retry-scenarios-'));
    dir = scenarioDir;
    workers = {
      deps,
      shared,
      start: (taskQueue) =>
        fx.temporal.startWorker({
          deps,
          plugins,
          shutdownGraceMs: 0,
          identity: identity('own'),
          ...(taskQueue !== undefined ? { taskQueue } : {}),
        }),
      pair: async () => {
        pair ??= (async () => {
          const worker = await fx.temporal.startWorker({
            deps,
            plugins,
            shutdownGraceMs: 0,
            identity: identity('pair'),
          });
          const process = await startWorkerProcess({
            address: inject('temporalAddress'),
            taskQueue: worker.taskQueue,
            providersFile: writeScenarioProvidersFile(fx.lp, scenarioDir),
            env: {
              [SCENARIO_KEY_ENV]: TEST_SECRETS.apiKey,
              TEMPORAL_NAMESPACE: inject('temporalNamespace'),
              [TENANTS_FILE_ENV]: writeScenarioTenantsFile(scenarioDir),
            },
          });
          return { queue: worker.taskQueue, worker, process };
        })();
        return pair;
      },
    };
    // Started now in the background (it bundles the workflows): the first case that needs it rarely waits. A
    // failure to start is reported by the case that asks for it.
    workers.pair().catch(() => undefined);
  });
  afterAll(async () => {
    if (fx) await replayAll(fx.histories);
    const started = await pair?.catch(() => undefined);
    await started?.process.stop();
    await fx?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it(
    `keeps every invariant (seed ${seed}, ${numRuns} cases)`,
    async () => {
      console.log(
        `scenario suite: seed ${seed}, ${numRuns} cases; replay: SCENARIO_SEED=${seed} npm run test:scenarios`,
      );
      const failed: Failed[] = [];
      let index = path !== undefined ? Number(path.split(':')[0]) : 0;
      const property = fc.asyncProperty(scenario, async (s) => {
        const at = index++;
        const began = Date.now();
        const group = await runScenario(fx, workers, s);
        // Every call's own invariants (a neighbour's named by its place), then the fleet's across them.
        const violations = [
          ...group.calls.flatMap((call, i) =>
            checkInvariants(call).map((v) =>
              i === 0 ? v : { ...v, message: `neighbour ${i}: ${v.message}` },
            ),
          ),
          ...checkFleet(group, fx.lp.requests()),
        ];
        const stories = group.calls.map((call) => {
          // An attempt that continued a cut stream is marked `>`, and `>>` when another worker ran it than the
          // one whose text it continued (after a kill): what the case covered.
          const workers = attemptWorkers(call.history);
          const mark = (r: AttemptRecord) => {
            if (r.continues === undefined) return '';
            return workers.get(r.modelCallId) !== workers.get(r.continues) ? '>>' : '>';
          };
          const story = call.records.map((r) => `${mark(r)}${r.failure?.class ?? r.outcome}`).join(' ');
          const acted = [
            call.cancelSent ? 'cancel sent' : '',
            call.killed ? 'worker killed' : '',
            call.scenario.slowChecks !== undefined ? `${call.checks} slow checks` : '',
          ].filter(Boolean);
          return `${call.status} [${story}]${acted.length ? ` (${acted.join(', ')})` : ''}`;
        });
        console.log(
          `case ${at}: ${describeScenario(s)}\n  -> ${stories.join(' | ')} ${violations.length ? 'VIOLATED' : 'ok'} (${Date.now() - began} ms)`,
        );
        if (verbose) {
          for (const call of group.calls) {
            if (process.env.SCENARIO_HISTORY === '1')
              console.log(formatHistory(call.history.events ?? []).join('\n'));
            for (const r of call.records) {
              const failure = r.failure ? `${r.failure.class}: ${r.failure.message}` : '';
              const delivered =
                r.deliveredChars === undefined
                  ? ''
                  : ` delivered ${r.deliveredChars}${r.continues ? ` continuing ${r.continues}` : ''}`;
              console.log(
                `  ${call.workflowId} ${r.modelCallId} ${r.startedAt} .. ${r.endedAt} ${r.outcome}${delivered} ${failure}`,
              );
            }
            for (const item of call.streamItems ?? []) {
              if (item.kind === 'delta')
                console.log(
                  `    delta ${item.offset} ${item.delta.modelCallId} ${JSON.stringify(item.delta.text)}`,
                );
            }
            for (const q of call.requests) {
              const ended = q.endedAt === undefined ? '?' : new Date(q.endedAt).toISOString();
              const id = q.headers['x-request-id'] ?? '';
              const asked = q.continuation
                ? ` continuing ${JSON.stringify(q.continuation.delivered)} (${q.continuation.form})`
                : '';
              const answer = q.answer !== undefined ? ` answered ${JSON.stringify(q.answer)}` : '';
              console.log(
                `    request ${id} ${new Date(q.receivedAt).toISOString()} .. ${ended} ${q.outcome}${asked}${answer}`,
              );
            }
          }
        }
        if (violations.length === 0) return true;
        failed.push({
          index: at,
          scenario: s,
          workflowId: group.calls.map((c) => c.workflowId).join(', '),
          violations,
          history: group.calls.flatMap((c, i) => [
            `-- ${i === 0 ? 'main call' : `neighbour ${i}`} ${c.workflowId}`,
            ...formatHistory(c.history.events ?? []),
          ]),
        });
        // Without shrinking every case runs, so one run shows every failing case; with it, the first one shrinks.
        if (shrink) throw new Error(report([failed.at(-1) as Failed]));
        return true;
      });
      const examples = (only !== undefined ? [JSON.parse(only) as Scenario] : REGRESSIONS).map(
        (x) => [x] as [Scenario],
      );
      const details = await fc.check(property, {
        seed,
        numRuns: only !== undefined ? 1 : numRuns,
        examples,
        ...(path !== undefined ? { path } : {}),
        endOnFailure: !shrink,
      });
      if (details.failed) {
        const shrunk = details.counterexample?.[0] as Scenario | undefined;
        throw new Error(
          `shrunk to: ${shrunk ? describeScenario(shrunk) : '?'}\n${JSON.stringify(shrunk)}\n` +
            `replay: SCENARIO_SEED=${seed} SCENARIO_PATH=${details.counterexamplePath} npm run test:scenarios\n` +
            String(details.errorInstance),
        );
      }
      expect(failed.length === 0 ? 'every invariant held' : report(failed)).toBe('every invariant held');
    },
    numRuns * 30_000 + 60_000,
  );
});

function report(failed: Failed[]): string {
  const known = failed.flatMap((f) => f.violations).filter((v) => v.known !== undefined).length;
  const total = failed.flatMap((f) => f.violations).length;
  const lines = failed.map((f) =>
    [
      shrink
        ? `a shrinking step (${f.workflowId})`
        : `case ${f.index} (${f.workflowId}): replay with SCENARIO_SEED=${seed} SCENARIO_PATH=${f.index} SCENARIO_SHRINK=1`,
      `  ${describeScenario(f.scenario)}`,
      `  ${JSON.stringify(f.scenario)}`,
      ...f.violations.map(
        (v) => `  - [${v.invariant}]${v.known ? ` (known: ${v.known})` : ' NEW'} ${v.message}`,
      ),
      ...(verbose ? f.history.map((line) => `    ${line}`) : []),
    ].join('\n'),
  );
  return `${failed.length} case(s) broke invariants (${known} of ${total} violations are known defects):\n${lines.join('\n')}`;
}
