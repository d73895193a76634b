import { WorkflowNotFoundError } from '@temporalio/client';
import type { Client } from '@temporalio/client';
import {
  TENANT_LEDGER_ID_PREFIX,
  TENANT_LEDGER_WORKFLOW_TYPE,
  TENANT_QUERY,
  TENANT_RESET_SIGNAL,
  TENANT_SET_SIGNAL,
  tenantLedgerId,
} from '../common/tenants.js';
import type { TenantEnvelope, TenantLedgerInput, TenantSnapshot } from '../common/tenants.js';
import { resolveTaskQueue } from '../worker/config.js';
import { UsageError, parseCommandArgs } from './args.js';
import { TENANTS_HELP } from './help-tenants.js';
import { messageOf, openSession, say } from './session.js';
import { TENANT_SET_OPTIONS, envelopeFromFlags, tenantName } from './tenant-flags.js';
import { envelopeText, tenantRow, tenantText } from './tenant-rows.js';
import type { TenantRow } from './tenant-rows.js';

/** How long one ledger's query may take: a ledger no worker runs answers nothing, and is shown so. */
const QUERY_TIMEOUT_MS = 5_000;
/** Ledgers queried at once. */
const QUERIES_AT_ONCE = 8;

/**
 * `model-retry tenants [--json]` lists the namespace's tenant ledgers; `tenants show NAME` one of them;
 * `tenants set NAME --max-total-tokens N ...` sets a tenant's envelope over the workers' files (starting its
 * ledger if need be); `tenants reset NAME` forgets its period's spend and leases. Exit 0 done; 1 Temporal
 * unreachable, or the one tenant shown could not be read; 2 bad options, or no ledger for that tenant.
 */
export async function runTenantsCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs('tenants', args, {
    json: { type: 'boolean' },
    'task-queue': { type: 'string' },
    ...TENANT_SET_OPTIONS,
  });
  if (values.help) {
    process.stdout.write(TENANTS_HELP);
    return 0;
  }
  const [verb, ...names] = positionals;
  const setFlags = Object.keys(TENANT_SET_OPTIONS).filter(
    (f) => values[f as keyof typeof values] !== undefined,
  );
  if (verb !== 'set' && setFlags.length > 0) {
    throw new UsageError(`\`--${setFlags[0]}\` belongs to \`tenants set NAME\`.`);
  }
  if (verb !== undefined && !['show', 'set', 'reset'].includes(verb)) {
    throw new UsageError(
      `unknown \`tenants ${verb}\`: use \`model-retry tenants [--json]\`, \`tenants show NAME\`, ` +
        '`tenants set NAME --max-total-tokens N ...` or `tenants reset NAME`.',
    );
  }
  if (verb === undefined && names.length > 0) throw new UsageError('`tenants` alone takes no name.');
  const name = verb === undefined ? undefined : tenantName(verb, names);
  const envelope = verb === 'set' ? envelopeFromFlags(values) : undefined;
  const taskQueue = verb === 'set' ? resolveTaskQueue(values['task-queue']) : undefined;
  const json = values.json === true;

  const session = await openSession();
  try {
    const client = session.client;
    if (name !== undefined && envelope !== undefined && taskQueue !== undefined) {
      return await set(client, name, envelope, taskQueue);
    }
    if (verb === 'reset' && name !== undefined) return await reset(client, name);
    const rows = name === undefined ? await list(client) : await show(client, name);
    if (rows === undefined) {
      say(
        `no running ledger for tenant ${name} (its first attempt under an envelope, or \`tenants set\`, starts one)`,
      );
      return 2;
    }
    if (json) process.stdout.write(`${JSON.stringify(name === undefined ? rows : rows[0])}\n`);
    else if (rows.length === 0) say(`no tenant ledger runs in namespace ${session.namespace}`);
    else process.stdout.write(tenantText(rows));
    // A list shows the ledgers it could not read with why; one tenant asked for and unreadable is a failure.
    return name !== undefined && rows.some((r) => 'unreadable' in r) ? 1 : 0;
  } catch (error) {
    say(`cannot read or change the tenant ledgers: ${messageOf(error)}`);
    return 1;
  } finally {
    await session.close();
  }
}

/** The running ledgers of the namespace, each queried (one that does not answer is kept, with why). */
async function list(client: Client): Promise<TenantRow[]> {
  const query = `WorkflowType = "${TENANT_LEDGER_WORKFLOW_TYPE}" AND ExecutionStatus = "Running"`;
  const found: { id: string; taskQueue: string }[] = [];
  for await (const w of client.workflow.list({ query })) {
    if (w.workflowId.startsWith(TENANT_LEDGER_ID_PREFIX))
      found.push({ id: w.workflowId, taskQueue: w.taskQueue });
  }
  const rows: TenantRow[] = [];
  for (let i = 0; i < found.length; i += QUERIES_AT_ONCE) {
    const some = found.slice(i, i + QUERIES_AT_ONCE);
    rows.push(...(await Promise.all(some.map((w) => read(client, w.id, w.taskQueue)))));
  }
  return rows.sort((a, b) => a.tenant.localeCompare(b.tenant));
}

/** One tenant's running ledger, or `undefined` when there is none. */
async function show(client: Client, tenant: string): Promise<TenantRow[] | undefined> {
  const workflowId = tenantLedgerId(tenant);
  try {
    // A describe costs no action and says where the ledger runs, for the hint when its query is not answered.
    const d = await client.workflow.getHandle(workflowId).describe();
    if (d.status.name !== 'RUNNING') return undefined;
    return [await read(client, workflowId, d.taskQueue)];
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return undefined;
    throw error;
  }
}

async function read(client: Client, workflowId: string, taskQueue: string): Promise<TenantRow> {
  const tenant = workflowId.slice(TENANT_LEDGER_ID_PREFIX.length);
  const deadline = Date.now() + QUERY_TIMEOUT_MS;
  try {
    const snapshot = await client.withDeadline(deadline, () =>
      client.workflow.getHandle(workflowId).query<TenantSnapshot>(TENANT_QUERY),
    );
    return tenantRow(workflowId, snapshot);
  } catch (error) {
    const unreadable =
      Date.now() >= deadline
        ? `no answer within ${QUERY_TIMEOUT_MS / 1000} s: is a worker running on task queue "${taskQueue}"?`
        : `its query failed: ${causesOf(error)}`;
    return { tenant, workflowId, unreadable };
  }
}

async function set(
  client: Client,
  tenant: string,
  envelope: TenantEnvelope,
  taskQueue: string,
): Promise<number> {
  const input: TenantLedgerInput = { tenant, envelope };
  await client.workflow.signalWithStart(TENANT_LEDGER_WORKFLOW_TYPE, {
    workflowId: tenantLedgerId(tenant),
    taskQueue,
    args: [input],
    signal: TENANT_SET_SIGNAL,
    signalArgs: [envelope],
    // A running ledger keeps its spend and leases: the signal only changes its envelope.
    workflowIdConflictPolicy: 'USE_EXISTING',
    staticSummary: `the envelope of tenant ${tenant}`,
    staticDetails: 'Leases and spend of one tenant: see `model-retry tenants`.',
  });
  say(
    `tenant ${tenant}'s envelope set to ${envelopeText(envelope)}; it holds over the workers' files ` +
      'from the next lease on',
  );
  return 0;
}

async function reset(client: Client, tenant: string): Promise<number> {
  try {
    await client.workflow.getHandle(tenantLedgerId(tenant)).signal(TENANT_RESET_SIGNAL);
  } catch (error) {
    if (!(error instanceof WorkflowNotFoundError)) throw error;
    say(`no ledger for tenant ${tenant}: nothing to reset (check the name with \`model-retry tenants\`)`);
    return 2;
  }
  say(`tenant ${tenant}'s spend and leases in this period cleared; its envelope is unchanged`);
  return 0;
}

/** An error's message with its causes' (the client's "Failed to query Workflow" says why only in its cause). */
function causesOf(error: unknown): string {
  const parts: string[] = [];
  for (
    let e: unknown = error;
    e !== undefined && parts.length < 4;
    e = e instanceof Error ? e.cause : undefined
  ) {
    const m = messageOf(e);
    if (m !== '' && !parts.includes(m)) parts.push(m);
  }
  return parts.join(': ');
}
