import type { Client, WorkflowExecutionInfo } from '@temporalio/client';
import type { StopReason } from '../policy/index.js';
import {
  ATTEMPT_COUNT,
  CLASSES_MET,
  LAST_FAILURE_CLASS,
  MODELS_TRIED,
  STOP_REASON,
  TENANT,
} from '../common/search-attributes.js';
import type { CallReport } from './call-report.js';

/** The workflow types `model-retry list` shows: model-retry's own workflows, which set the search attributes. */
export const LISTED_WORKFLOW_TYPES: readonly string[] = ['modelCallWorkflow', 'agentTurnWorkflow'];

/** One run as `model-retry list` shows it. */
export interface RunSummary {
  workflowId: string;
  runId: string;
  workflowType: string;
  status: CallReport['status'] | 'unknown';
  /** ISO time. */
  startTime: string;
  closeTime?: string;
  taskQueue: string;
  stopReason?: StopReason;
  attempts?: number;
  models?: string[];
  lastFailureClass?: string;
  /** Every failure class the run met (`ModelRetryClasses`). */
  classes?: string[];
  /** Who the run is for (`ModelRetryTenant`, set when a client helper or the CLI started it with a tenant). */
  tenant?: string;
}

const STATUS: Record<string, RunSummary['status']> = {
  RUNNING: 'running',
  COMPLETED: 'succeeded',
  FAILED: 'failed',
  CANCELLED: 'cancelled',
  TERMINATED: 'terminated',
  TIMED_OUT: 'timed-out',
  CONTINUED_AS_NEW: 'continued-as-new',
};

/**
 * The visibility query `list` sends: our workflow types, and the user's query (if any) in parentheses, e.g.
 * `WorkflowType IN ('modelCallWorkflow', 'agentTurnWorkflow') AND (ModelRetryStopReason = 'deadline')`.
 */
export function listQuery(userQuery?: string): string {
  const types = LISTED_WORKFLOW_TYPES.map((t) => `'${t}'`);
  const ours = types.length === 1 ? `WorkflowType = ${types[0]}` : `WorkflowType IN (${types.join(', ')})`;
  return userQuery?.trim() ? `${ours} AND (${userQuery.trim()})` : ours;
}

/**
 * The visibility query of `list --class A --class B` (runs that met every class named), ANDed with `userQuery`:
 * `ModelRetryClasses = 'A' AND ModelRetryClasses = 'B' AND (userQuery)`. Names are checked by the caller.
 */
export function withClasses(userQuery: string | undefined, classes: readonly string[]): string | undefined {
  const parts = classes.map((c) => `${CLASSES_MET.name} = '${c}'`);
  if (userQuery?.trim()) parts.push(`(${userQuery.trim()})`);
  return parts.length > 0 ? parts.join(' AND ') : undefined;
}

export function summarizeRun(info: WorkflowExecutionInfo): RunSummary {
  const sa = info.typedSearchAttributes;
  const stopReason = sa.get(STOP_REASON) as StopReason | undefined;
  const attempts = sa.get(ATTEMPT_COUNT);
  const models = sa.get(MODELS_TRIED);
  const lastFailure = sa.get(LAST_FAILURE_CLASS);
  const classes = sa.get(CLASSES_MET);
  const tenant = sa.get(TENANT);
  return {
    workflowId: info.workflowId,
    runId: info.runId,
    workflowType: info.type,
    status: STATUS[info.status.name] ?? 'unknown',
    startTime: info.startTime.toISOString(),
    ...(info.closeTime ? { closeTime: info.closeTime.toISOString() } : {}),
    taskQueue: info.taskQueue,
    ...(stopReason !== undefined ? { stopReason } : {}),
    ...(attempts !== undefined ? { attempts } : {}),
    ...(models !== undefined ? { models } : {}),
    ...(lastFailure !== undefined ? { lastFailureClass: lastFailure } : {}),
    ...(classes !== undefined ? { classes } : {}),
    ...(tenant !== undefined ? { tenant } : {}),
  };
}

/** Up to `limit` runs of our workflows matching `userQuery`, newest first (the server's order). */
export async function listRuns(
  client: Client,
  userQuery: string | undefined,
  limit: number,
): Promise<RunSummary[]> {
  const runs: RunSummary[] = [];
  if (limit <= 0) return runs;
  for await (const info of client.workflow.list({
    query: listQuery(userQuery),
    pageSize: Math.min(limit, 1000),
  })) {
    runs.push(summarizeRun(info));
    if (runs.length >= limit) break;
  }
  return runs;
}

/**
 * Up to `limit` different workflow ids among the runs of our workflows matching `userQuery`, newest first: several
 * runs of one id (a continue-as-new chain, a reused id) count once.
 */
export async function listWorkflowIds(
  client: Client,
  userQuery: string | undefined,
  limit: number,
): Promise<string[]> {
  const ids = new Set<string>();
  if (limit <= 0) return [];
  for await (const info of client.workflow.list({
    query: listQuery(userQuery),
    pageSize: Math.min(limit, 1000),
  })) {
    ids.add(info.workflowId);
    if (ids.size >= limit) break;
  }
  return [...ids];
}
