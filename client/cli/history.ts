import { readFileSync } from 'node:fs';
import { Client, Connection } from '@temporalio/client';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils.js';
import type { temporal } from '@temporalio/proto';
import { loadTemporalTarget } from '../../worker/connection.js';
import { callReport } from '../call-report.js';
import type { CallReport } from '../call-report.js';
import { readCallHistory } from '../history-reader.js';
import { formatTimeline } from '../timeline.js';
import { UsageError } from './args.js';

export interface HistoryOptions {
  workflowId?: string;
  file?: string;
  json: boolean;
  out?: (line: string) => void;
}

/**
 * `model-retry history`: the attempts of a call rebuilt from its event history alone (no worker needed), from the
 * server by workflow id or from an exported history file (`temporal workflow show --output json`, or the demo's).
 */
export async function runHistory(options: HistoryOptions): Promise<number> {
  const out = options.out ?? ((line: string) => console.log(line));
  const { workflowId, history } = await loadHistory(options);
  const report = callReport(workflowId, readCallHistory(history));
  if (options.json) out(JSON.stringify(report, null, 2));
  else for (const line of describeReport(report)) out(line);
  return 0;
}

async function loadHistory(
  options: HistoryOptions,
): Promise<{ workflowId: string; history: temporal.api.history.v1.IHistory }> {
  if (options.file) {
    let raw: unknown;
    try {
      raw = JSON.parse(readFileSync(options.file, 'utf8'));
    } catch (error) {
      throw new UsageError(`\`--file\`: cannot read ${options.file} as JSON (${(error as Error).message})`);
    }
    const history = historyFromJSON(raw);
    const started = history.events?.[0]?.workflowExecutionStartedEventAttributes;
    return { workflowId: options.workflowId ?? started?.workflowId ?? options.file, history };
  }
  if (!options.workflowId)
    throw new UsageError('give a workflow id (`model-retry history ID`) or `--file EXPORT.json`');
  const target = loadTemporalTarget();
  const connection = await Connection.connect(target.connectionOptions);
  try {
    const client = new Client({ connection, namespace: target.namespace });
    const history = await client.workflow.getHandle(options.workflowId).fetchHistory();
    return { workflowId: options.workflowId, history };
  } finally {
    await connection.close();
  }
}

/** The readable form of a call report: status, the attempt timeline, the answer and what was billed. */
export function describeReport(report: CallReport): string[] {
  const lines = [
    `${report.workflowId}: ${report.status}${report.stopReason ? ` (${report.stopReason})` : ''}`,
  ];
  if (report.attempts.length === 0) lines.push('  no attempt was made');
  for (const line of formatTimeline(report.attempts)) lines.push(`  ${line}`);
  if (report.output) lines.push('', `Answer: ${report.output.text}`);
  const b = report.billed;
  const tokens = b.inputTokens !== undefined || b.outputTokens !== undefined;
  lines.push(
    `Billed across ${b.attempts} attempt${b.attempts === 1 ? '' : 's'}` +
      (tokens
        ? `: ${b.inputTokens ?? '?'} input + ${b.outputTokens ?? '?'} output tokens`
        : ': no usage reported') +
      (b.cost !== undefined ? `, $${b.cost}` : ''),
  );
  return lines;
}
