import { WorkflowNotFoundError } from '@temporalio/client';
import type { Client } from '@temporalio/client';
import { readHealth } from '../activities/health/read.js';
import {
  HEALTH_ID_PREFIX,
  HEALTH_RESET_SIGNAL,
  HEALTH_WORKFLOW_TYPE,
  healthWorkflowId,
} from '../common/health.js';
import type { HealthSnapshot } from '../common/health.js';
import { atTime } from '../policy/index.js';
import { resolveTaskQueue } from '../worker/config.js';
import { UsageError, parseCommandArgs } from './args.js';
import { HEALTH_HELP } from './help.js';
import { messageOf, openSession, say } from './session.js';

/** One backend as `health --json` prints it. */
export interface HealthRow {
  backend: string;
  taskQueue: string;
  state: string;
  since: string;
  until?: string;
  reason?: string;
  trips: number;
  probes: number;
  recent: { at: string; outcome: string }[];
}

const iso = (ms: number): string => new Date(ms).toISOString();

/** A snapshot as a row, its phase as of now (an open backend past its `until` reads half-open). */
export function healthRow(s: HealthSnapshot, nowMs = Date.now()): HealthRow {
  const b = atTime(s.breaker, nowMs);
  return {
    backend: s.backend,
    taskQueue: s.taskQueue,
    state: b.phase,
    since: iso(b.since),
    ...(b.until === undefined ? {} : { until: iso(b.until) }),
    ...(b.reason === undefined || b.phase === 'closed' ? {} : { reason: b.reason }),
    trips: b.trips,
    probes: b.probes,
    recent: b.recent.map((r) => ({ at: iso(r.at), outcome: r.outcome })),
  };
}

/**
 * `model-retry health [--json] [--task-queue Q]` lists every backend's fleet health on the task queue;
 * `model-retry health reset BACKEND [--task-queue Q]` sets one `closed`. Exit 0 done; 1 Temporal unreachable or
 * the reset failed; 2 bad options or an unknown backend.
 */
export async function runHealthCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs('health', args, {
    json: { type: 'boolean' },
    'task-queue': { type: 'string' },
  });
  if (values.help) {
    process.stdout.write(HEALTH_HELP);
    return 0;
  }
  const [verb, backend, ...extra] = positionals;
  if (verb !== undefined && (verb !== 'reset' || backend === undefined || extra.length > 0)) {
    throw new UsageError(
      'use `model-retry health [--json]` or `model-retry health reset BACKEND` (like local:fast).',
    );
  }
  const taskQueue = resolveTaskQueue(values['task-queue']);
  const session = await openSession();
  try {
    if (verb === 'reset' && backend !== undefined) return await reset(session.client, taskQueue, backend);
    const rows = await list(session.client, taskQueue);
    if (values.json === true) process.stdout.write(`${JSON.stringify(rows)}\n`);
    else printRows(rows, taskQueue);
    return 0;
  } catch (error) {
    say(`cannot read fleet health: ${messageOf(error)}`);
    return 1;
  } finally {
    await session.close();
  }
}

async function list(client: Client, taskQueue: string): Promise<HealthRow[]> {
  const prefix = `${HEALTH_ID_PREFIX}${taskQueue}:`;
  const rows: HealthRow[] = [];
  const query = `WorkflowType = "${HEALTH_WORKFLOW_TYPE}" AND ExecutionStatus = "Running"`;
  for await (const w of client.workflow.list({ query })) {
    if (!w.workflowId.startsWith(prefix)) continue;
    const s = await readHealth(client, w.workflowId);
    if (s !== undefined) rows.push(healthRow(s));
  }
  return rows.sort((a, b) => a.backend.localeCompare(b.backend));
}

function printRows(rows: readonly HealthRow[], taskQueue: string): void {
  if (rows.length === 0) {
    say(`no backend has fleet health state on task queue "${taskQueue}" (workers with --health create it)`);
    return;
  }
  for (const r of rows) {
    const until = r.until === undefined ? '' : ` until ${r.until}`;
    const why = r.reason === undefined ? '' : ` (${r.reason})`;
    const recent = r.recent
      .slice(-5)
      .map((o) => o.outcome)
      .join(', ');
    process.stdout.write(
      `${r.backend}  ${r.state}${why} since ${r.since}${until}  trips ${r.trips}  probes ${r.probes}` +
        `${recent ? `  recent: ${recent}` : ''}\n`,
    );
  }
}

async function reset(client: Client, taskQueue: string, backend: string): Promise<number> {
  try {
    await client.workflow.getHandle(healthWorkflowId(taskQueue, backend)).signal(HEALTH_RESET_SIGNAL);
  } catch (error) {
    if (!(error instanceof WorkflowNotFoundError)) throw error;
    say(
      `no fleet health state for ${backend} on task queue "${taskQueue}": nothing to reset (check the name)`,
    );
    return 2;
  }
  say(`${backend} on task queue "${taskQueue}" set closed; workers see it within about a second`);
  return 0;
}
