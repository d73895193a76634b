import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAgentTurn } from '../../client/agent-turn-client.js';
import { startModelCall } from '../../client/model-call-client.js';
import type { ModelCallInput } from '../../common/call.js';
import { TENANT_QUERY, tenantLedgerId } from '../../common/tenants.js';
import type { TenantSnapshot, TenantsConfig } from '../../common/tenants.js';
import { ok } from '../../loopback/index.js';
import { attemptsQuery } from '../../common/queries.js';
import { finishTurn } from '../harness/agent-turn.js';
import { settle } from '../harness/settle.js';
import { useFixture } from '../harness/fixture.js';
import { finishCall, loopbackProviders } from '../harness/model-call.js';
import type { CallRun } from '../harness/model-call.js';
import type { TestWorker } from '../harness/temporal.js';

/**
 * Tenant envelopes on the dev server: each attempt of a tenant's call reserves its bound (the prompt `abcd` is one
 * token by the estimate, plus `maxOutputTokens` 999: 1,000 tokens) against a lease from the tenant's ledger before
 * it is sent, and bills what the loopback answers (1 + 999 tokens: what it reserved). The attempt that does not fit
 * is not sent: the call stops `budget`, its message naming the envelope and when it renews.
 */
describe("a tenant's envelope across calls", () => {
  const { fx } = useFixture({ worker: false });
  const tag = randomUUID().slice(0, 8);
  const t = (name: string) => `${name}-${tag}`;
  const BILLED = { usage: { inputTokens: 1, outputTokens: 999 } };
  const tenants: TenantsConfig = {
    [t('acme')]: { maxTotalTokens: 3_000, period: 'day' },
    [t('one')]: { maxTotalTokens: 2_000, period: 'day' },
    [t('two')]: { maxTotalTokens: 2_000, period: 'day' },
    [t('agent')]: { maxTotalTokens: 2_000, period: 'day' },
    [t('priced')]: { maxCostUsd: 2.5, period: 'month' },
    [t('wide')]: { maxTotalTokens: 100_000, period: 'day' },
    '*': { maxTotalTokens: 1_000, period: 'day' },
  };
  // Models with a price ($1,000 per million tokens either way: 1,000 tokens cost $1), one a call (the harness
  // matches each call's records to the requests its models got), and one without an output bound.
  const priced = [1, 2, 3].map((i) => `priced-${tag}-${i}`);
  const pricedWide = [1, 2, 3].map((i) => `wide-${tag}-${i}`);
  const unbounded = `unbounded-${tag}`;
  let n = 0;
  /** A model of its own for one call, answering with the usage its attempt reserved. */
  const fresh = (name: string): string => {
    const model = `${name}-${tag}-${++n}`;
    fx.lp.script(model, [{ ...ok('fits', BILLED), repeat: true }]);
    return model;
  };
  let worker: TestWorker;
  const ledgers = new Set<string>();

  beforeAll(async () => {
    const providers = loopbackProviders(fx.lp, {
      local: {
        models: Object.fromEntries(
          [...priced, ...pricedWide].map((m) => [
            m,
            { pricing: { inputPerMTok: 1_000, outputPerMTok: 1_000 } },
          ]),
        ),
      },
    });
    worker = await fx.temporal.startWorker({ deps: { providers, tenants } });
  });
  afterAll(async () => {
    for (const id of ledgers) await fx.temporal.client.workflow.getHandle(id).terminate('test over');
    await worker?.stop();
  });

  const input = (model: string, tenant: string): ModelCallInput => ({
    model: `local:${model}`,
    prompt: 'abcd',
    settings: { maxOutputTokens: 999 },
    retry: { maxAttempts: 3, waits: [10] },
    tenant,
  });
  const call = async (model: string, tenant: string): Promise<CallRun> => {
    ledgers.add(tenantLedgerId(tenant));
    return finishCall(fx, await startModelCall(fx.temporal.client, input(model, tenant), worker));
  };
  const ledger = (tenant: string) =>
    fx.temporal.client.workflow.getHandle(tenantLedgerId(tenant)).query<TenantSnapshot>(TENANT_QUERY);
  /** The next midnight UTC, as the refusal names it. */
  const nextDay = () => {
    const now = new Date();
    return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1)).toISOString();
  };
  /** The call was refused for its envelope on its first attempt, sent nothing, and stopped `budget`. */
  const expectRefused = (run: CallRun, model: string) => {
    expect(run.result).toBeUndefined();
    expect(run.details?.stopReason).toBe('budget');
    expect(run.records).toHaveLength(1);
    expect(run.records[0]?.failure).toMatchObject({ class: 'QuotaExhausted', code: 'tenant-envelope' });
    expect(fx.lp.requestCount(model)).toBe(0);
    return run.records[0]?.failure?.message ?? '';
  };

  it('stops a tenant at its envelope: the call that would pass it is not sent and stops `budget`', async () => {
    const tenant = t('acme');
    const fitting = [];
    for (let i = 0; i < 3; i++) fitting.push(await call(fresh('acme'), tenant));
    expect(fitting.map((r) => r.result?.output.text)).toEqual(['fits', 'fits', 'fits']);
    const seen = await ledger(tenant);
    expect(seen.envelope).toEqual({ maxTotalTokens: 3_000, period: 'day' });
    expect(seen.spent.tokens + seen.held.tokens).toBeLessThanOrEqual(3_000);

    const last = fresh('acme');
    const message = expectRefused(await call(last, tenant), last);
    expect(message).toContain(`tenant ${tenant}'s envelope (maxTotalTokens 3000 per day (UTC))`);
    expect(message).toContain('this attempt reserves up to 1000 tokens');
    expect(message).toContain(`it renews at ${nextDay()}`);
    const after = await ledger(tenant);
    expect(after.spent.tokens + after.held.tokens).toBeLessThanOrEqual(3_000);
    expect(after.spent.tokens).toBe(3_000);
    expect(after.renewsAt).toBe(Date.parse(nextDay()));
  });

  it("keeps two tenants' envelopes apart: one spent does not stop the other", async () => {
    for (let i = 0; i < 2; i++) expect((await call(fresh('one'), t('one'))).result?.output.text).toBe('fits');
    const last = fresh('one');
    expect(expectRefused(await call(last, t('one')), last)).toContain(`tenant ${t('one')}'s envelope`);
    for (let i = 0; i < 2; i++) expect((await call(fresh('two'), t('two'))).result?.output.text).toBe('fits');
  });

  it('holds a tenant the file does not name to the `*` envelope, in a ledger of its own', async () => {
    const tenant = t('stranger');
    expect((await call(fresh('star'), tenant)).result?.output.text).toBe('fits');
    const last = fresh('star');
    const message = expectRefused(await call(last, tenant), last);
    expect(message).toContain(`tenant ${tenant}'s envelope (maxTotalTokens 1000 per day (UTC))`);
    expect((await ledger(tenant)).envelope).toEqual({ maxTotalTokens: 1_000, period: 'day' });
  });

  it('refuses at start a call with no output bound to reserve, naming `settings.maxOutputTokens`, sending nothing', async () => {
    fx.lp.script(unbounded, [{ ...ok('never', BILLED), repeat: true }]);
    const { settings: _bound, ...unboundedInput } = input(unbounded, t('acme'));
    const handle = await startModelCall(fx.temporal.client, unboundedInput, worker);
    const { failure } = await settle(handle);
    expect(await handle.query(attemptsQuery)).toEqual([]);
    expect(failure?.message).toContain('`settings.maxOutputTokens`');
    expect(failure?.message).toContain(`${unbounded} has none`);
    expect(fx.lp.requestCount(unbounded)).toBe(0);
  });

  it('a token envelope leases by tokens alone: priced calls reserve against one lease, not one lease each', async () => {
    const tenant = t('wide');
    for (const model of pricedWide) {
      fx.lp.script(model, [{ ...ok('fits', BILLED), repeat: true }]);
      expect((await call(model, tenant)).result?.output.text).toBe('fits');
    }
    // Each call reserves 1,000 tokens ($1 at its price); the lease holds 5,000 tokens. A cost the envelope does not
    // limit must not make each call's lease too small for the next.
    const events =
      (await fx.temporal.client.workflow.getHandle(tenantLedgerId(tenant)).fetchHistory()).events ?? [];
    expect(events.filter((e) => e.workflowExecutionUpdateAcceptedEventAttributes).length).toBe(1);
  });

  it("counts an agent turn's model calls in the same envelope as the tenant's calls", async () => {
    const tenant = t('agent');
    ledgers.add(tenantLedgerId(tenant));
    const turn = (model: string) =>
      startAgentTurn(
        fx.temporal.client,
        { model: `local:${model}`, prompt: 'abcd', settings: { maxOutputTokens: 999 }, tenant },
        { taskQueue: worker.taskQueue },
      ).then((h) => finishTurn(fx, h));
    expect((await turn(fresh('agent'))).result?.text).toBe('fits');
    expect((await call(fresh('agent'), tenant)).result?.output.text).toBe('fits');
    const last = fresh('agent');
    const stopped = await turn(last);
    // A turn whose call stops `budget` completes so, like one stopped by its own budget, saying why.
    expect(stopped.result?.stopReason).toBe('budget');
    expect(stopped.result?.why).toContain(`tenant ${tenant}'s envelope (maxTotalTokens 2000 per day (UTC))`);
    expect(stopped.records.map((r) => r.failure?.code)).toEqual(['tenant-envelope']);
    expect(fx.lp.requestCount(last)).toBe(0);
    const seen = await ledger(tenant);
    expect(seen.spent.tokens + seen.held.tokens).toBeLessThanOrEqual(2_000);
  });

  it("holds a cost envelope, pricing each attempt's reservation by the providers file", async () => {
    const tenant = t('priced');
    for (const m of priced) fx.lp.script(m, [{ ...ok('fits', BILLED), repeat: true }]);
    for (const m of priced.slice(0, 2)) expect((await call(m, tenant)).result?.output.text).toBe('fits');
    const message = expectRefused(await call(priced[2] ?? '', tenant), priced[2] ?? '');
    expect(message).toContain(`tenant ${tenant}'s envelope (maxCostUsd 2.5 per month (UTC))`);
    expect(message).toContain('this attempt reserves up to $1.00');
    const now = new Date();
    const nextMonth = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString();
    expect(message).toContain(`it renews at ${nextMonth}`);
    const seen = await ledger(tenant);
    expect(seen.spent.costUsd + seen.held.costUsd).toBeLessThanOrEqual(2.5);
  });
});
