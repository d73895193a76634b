import { readFileSync, writeFileSync } from 'node:fs';
import { isGrpcServiceError, WorkflowNotFoundError } from '@temporalio/client';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils.js';
import type { temporal } from '@temporalio/proto';
import { callReport } from '../client/call-report.js';
import type { CallReport } from '../client/call-report.js';
import { dataConverterFromEnv } from '../payloads/data-converter.js';
import { decodeHistory } from '../client/decode-history.js';
import { fetchRunChain, orderRuns, readCallHistories } from '../client/history-chain.js';
import { renderHtmlTimeline } from '../client/html-timeline.js';
import { readRunMeta } from '../client/run-meta.js';
import { formatTimeline } from '../client/timeline.js';
import { readToolSpans } from '../client/tool-history.js';
import { UsageError } from './args.js';
import { openSession } from './session.js';
import { spentText } from './call-outcome.js';

type History = temporal.api.history.v1.IHistory;

export interface HistoryOptions {
  workflowId?: string;
  /** @deprecated use `files`; kept for callers of the first version. */
  file?: string;
  /** Exported histories, one run each (several for a continue-as-new chain, in any order). */
  files?: string[];
  json: boolean;
  /** Also write a self-contained HTML timeline to this file. */
  html?: string;
  out?: (line: string) => void;
  err?: (line: string) => void;
}

/**
 * `model-retry history`: the attempts of a call rebuilt from its event history alone (no worker needed), from the
 * server by workflow id (every run of a continue-as-new chain) or from exported history files
 * (`temporal workflow show --output json`, or the demo's), optionally drawn as an HTML timeline.
 */
export async function runHistory(options: HistoryOptions): Promise<number> {
  const out = options.out ?? ((line: string) => console.log(line));
  const err = options.err ?? ((line: string) => console.error(line));
  const { workflowId, histories } = await loadHistories(options, err);
  const report = callReport(workflowId, readCallHistories(histories));
  if (options.json) out(JSON.stringify(report, null, 2));
  else for (const line of describeReport(report)) out(line);
  if (options.html) {
    const meta = readRunMeta(histories);
    const page = renderHtmlTimeline(
      report.attempts,
      {
        workflowId,
        workflowType: meta.workflowType,
        status: report.status,
        ...(report.stopReason ? { stopReason: report.stopReason } : {}),
        startedAt: meta.startedAt,
        endAt: meta.closedAt ?? meta.lastEventAt,
        ...(meta.deadlineMs !== undefined
          ? { deadlineMs: meta.deadlineMs, reserveMs: meta.reserveMs ?? 0 }
          : {}),
      },
      readToolSpans(histories),
    );
    writeFileSync(options.html, page);
    err(`model-retry history: wrote the HTML timeline to ${options.html}`);
  }
  return 0;
}

async function loadHistories(
  options: HistoryOptions,
  err: (line: string) => void,
): Promise<{ workflowId: string; histories: History[] }> {
  const files = [...(options.files ?? []), ...(options.file ? [options.file] : [])];
  if (files.length > 0) {
    // Exports carry payloads as the server holds them: decode with the keys and store of the environment.
    const codecs = dataConverterFromEnv().payloadCodecs ?? [];
    const exported = await Promise.all(files.map(async (file) => decodeHistory(readExport(file), codecs)));
    const { histories, gaps } = orderRuns(exported);
    for (const gap of gaps) {
      err(
        `model-retry history: ${gap}. Each file holds one run: export every run of the chain ` +
          '(`temporal workflow show --workflow-id ID --run-id RUN --output json`) and pass `--file` for each.',
      );
    }
    const started = histories[0]?.events?.[0]?.workflowExecutionStartedEventAttributes;
    return { workflowId: options.workflowId ?? started?.workflowId ?? files[0] ?? '', histories };
  }
  if (!options.workflowId)
    throw new UsageError('give a workflow id (`model-retry history ID`) or `--file EXPORT.json`');
  const session = await openSession();
  try {
    const histories = await fetchRunChain(session.client, options.workflowId);
    return { workflowId: options.workflowId, histories };
  } catch (error) {
    const NOT_FOUND = 5;
    if (error instanceof WorkflowNotFoundError || (isGrpcServiceError(error) && error.code === NOT_FOUND))
      throw new UsageError(`no workflow with id ${options.workflowId} in namespace ${session.namespace}`);
    throw error;
  } finally {
    await session.close();
  }
}

function readExport(file: string): History {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new UsageError(`\`--file\`: cannot read ${file} as JSON (${(error as Error).message})`);
  }
  let history: History;
  try {
    history = historyFromJSON(raw);
  } catch (error) {
    throw new UsageError(
      `\`--file\`: ${file} is not an exported workflow history (${(error as Error).message})`,
    );
  }
  if (!history.events?.[0]?.workflowExecutionStartedEventAttributes)
    throw new UsageError(`\`--file\`: ${file} does not start with a WorkflowExecutionStarted event`);
  return history;
}

/** The readable form of a call report: status, the attempt timeline, the answer and what was billed. */
export function describeReport(report: CallReport): string[] {
  const lines = [
    `${report.workflowId}: ${report.status}${report.stopReason && report.stopReason !== report.status ? ` (${report.stopReason})` : ''}`,
  ];
  if (report.stopReason === 'budget' && report.why) lines.push(`  stopped by its budget: ${report.why}`);
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
  if (report.spent) lines.push(`Spent (as the budget counts it): ${spentText(report.spent)}`);
  return lines;
}
