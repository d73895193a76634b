/**
 * A rerun's report as text for a terminal: a block per recorded request (each answer's outcome, tokens, cost and
 * latency, and how each candidate's text and tool calls compare with the original's), the skipped requests, then
 * the totals per model.
 */
import type { RerunAnswer, RerunModelTotals, RerunPair, RerunReport } from '../common/rerun.js';
import {
  costText,
  latencyText,
  messageText,
  outcomeText,
  sourceText,
  textChangeText,
  tokenPair,
  tokensText,
  toolChangeText,
} from './rerun-values.js';
import { wordDiff } from './word-diff.js';

/** The report as lines of text (no colour); what models wrote is never printed whole, only compared. */
export function formatRerunReport(report: RerunReport): string {
  const lines = [
    `rerun ${report.rerunWorkflowId}: ${report.pairs.length} request${report.pairs.length === 1 ? '' : 's'} rerun on ${report.models.join(', ') || 'no model'}` +
      (report.skipped.length > 0 ? `, ${report.skipped.length} skipped` : ''),
    `started ${report.startedAt}, ended ${report.endedAt}`,
  ];
  for (const pair of report.pairs) lines.push('', ...pairBlock(pair));
  if (report.skipped.length > 0) {
    lines.push('', 'skipped:');
    for (const s of report.skipped)
      lines.push(`  ${sourceText(s.source)} (run ${s.source.runId}): ${s.reason}`);
  }
  lines.push('', 'totals:', ...totalsTable(report.totals));
  return `${lines.map(terminalSafe).join('\n')}\n`;
}

function pairBlock(pair: RerunPair): string[] {
  const width = Math.max('original'.length, ...pair.candidates.map((c) => c.model.length));
  const lines = [`${sourceText(pair.source)} (run ${pair.source.runId})`];
  lines.push(`  ${'original'.padEnd(width)}  ${answerLine(pair.original)} · ${pair.original.model}`);
  const why = messageText(pair.original);
  if (why) lines.push(`  ${''.padEnd(width)}  why: ${why}`);
  for (const candidate of pair.candidates) {
    lines.push(`  ${candidate.model.padEnd(width)}  ${answerLine(candidate)}`);
    const message = messageText(candidate);
    if (message) lines.push(`  ${''.padEnd(width)}  why: ${message}`);
    const change = [
      textChangeText(wordDiff(pair.original.text, candidate.text), candidate, pair.original),
      toolChangeText(candidate, pair.original),
    ].filter(Boolean);
    lines.push(`  ${''.padEnd(width)}  ${change.join('; ')}`);
  }
  return lines;
}

function answerLine(answer: RerunAnswer): string {
  const tools = answer.toolCalls.length > 0 ? `tools ${answer.toolCalls.map((t) => t.name).join(', ')}` : '';
  return [
    outcomeText(answer),
    tools,
    tokensText(answer),
    costText(answer.costUsd),
    latencyText(answer.latencyMs),
  ]
    .filter(Boolean)
    .join(' · ');
}

const TOTALS_HEAD = [
  'model',
  'requests',
  'ok',
  'failed',
  'tokens',
  'cost',
  'latency mean',
  'median',
  'same text',
  'same tools',
];

/** The totals as aligned columns, numbers to the right. */
function totalsTable(totals: readonly RerunModelTotals[]): string[] {
  const rows = totals.map((t) => [
    t.model,
    String(t.requests),
    String(t.succeeded),
    String(t.failed),
    tokenPair(t.inputTokens, t.outputTokens) || '-',
    costText(t.costUsd) || '-',
    latencyText(t.meanLatencyMs) || '-',
    latencyText(t.medianLatencyMs) || '-',
    String(t.sameText),
    String(t.sameToolCalls),
  ]);
  const widths = TOTALS_HEAD.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] as string).length)));
  return [TOTALS_HEAD, ...rows].map(
    (cells) =>
      `  ${cells
        .map((c, i) => (i === 0 ? c.padEnd(widths[i] as number) : c.padStart(widths[i] as number)))
        .join('  ')
        .trimEnd()}`,
  );
}

/**
 * Model names, tool names and reasons come from outside: a control character (an escape sequence that would
 * recolour or rewrite the terminal) is shown as `?`.
 */
function terminalSafe(line: string): string {
  // eslint-disable-next-line no-control-regex
  return line.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, '?');
}
