import fc from 'fast-check';
import { IMAGE_TOKENS } from '../../common/token-estimate.js';
import { GENEROUS_ENVELOPE, TIGHT_ENVELOPES, envelopeFor } from './tenants.js';
import type {
  Backend,
  ContinueMode,
  Fault,
  Moment,
  Neighbour,
  PlanShape,
  RetryAfter,
  Scenario,
} from './scenario.js';

/**
 * fast-check generators of scenarios. Weights keep most cases cheap (waits of tens of ms, fast faults) and make
 * the expensive ones rare: a hang costs the attempt timeout, a worker shutdown a restart.
 */

const retryAfter: fc.Arbitrary<RetryAfter> = fc.oneof(
  fc.record({ form: fc.constant('ms' as const), ms: fc.integer({ min: 0, max: 600 }) }),
  fc.record({ form: fc.constant('seconds' as const), seconds: fc.constantFrom(0, 1) }),
  fc.record({ form: fc.constant('date' as const), offsetSeconds: fc.constantFrom(-30, 1) }),
);

const delay = fc.oneof({ weight: 4, arbitrary: fc.constant(0) }, fc.integer({ min: 1, max: 400 }));

const status: fc.Arbitrary<Fault> = fc
  .record(
    {
      status: fc.constantFrom(400, 401, 403, 404, 408, 413, 422, 429, 429, 500, 502, 503, 503, 529),
      delayMs: delay,
      retryAfter,
      quota: fc.boolean(),
      shouldRetry: fc.boolean(),
    },
    { requiredKeys: ['status', 'delayMs'] },
  )
  .map((f) => {
    const out: Fault = { kind: 'status', status: f.status, delayMs: f.delayMs };
    // A retry-after only where providers send one (429, 503), a quota only on a 429.
    if (f.retryAfter !== undefined && (f.status === 429 || f.status === 503)) out.retryAfter = f.retryAfter;
    if (f.quota === true && f.status === 429) out.quota = true;
    if (f.shouldRetry !== undefined) out.shouldRetry = f.shouldRetry;
    return out;
  });

export const fault: fc.Arbitrary<Fault> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('ok' as const), delayMs: delay }) },
  { weight: 8, arbitrary: status },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('drop' as const), delayMs: delay }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'cut' as const }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('stream-cut' as const),
      chunks: fc.integer({ min: 0, max: 3 }),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'clean-cut' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'empty-length' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'malformed' as const }) },
  // Slower than any generated attempt timeout: a ResponseTimeout.
  { weight: 1, arbitrary: fc.constant({ kind: 'ok' as const, delayMs: 2500 }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'hang' as const }) },
);

export const backend: fc.Arbitrary<Backend> = fc.oneof(
  {
    weight: 12,
    arbitrary: fc.record({
      kind: fc.constant('loopback' as const),
      faults: fc.array(fault, { minLength: 1, maxLength: 4 }),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'dead' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'unknown' as const }) },
);

const actionOverride = fc.constantFrom<Record<string, string>>(
  { RateLimited: 'retry-same' },
  { ServerError: 'advance' },
  { ParseFailed: 'retry-same' },
  { BadRequest: 'advance' },
);

export const plan: fc.Arbitrary<PlanShape> = fc.oneof(
  { weight: 1, arbitrary: fc.constant(false as const) },
  {
    weight: 8,
    arbitrary: fc
      .record(
        {
          schedule: fc.oneof(
            {
              weight: 3,
              arbitrary: fc.record({
                waits: fc.array(fc.integer({ min: 0, max: 300 }), { minLength: 1, maxLength: 3 }),
              }),
            },
            {
              weight: 1,
              arbitrary: fc.record({
                backoff: fc.record({
                  initialMs: fc.integer({ min: 0, max: 150 }),
                  factor: fc.constantFrom(1, 1.5, 2, 3),
                  maxMs: fc.constant(300),
                  jitterMs: fc.constantFrom(0, 50),
                }),
              }),
            },
          ),
          maxAttempts: fc.integer({ min: 1, max: 7 }),
          deadline: fc.record({
            inMs: fc.integer({ min: 2500, max: 7000 }),
            reserveMs: fc.integer({ min: 0, max: 600 }),
            minAttemptMs: fc.integer({ min: 100, max: 600 }),
          }),
          attemptTimeoutMs: fc.integer({ min: 1000, max: 2000 }),
          retryAfterMaxMs: fc.constantFrom(300, 1500),
          retriesPerBackend: fc.integer({ min: 0, max: 3 }),
          actions: actionOverride,
        },
        { requiredKeys: ['schedule', 'maxAttempts', 'attemptTimeoutMs'] },
      )
      .map(({ schedule, ...rest }) => ({ ...schedule, ...rest })),
  },
);

const moment: fc.Arbitrary<Moment> = fc.oneof(
  fc.record({
    at: fc.constant('request' as const),
    request: fc.integer({ min: 1, max: 3 }),
    plusMs: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 400 })),
  }),
  fc.record({ at: fc.constant('time' as const), ms: fc.integer({ min: 0, max: 1500 }) }),
);

/** Per-worker limits: a slot per worker (`maxInFlight`), a fleet-wide rate (`requestsPerSecond`), or both. */
const limits: fc.Arbitrary<NonNullable<Scenario['limits']>> = fc.constantFrom(
  { maxInFlight: 1 as const },
  { requestsPerSecond: 5 as const },
  { maxInFlight: 1 as const, requestsPerSecond: 5 as const },
);

const HANG_FREE: Fault = { kind: 'status', status: 503, delayMs: 0 };

const budget = fc.record({ maxTotalTokens: fc.integer({ min: 0, max: 120 }) });

/** How a continuation answers: mostly the exact rest, sometimes one of the ways a model bends it. */
const continueMode: fc.Arbitrary<ContinueMode> = fc.oneof(
  { weight: 4, arbitrary: fc.constant('exact' as const) },
  {
    weight: 1,
    arbitrary: fc.constantFrom<ContinueMode>('repeat-little', 'repeat-lot', 'restart', 'preamble', 'nothing'),
  },
);

/** A neighbour call; its chain's indexes are taken modulo the main chain's length (and made unique) below. */
const neighbour: fc.Arbitrary<Neighbour> = fc
  .record({
    chain: fc.array(fc.nat(2), { minLength: 1, maxLength: 3 }),
    plan,
    stream: fc.boolean(),
    continues: fc.boolean(),
    startMs: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 300 })),
    // As often as the main call's: a cancel in 1 case of 4, a budget in 1 of 5.
    cancel: fc.option(moment, { freq: 3, nil: undefined }),
    budget: fc.option(budget, { freq: 4, nil: undefined }),
  })
  .map(({ cancel, budget: b, continues, ...n }) => ({
    ...n,
    // A streamed neighbour with a plan of more than one attempt continues cut streams in one case of two.
    ...(n.stream && continues && n.plan !== false && n.plan.maxAttempts > 1
      ? { onCut: 'continue' as const }
      : {}),
    ...(cancel !== undefined ? { cancel } : {}),
    ...(b !== undefined ? { budget: b } : {}),
  }));

/** The fault a continuing case begins with: a cut, or a stall, after some words. */
function leadFault(lead: { chunks: number; stall: boolean }): Fault {
  return { kind: lead.stall ? 'stall' : 'stream-cut', chunks: lead.chunks };
}

/** The neighbour as it runs beside `chain`: backends of that chain, and no plan-less call on a backend that hangs. */
function fitNeighbour(n: Neighbour, chain: Backend[]): Neighbour {
  const indexes = [...new Set(n.chain.map((i) => i % chain.length))];
  const hangs = indexes.some((i) => {
    const b = chain[i];
    return b?.kind === 'loopback' && b.faults.some((f) => f.kind === 'hang');
  });
  // Without a plan the attempt timeout is the default 300 s (see below).
  const plan: PlanShape = n.plan === false && hangs ? { maxAttempts: 1, attemptTimeoutMs: 1500 } : n.plan;
  return { ...n, chain: indexes, plan };
}

export const scenario: fc.Arbitrary<Scenario> = fc
  .record(
    {
      chain: fc.array(backend, { minLength: 1, maxLength: 3 }),
      plan,
      stream: fc.boolean(),
      // A streamed call continues cut streams in two cases of three; its scripts answer continuations.
      onCut: fc.oneof(
        { weight: 2, arbitrary: fc.constant(true) },
        { weight: 1, arbitrary: fc.constant(false) },
      ),
      continueMode,
      prefill: fc.oneof(
        { weight: 2, arbitrary: fc.constant(false) },
        { weight: 1, arbitrary: fc.constant(true) },
      ),
      wide: fc.oneof(
        { weight: 3, arbitrary: fc.constant(false) },
        { weight: 1, arbitrary: fc.constant(true) },
      ),
      // Under `continue`, a case in two begins with a stream cut after some words on its first loopback backend (a
      // cut is otherwise one fault in twenty): the continuation is what these cases are about.
      // One lead cut in three is a stall past the attempt's timeout instead (a ResponseTimeout after delivering).
      leadCut: fc.oneof(
        { weight: 1, arbitrary: fc.constant(undefined) },
        {
          weight: 1,
          arbitrary: fc.record({
            chunks: fc.integer({ min: 1, max: 3 }),
            stall: fc.oneof(
              { weight: 2, arbitrary: fc.constant(false) },
              { weight: 1, arbitrary: fc.constant(true) },
            ),
          }),
        },
      ),
      cancel: fc.oneof({ weight: 3, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: moment }),
      kill: fc.oneof(
        { weight: 7, arbitrary: fc.constant(undefined) },
        { weight: 1, arbitrary: fc.record({ request: fc.integer({ min: 1, max: 2 }) }) },
      ),
      // Under `continue`, a kill lands a little after its request arrived, so that it often cuts a stream that
      // has delivered part of its text (a streamed answer there takes about 150 ms: see `scripts.ts`).
      killPlusMs: fc.oneof(fc.constant(0), fc.integer({ min: 20, max: 160 })),
      // Small enough that the worst case of an attempt (about 13 input tokens plus the largest output seen) or a
      // billed failure (an empty answer reports its usage) can pass it within a few attempts.
      budget: fc.oneof({ weight: 4, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: budget }),
      health: fc.oneof(
        { weight: 2, arbitrary: fc.constant(false) },
        { weight: 1, arbitrary: fc.constant(true) },
      ),
      limits: fc.oneof({ weight: 3, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: limits }),
      secondWorker: fc.oneof(
        { weight: 4, arbitrary: fc.constant(false) },
        { weight: 1, arbitrary: fc.constant(true) },
      ),
      // A case in three runs one or two calls beside the main one, on its workers and backends; half of those
      // also share one maxInFlight slot per worker and one breaker per backend (else few would: see below).
      neighbours: fc.oneof(
        { weight: 2, arbitrary: fc.constant([]) },
        { weight: 1, arbitrary: fc.array(neighbour, { minLength: 1, maxLength: 2 }) },
      ),
      shareFleet: fc.boolean(),
      parts: fc.oneof(
        { weight: 2, arbitrary: fc.constant(false) },
        { weight: 1, arbitrary: fc.constant(true) },
      ),
      // A case in five makes the moments before an attempt slow, and then mostly cancels the call or kills its
      // worker while one of them runs (a check the call never reaches is a moment that never comes).
      slowChecks: fc.oneof(
        { weight: 4, arbitrary: fc.constant(undefined) },
        { weight: 1, arbitrary: fc.integer({ min: 150, max: 500 }) },
      ),
      // A case in two draws a tenant, run for it only when no call of the case has a budget (see below): about a
      // case in five, under an envelope drawn tight (room for an attempt or a few) or generous.
      tenant: fc.oneof(
        { weight: 1, arbitrary: fc.constant(undefined) },
        { weight: 1, arbitrary: fc.constantFrom(...TIGHT_ENVELOPES, GENEROUS_ENVELOPE) },
      ),
      duringCheck: fc.oneof(
        { weight: 1, arbitrary: fc.constant(undefined) },
        {
          weight: 3,
          arbitrary: fc.record({
            what: fc.constantFrom('cancel' as const, 'kill' as const),
            check: fc.integer({ min: 1, max: 3 }),
          }),
        },
      ),
    },
    { requiredKeys: ['chain', 'plan', 'stream'] },
  )
  .map((s) => {
    // Without a plan the attempt timeout is the default 300 s: a hang there would only measure patience.
    const chain =
      s.plan === false
        ? s.chain.map((b) =>
            b.kind === 'loopback'
              ? { ...b, faults: b.faults.map((f) => (f.kind === 'hang' ? HANG_FREE : f)) }
              : b,
          )
        : s.chain;
    // `onCut: 'continue'` needs a plan of more than one attempt (refused before start otherwise).
    const continues = s.stream && s.onCut === true && s.plan !== false && s.plan.maxAttempts > 1;
    const first = chain.findIndex((b) => b.kind === 'loopback');
    const cutFirst = continues && s.leadCut !== undefined && first !== -1;
    const cutChain = cutFirst
      ? chain.map((b, i) =>
          i === first && b.kind === 'loopback'
            ? { ...b, faults: [leadFault(s.leadCut as { chunks: number; stall: boolean }), ...b.faults] }
            : b,
        )
      : chain;
    const out: Scenario = { chain: cutChain, plan: s.plan, stream: s.stream };
    if (continues) out.onCut = 'continue';
    if (s.cancel !== undefined) out.cancel = s.cancel;
    if (s.kill !== undefined && s.cancel === undefined)
      out.kill = continues && s.killPlusMs ? { ...s.kill, plusMs: s.killPlusMs } : s.kill;
    if (s.slowChecks !== undefined) {
      out.slowChecks = s.slowChecks;
      if (s.duringCheck?.what === 'cancel') {
        out.cancel = { at: 'check', check: s.duringCheck.check };
        delete out.kill;
      } else if (s.duringCheck?.what === 'kill') {
        out.kill = { check: s.duringCheck.check };
        delete out.cancel;
      }
      // Past the first check (the worker config ask), the checks are cooling checks: attempts on a limit queue
      // (a rate limit's) of a backend under fleet health.
      if ((s.duringCheck?.check ?? 1) > 1) {
        out.health = true;
        out.limits = { ...(out.limits ?? s.limits), requestsPerSecond: 5 };
      }
    }
    if (s.parts === true) out.parts = true;
    // An image counts a fixed number of input tokens: the budget grows by it, so that it still meets the outputs.
    if (s.budget !== undefined)
      out.budget =
        s.parts === true ? { maxTotalTokens: s.budget.maxTotalTokens + IMAGE_TOKENS + 20 } : s.budget;
    if (s.health === true) out.health = true;
    if (s.limits !== undefined) out.limits = s.limits;
    if (s.secondWorker === true) out.secondWorker = true;
    if (s.neighbours !== undefined && s.neighbours.length > 0) {
      out.neighbours = s.neighbours.map((n) => fitNeighbour(n, cutChain));
      // Health in 1 case of 3 and a slot limit in 1 of 6 would seldom meet neighbours: shared ones are the point.
      if (s.shareFleet === true) {
        out.health = true;
        out.limits = { ...s.limits, maxInFlight: 1 };
      }
    }
    // A tenant's calls bound their output, which a budget's worst case would then count otherwise than the budget
    // oracle does: a case runs for a tenant only when none of its calls has a budget.
    const budgeted = out.budget !== undefined || (out.neighbours ?? []).some((n) => n.budget !== undefined);
    if (s.tenant !== undefined && !budgeted)
      out.tenant = { maxTotalTokens: envelopeFor(s.tenant, s.parts === true) };
    // The mode of the scripts' continuations, when a call of the case continues cut streams.
    const anyContinues = continues || (out.neighbours ?? []).some((n) => n.onCut === 'continue');
    if (anyContinues && s.continueMode !== undefined && s.continueMode !== 'exact')
      out.continueMode = s.continueMode;
    // A case in three asks its continuations with a prefill.
    if (anyContinues && s.prefill === true) out.prefill = true;
    // A case in four continues a text of wide characters (not with a mode that repeats UTF-16 units).
    if (anyContinues && s.wide === true && !(out.continueMode ?? '').startsWith('repeat')) out.wide = true;
    return out;
  });
