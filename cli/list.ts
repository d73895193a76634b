import { isGrpcServiceError } from '@temporalio/client';
import { listQuery, listRuns, withClasses } from '../client/list-runs.js';
import { FAILURE_CLASSES } from '../policy/index.js';
import type { RunSummary } from '../client/list-runs.js';
import { UsageError, parseCommandArgs } from './args.js';
import { LIST_HELP } from './help.js';
import { openSession } from './session.js';

const DEFAULT_LIMIT = 20;
const INVALID_ARGUMENT = 3;

/**
 * `model-retry list [--query Q] [--class NAME ...] [--limit N] [--json]`: model-retry's runs from Temporal's visibility store with
 * their search attributes (stop reason, attempts, models, last failure class), newest first. The user's query is
 * ANDed with the workflow type, so `--query "ModelRetryStopReason = 'deadline'"` finds every call that stopped on
 * its deadline, and `--class CoolingDown` every call that met that class (`ModelRetryClasses`).
 */
export async function runListCommand(
  args: string[],
  out = (line: string) => console.log(line),
): Promise<number> {
  const { values, positionals } = parseCommandArgs('list', args, {
    query: { type: 'string', short: 'q' },
    limit: { type: 'string' },
    class: { type: 'string', multiple: true },
    json: { type: 'boolean' },
  });
  if (values.help) {
    process.stdout.write(LIST_HELP);
    return 0;
  }
  if (positionals.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(positionals[0])}.`);
  const limit = values.limit === undefined ? DEFAULT_LIMIT : Number(values.limit);
  if (!Number.isInteger(limit) || limit < 1)
    throw new UsageError(`\`--limit\` must be a whole number >= 1 (got "${values.limit}")`);
  const query = withClasses(values.query, checkClasses(values.class ?? []));
  const session = await openSession();
  let runs: RunSummary[];
  try {
    runs = await listRuns(session.client, query, limit);
  } catch (error) {
    const grpc = [error, (error as { cause?: unknown } | undefined)?.cause].find(isGrpcServiceError);
    if (grpc?.code === INVALID_ARGUMENT) {
      throw new UsageError(
        `the server refused the query \`${listQuery(query)}\`: ${grpc.details || grpc.message}`,
      );
    }
    throw error;
  } finally {
    await session.close();
  }
  if (values.json) out(JSON.stringify(runs, null, 2));
  else for (const line of formatRuns(runs)) out(line);
  return 0;
}

/** The `--class` names, each a failure class (`ServerError`, `CoolingDown`, ...). */
function checkClasses(classes: readonly string[]): readonly string[] {
  const unknown = classes.find((c) => !(FAILURE_CLASSES as readonly string[]).includes(c));
  if (unknown !== undefined) {
    throw new UsageError(
      `\`--class\` ${JSON.stringify(unknown)} is not a failure class: use one of ${FAILURE_CLASSES.join(', ')}`,
    );
  }
  return classes;
}

/** One line per run, columns aligned; a header first. */
export function formatRuns(runs: readonly RunSummary[]): string[] {
  if (runs.length === 0) return ['no runs found'];
  const rows = [
    ['WORKFLOW ID', 'STATUS', 'STARTED', 'STOP REASON', 'ATTEMPTS', 'MODELS', 'LAST FAILURE'],
    ...runs.map((r) => [
      r.workflowId,
      r.status,
      r.startTime.replace('T', ' ').replace(/\.\d+Z$/, 'Z'),
      r.stopReason ?? '-',
      r.attempts !== undefined ? String(r.attempts) : '-',
      r.models?.join(',') || '-',
      r.lastFailureClass ?? '-',
    ]),
  ];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((row) => (row[i] ?? '').length)));
  return rows.map((row) =>
    row
      .map((cell, i) => cell.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd(),
  );
}
