import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { TENANT_LEASE_UPDATE, tenantLedgerId } from '../../common/tenants.js';
import type { LeaseAnswer, LeaseRequest } from '../../common/tenants.js';
import type { TenantRow } from '../../cli/tenant-rows.js';
import { runCli } from '../harness/cli.js';
import { cliEnv, useFixture } from '../harness/fixture.js';
import { until } from '../harness/until.js';

type Readable = Exclude<TenantRow, { unreadable: string }>;

/**
 * `model-retry tenants` shows, sets and resets the tenant ledgers of the namespace. Each tenant here has a name of
 * its own: ledgers are per namespace, and other files may run theirs on the same server.
 */
describe('model-retry tenants', () => {
  const { fx, env } = useFixture();
  const suffix = randomUUID().slice(0, 8);
  const acme = `acme-${suffix}`;
  const orphan = `orphan-${suffix}`;

  afterAll(async () => {
    // Ledgers run until terminated: end this file's.
    for (const tenant of [acme, orphan]) {
      await fx.temporal.client.workflow
        .getHandle(tenantLedgerId(tenant))
        .terminate('test over')
        .catch(() => undefined);
    }
  });

  const listed = async (tenant: string): Promise<TenantRow | undefined> => {
    const out = await runCli(['tenants', '--json'], env);
    expect(out.code, out.stderr).toBe(0);
    return (JSON.parse(out.stdout) as TenantRow[]).find((r) => r.tenant === tenant);
  };
  const shown = async (tenant: string): Promise<Readable> => {
    const out = await runCli(['tenants', 'show', tenant, '--json'], env);
    expect(out.code, out.stderr).toBe(0);
    return JSON.parse(out.stdout) as Readable;
  };

  it('sets an envelope, lists it, shows a lease holding room, and resets it', async () => {
    const set = await runCli(['tenants', 'set', acme, '--max-total-tokens', '1000', '--period', 'day'], env);
    expect(set.code, set.stderr).toBe(0);
    expect(set.stderr).toContain(`tenant ${acme}'s envelope set to 1000 tokens per day (UTC)`);

    const row = (await until('the ledger in the list', () => listed(acme))) as Readable;
    expect(row).toMatchObject({
      workflowId: tenantLedgerId(acme),
      envelope: { maxTotalTokens: 1000, period: 'day' },
      source: 'set',
      spent: { tokens: 0, costUsd: 0 },
      held: { tokens: 0, costUsd: 0 },
      left: { tokens: 1000 },
      leaseCount: 0,
    });
    const tomorrow = new Date(
      Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), new Date().getUTCDate() + 1),
    );
    expect([tomorrow.toISOString(), new Date(tomorrow.getTime() + 86_400_000).toISOString()]).toContain(
      row.renewsAt,
    );

    // A worker's lease, as the worker asks for it: an Update whose id is the lease's.
    const request: LeaseRequest = {
      worker: 'a test worker',
      wanted: { tokens: 300, costUsd: 0 },
      least: { tokens: 300, costUsd: 0 },
      ttlMs: 60_000,
      envelope: { maxTotalTokens: 2000, period: 'day' },
    };
    const answer = await fx.temporal.client.workflow
      .getHandle(tenantLedgerId(acme))
      .executeUpdate<LeaseAnswer, [LeaseRequest]>(TENANT_LEASE_UPDATE, {
        args: [request],
        updateId: `lease-${suffix}`,
      });
    expect(answer).toMatchObject({ granted: true, lease: { amount: { tokens: 300 } } });

    const leased = await shown(acme);
    expect(leased).toMatchObject({
      held: { tokens: 300 },
      left: { tokens: 700 },
      leaseCount: 1,
      leases: [{ id: `lease-${suffix}`, worker: 'a test worker', amount: { tokens: 300, costUsd: 0 } }],
      // The worker's file said otherwise: reported, and the ledger's envelope holds.
      disagreements: [{ worker: 'a test worker', envelope: { maxTotalTokens: 2000 } }],
      envelope: { maxTotalTokens: 1000 },
    });
    const text = await runCli(['tenants', 'show', acme], env);
    expect(text.stdout).toContain(`${acme}  1000 tokens per day (UTC)  (from \`tenants set\`)`);
    expect(text.stdout).toContain('held by 1 lease(s) 300 tokens; left 700 tokens');
    expect(text.stdout).toContain("worker a test worker's file says 2000 tokens per day (UTC)");

    const reset = await runCli(['tenants', 'reset', acme], env);
    expect(reset.code, reset.stderr).toBe(0);
    expect(await shown(acme)).toMatchObject({
      held: { tokens: 0 },
      left: { tokens: 1000 },
      leaseCount: 0,
      leases: [],
      envelope: { maxTotalTokens: 1000, period: 'day' },
    });
  });

  it('says so, and exits 2, for a tenant with no ledger', async () => {
    const reset = await runCli(['tenants', 'reset', `nobody-${suffix}`], env);
    expect(reset.code).toBe(2);
    expect(reset.stderr).toContain(`no ledger for tenant nobody-${suffix}: nothing to reset`);
    const show = await runCli(['tenants', 'show', `nobody-${suffix}`], env);
    expect(show.code).toBe(2);
  });

  it('lists a ledger no worker answers for, with why, instead of dropping it', async () => {
    const lonely = cliEnv(`no-worker-${suffix}`);
    const set = await runCli(['tenants', 'set', orphan, '--max-cost-usd', '5'], lonely);
    expect(set.code, set.stderr).toBe(0);
    const row = await until('the ledger in the list', () => listed(orphan));
    expect(row).toMatchObject({
      tenant: orphan,
      unreadable: `no answer within 5 s: is a worker running on task queue "no-worker-${suffix}"?`,
    });
    const show = await runCli(['tenants', 'show', orphan], lonely);
    expect(show.code).toBe(1);
    expect(show.stdout).toContain(`${orphan}  could not be read: no answer within 5 s`);
  });

  it('refuses bad flags with exit 2 before connecting, naming the flag', async () => {
    const bad = await runCli(['tenants', 'set', acme, '--max-total-tokens', '1000', '--period', 'week'], env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('`--period` must be "day" or "month" (UTC) (got "week")');
    const misplaced = await runCli(['tenants', '--weight', '2'], env);
    expect(misplaced.code).toBe(2);
    expect(misplaced.stderr).toContain('`--weight` belongs to `tenants set NAME`');
  });
});
