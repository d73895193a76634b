import { writeFile } from 'node:fs/promises';
import type { RerunAnswer, RerunModelTotals, RerunPair, RerunReport, RerunSkipped } from '../common/rerun.js';
import { escapeHtml } from './timeline-lanes.js';
import {
  costText,
  latencyText,
  messageText,
  sourceText,
  textChangeText,
  textCutText,
  tokenPair,
  tokensText,
  toolChangeText,
} from './rerun-values.js';
import { wordDiff } from './word-diff.js';
import type { DiffRun } from './word-diff.js';

/**
 * A rerun's report as one self-contained HTML page (inline CSS, no script, no external asset; its Content Security
 * Policy refuses any, and every text is escaped, for what models wrote is untrusted): the totals per model, then
 * every recorded request with the original answer beside each candidate's: the candidate's text as a word diff
 * against the original's (removed words struck out, added ones marked), tool calls, finish reason, tokens, cost,
 * latency, and a failure's class and stop reason; then the requests that were skipped, with the reason.
 */
export function rerunHtml(report: RerunReport): string {
  const title = `rerun ${report.rerunWorkflowId}`;
  const meta = [
    `started ${report.startedAt}`,
    `ended ${report.endedAt}`,
    `${report.pairs.length} request${report.pairs.length === 1 ? '' : 's'}`,
    `candidates: ${report.models.join(', ') || 'none'}`,
    ...(report.skipped.length > 0 ? [`${report.skipped.length} skipped`] : []),
  ].join(' · ');
  return [
    '<!doctype html>',
    '<html lang="en"><head><meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(title)}</title>`,
    `<style>${STYLE}</style></head><body>`,
    `<h1>${escapeHtml(title)}</h1>`,
    `<p class="meta">${escapeHtml(meta)}</p>`,
    '<h2>Totals per model</h2>',
    totalsTable(report.totals),
    '<h2>Requests</h2>',
    '<p class="legend">In each candidate’s text: <del>removed from the original’s</del> <ins>added by the candidate</ins></p>',
    report.pairs.length === 0 ? '<p class="none">No request was rerun.</p>' : '',
    ...report.pairs.map(pairSection),
    report.skipped.length > 0 ? skippedList(report.skipped) : '',
    '</body></html>',
    '',
  ].join('\n');
}

/** Writes `rerunHtml(report)` to `file`. */
export async function writeRerunHtml(report: RerunReport, file: string): Promise<void> {
  await writeFile(file, rerunHtml(report), 'utf8');
}

function totalsTable(totals: readonly RerunModelTotals[]): string {
  const head = [
    'model',
    'requests',
    'succeeded',
    'failed',
    'tokens',
    'cost',
    'mean latency',
    'median latency',
  ];
  const rows = totals.map((t) => {
    const cells = [
      t.model,
      String(t.requests),
      String(t.succeeded),
      String(t.failed),
      tokenPair(t.inputTokens, t.outputTokens),
      costText(t.costUsd),
      latencyText(t.meanLatencyMs),
      latencyText(t.medianLatencyMs),
      String(t.sameText),
      String(t.sameToolCalls),
    ];
    return `<tr>${cells.map((c) => `<td>${escapeHtml(c)}</td>`).join('')}</tr>`;
  });
  const th = [...head, 'same text', 'same tool calls'].map((h) => `<th>${h}</th>`).join('');
  return `<div class="wide"><table class="totals"><thead><tr>${th}</tr></thead><tbody>${rows.join('')}</tbody></table></div>`;
}

function pairSection(pair: RerunPair, index: number): string {
  const heading = `${sourceText(pair.source)} (run ${pair.source.runId})`;
  const original = pair.original;
  const answers = [
    answerCard(original, 'original', original.text ? escapeHtml(original.text) : '', []),
    ...pair.candidates.map((candidate) => {
      const runs = wordDiff(original.text, candidate.text);
      // A diff against a failure's empty text would mark every word: show the text as it came instead.
      const compared = candidate.outcome === 'succeeded' && original.outcome === 'succeeded';
      const compare = [textChangeText(runs, candidate, original), toolChangeText(candidate, original)];
      return answerCard(
        candidate,
        'candidate',
        compared ? diffHtml(runs) : escapeHtml(candidate.text),
        compare,
      );
    }),
  ];
  return [
    `<section class="pair" id="pair-${index + 1}">`,
    `<h3>${escapeHtml(heading)}</h3>`,
    `<div class="answers">${answers.join('')}</div>`,
    '</section>',
  ].join('\n');
}

/** Removed words struck out, added ones marked. */
function diffHtml(runs: readonly DiffRun[]): string {
  return runs
    .map((run) => {
      const text = escapeHtml(run.text);
      return run.op === 'equal' ? text : run.op === 'removed' ? `<del>${text}</del>` : `<ins>${text}</ins>`;
    })
    .join('');
}

/** One answer's column: `text` is ready HTML, `compared` says how it compares with the original. */
function answerCard(
  answer: RerunAnswer,
  role: 'original' | 'candidate',
  text: string,
  compared: string[],
): string {
  const facts: [string, string][] = [
    // The finish reason, failure class and stop reason have rows of their own here.
    ['outcome', answer.outcome],
    ['finish reason', answer.finishReason ?? ''],
    ['failure class', answer.failureClass ?? ''],
    ['stop reason', answer.stopReason ?? ''],
    ['why', messageText(answer)],
    ['text cut', textCutText(answer)],
    ['tokens', tokensText(answer)],
    ['cost', costText(answer.costUsd)],
    ['latency', latencyText(answer.latencyMs)],
    ['workflow', answer.workflowId],
  ];
  const comparison = compared.filter(Boolean);
  return [
    `<article class="answer ${role} outcome-${answer.outcome === 'failed' ? 'failed' : 'succeeded'}">`,
    `<header><span class="role">${role}</span> <span class="model">${escapeHtml(answer.model)}</span></header>`,
    `<dl class="facts">${facts
      .filter(([, value]) => value !== '')
      .map(
        ([name, value]) => `<dt>${name}</dt><dd class="${name.replace(' ', '-')}">${escapeHtml(value)}</dd>`,
      )
      .join('')}</dl>`,
    comparison.length > 0 ? `<p class="change">${comparison.map(escapeHtml).join(' · ')}</p>` : '',
    text === '' ? '<div class="text empty">(no text)</div>' : `<div class="text">${text}</div>`,
    toolList(answer),
    '</article>',
  ].join('');
}

function toolList(answer: RerunAnswer): string {
  if (answer.toolCalls.length === 0) return '';
  const items = answer.toolCalls.map(
    (call) =>
      `<li><code class="tool-name">${escapeHtml(call.name)}</code><pre>${escapeHtml(prettyArgs(call.args))}</pre></li>`,
  );
  return `<ul class="tools">${items.join('')}</ul>`;
}

function prettyArgs(args: string): string {
  try {
    return JSON.stringify(JSON.parse(args), null, 2);
  } catch {
    return args;
  }
}

function skippedList(skipped: readonly RerunSkipped[]): string {
  const items = skipped.map(
    (s) =>
      `<li><span class="source">${escapeHtml(`${sourceText(s.source)} (run ${s.source.runId})`)}</span>: <span class="reason">${escapeHtml(s.reason)}</span></li>`,
  );
  return `<h2>Skipped</h2><ul class="skipped">${items.join('')}</ul>`;
}

const STYLE = `
body { font: 14px/1.4 system-ui, sans-serif; margin: 24px; color: #1f2328; }
h1 { font-size: 18px; margin: 0 0 4px; } h2 { font-size: 16px; margin: 20px 0 8px; } h3 { font-size: 14px; margin: 0 0 8px; font-family: ui-monospace, monospace; overflow-wrap: anywhere; }
.meta, .legend { color: #57606a; margin: 0 0 12px; overflow-wrap: anywhere; }
.wide { overflow-x: auto; }
table.totals { border-collapse: collapse; font-size: 13px; } th, td { border-bottom: 1px solid #d0d7de; padding: 4px 10px; text-align: left; vertical-align: top; }
td:first-child { font-family: ui-monospace, monospace; overflow-wrap: anywhere; min-width: 16ch; } td:not(:first-child) { text-align: right; white-space: nowrap; }
section.pair { border: 1px solid #d0d7de; border-radius: 6px; padding: 10px 12px; margin: 0 0 14px; background: #fff; }
.answers { display: grid; grid-auto-flow: column; grid-auto-columns: minmax(0, 1fr); gap: 12px; }
.answer { min-width: 0; border-left: 3px solid #1a7f37; padding: 0 0 0 10px; }
.answer.original { border-left-color: #57606a; } .answer.outcome-failed { border-left-color: #b42318; }
.answer header { margin: 0 0 4px; overflow-wrap: anywhere; } .role { color: #57606a; font-size: 12px; text-transform: uppercase; }
.model { font-family: ui-monospace, monospace; font-weight: 600; }
dl.facts { display: grid; grid-template-columns: max-content minmax(0, 1fr); gap: 0 8px; margin: 0 0 6px; font-size: 12px; }
dl.facts dt { color: #57606a; } dl.facts dd { margin: 0; overflow-wrap: anywhere; }
@media (max-width: 1000px) { dl.facts { grid-template-columns: minmax(0, 1fr); } dl.facts dd { margin: 0 0 2px; } }
.outcome-failed dd.outcome, dd.failure-class, dd.stop-reason { color: #b42318; }
.change { font-size: 12px; color: #57606a; margin: 0 0 6px; overflow-wrap: anywhere; }
.text { white-space: pre-wrap; overflow-wrap: anywhere; background: #f6f8fa; border-radius: 4px; padding: 6px 8px; }
.text.empty { color: #57606a; font-style: italic; }
del { background: #ffebe9; color: #82071e; text-decoration: line-through; }
ins { background: #dafbe1; color: #116329; text-decoration: underline; }
ul.tools { list-style: none; padding: 0; margin: 6px 0 0; } ul.tools li { margin: 0 0 4px; }
.tool-name { font-weight: 600; overflow-wrap: anywhere; }
ul.tools pre { margin: 2px 0 0; white-space: pre-wrap; overflow-wrap: anywhere; font-size: 12px; background: #f6f8fa; padding: 4px 6px; border-radius: 4px; }
ul.skipped { padding-left: 20px; } ul.skipped li { overflow-wrap: anywhere; } .reason { color: #b42318; }
`;
