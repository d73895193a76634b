import type { AttemptRecord } from '../common/call.js';
import { groupByCall } from './history-chain.js';
import { outcomeText, followText } from './timeline.js';
import { fitAxis, human, tickStep, WIDTH } from './timeline-axis.js';
import type { Axis } from './timeline-axis.js';
import { COLOURS, drawLane, escapeHtml, LANE, ms, TOP } from './timeline-lanes.js';
import type { ToolSpan } from './tool-history.js';

export { escapeHtml };
/** What the page says about the run beside its attempts. Times are epoch ms. */
export interface HtmlTimelineMeta {
  workflowId: string;
  workflowType?: string;
  status: string;
  stopReason?: string;
  /** When the run (chain) started. */
  startedAt: number;
  /** Where the time axis ends at least: the close of the run, or its last event while it runs. */
  endAt: number;
  /** The call's absolute deadline, drawn as a line with the reserve before it. */
  deadlineMs?: number;
  reserveMs?: number;
}

/**
 * A self-contained HTML page (inline CSS and SVG, no external assets, every text escaped) with the run's
 * timeline: one lane per call with its attempt bars coloured by outcome, the waits between them labelled with
 * their cause, and the tool calls its answer asked for; an axis that fits the run, with the deadline and the
 * reserve marked (past a break at the right edge when they are far beyond the run); the failure class and status
 * on hover (`<title>`), a legend and a table of attempts.
 */
export function renderHtmlTimeline(
  records: readonly AttemptRecord[],
  meta: HtmlTimelineMeta,
  tools: readonly ToolSpan[] = [],
): string {
  const calls = groupByCall(records);
  for (const t of tools) {
    if (!calls.some((c) => c.callId === t.callId)) calls.push({ callId: t.callId, attempts: [] });
  }
  const t0 = Math.min(meta.startedAt, ...records.map((r) => ms(r.startedAt) ?? meta.startedAt));
  const ends = records.flatMap((r) => {
    const end = ms(r.endedAt) ?? meta.endAt;
    return [end, end + (r.retryInMs ?? 0)];
  });
  const toolEnds = tools.map((t) => t.endedAt ?? meta.endAt);
  const axis = fitAxis(t0, Math.max(meta.endAt, ...ends, ...toolEnds), meta.deadlineMs, meta.reserveMs);
  const height = TOP + Math.max(calls.length, 1) * LANE + 38;
  const svg = ticks(axis, height);
  calls.forEach((call, lane) => {
    const own = tools.filter((t) => t.callId === call.callId);
    svg.push(...drawLane(call.callId, call.attempts, own, lane, axis, meta.endAt));
  });
  svg.push(...marks(axis, height));
  const title = `${meta.workflowId}: ${meta.status}${meta.stopReason ? ` (${meta.stopReason})` : ''}`;
  return [
    '<!doctype html>',
    '<html lang="en"><head><meta charset="utf-8">',
    `<title>${escapeHtml(title)}</title>`,
    `<style>${STYLE}</style></head><body>`,
    `<h1>${escapeHtml(title)}</h1>`,
    `<p class="meta">${escapeHtml(describeMeta(meta, records.length))}</p>`,
    `<svg class="timeline" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${WIDTH} ${height}" width="${WIDTH}" height="${height}" role="img" aria-label="attempt timeline">`,
    ...svg,
    '</svg>',
    legend(meta.deadlineMs !== undefined, tools.length > 0),
    records.length === 0 ? '<p class="none">No attempt was made.</p>' : table(records, t0),
    '</body></html>',
    '',
  ].join('\n');
}

function ticks(axis: Axis, height: number): string[] {
  const span = axis.t1 - axis.t0;
  const step = tickStep(span);
  const out: string[] = [];
  for (let t = 0; t <= span; t += step) {
    const x = axis.x(axis.t0 + t);
    out.push(
      `<line class="tick" x1="${x}" x2="${x}" y1="${TOP - 6}" y2="${height - 32}"/>`,
      `<text class="tick-label" x="${x}" y="${TOP - 10}">+${escapeHtml(human(t))}</text>`,
    );
  }
  return out;
}

/**
 * The reserve's start and the deadline, each label on a row of its own under the lanes (the reserve's ends at its
 * line, the deadline's starts there, or ends there when it is off scale at the right edge), so they never meet.
 */
function marks(axis: Axis, height: number): string[] {
  const out: string[] = [];
  if (axis.marks.some((m) => m.offScale)) {
    const x = axis.plotEnd + 4;
    out.push(
      `<text class="axis-break" x="${x}" y="${TOP + 4}"><title>the axis breaks here: what follows is off scale</title>//</text>`,
    );
  }
  for (const m of axis.marks) {
    const label = m.kind === 'reserve' ? 'reserve starts' : 'deadline';
    const tip = `${label} at +${human(m.at - axis.t0)} (${new Date(m.at).toISOString()})${m.offScale ? ', off scale' : ''}`;
    const anchor = m.kind === 'reserve' || m.offScale ? 'end' : 'start';
    const dx = anchor === 'end' ? -3 : 3;
    const y = m.kind === 'reserve' ? height - 20 : height - 6;
    out.push(
      `<line class="${m.kind}" x1="${m.x}" x2="${m.x}" y1="${TOP - 6}" y2="${height - 32}" stroke="${COLOURS[m.kind]}" data-scale="${m.offScale ? 'off' : 'on'}"><title>${escapeHtml(tip)}</title></line>`,
      `<text class="line-label" x="${m.x + dx}" y="${y}" fill="${COLOURS[m.kind]}" text-anchor="${anchor}">${escapeHtml(label)}${m.offScale ? ` +${escapeHtml(human(m.at - axis.t0))}` : ''}</text>`,
    );
  }
  return out;
}

function describeMeta(meta: HtmlTimelineMeta, attempts: number): string {
  const parts = [
    meta.workflowType ?? '',
    `started ${new Date(meta.startedAt).toISOString()}`,
    `${attempts} attempt${attempts === 1 ? '' : 's'}`,
    meta.deadlineMs !== undefined ? `deadline +${human(meta.deadlineMs - meta.startedAt)}` : 'no deadline',
  ];
  return parts.filter(Boolean).join(' · ');
}

function legend(deadline: boolean, tools: boolean): string {
  const items: [string, string, string][] = [
    ['succeeded', COLOURS.succeeded, 'bar'],
    ['failed', COLOURS.failed, 'bar'],
    ['cancelled', COLOURS.cancelled, 'bar'],
    ['running', COLOURS.running, 'bar'],
    ['wait', COLOURS.wait, 'wait'],
    ...(tools ? ([['tool call', COLOURS.tool, 'bar']] as [string, string, string][]) : []),
    ...(deadline
      ? ([
          ['reserve starts', COLOURS.reserve, 'line'],
          ['deadline', COLOURS.deadline, 'line'],
        ] as [string, string, string][])
      : []),
  ];
  return `<ul class="legend">${items
    .map(
      ([label, colour, kind]) =>
        `<li><span class="swatch ${kind}" style="background:${colour}"></span>${escapeHtml(label)}</li>`,
    )
    .join('')}</ul>`;
}

function table(records: readonly AttemptRecord[], t0: number): string {
  const head = ['attempt', 'backend', 'model', 'outcome', 'started', 'took', 'then', 'message'];
  const rows = records.map((r) => {
    const start = ms(r.startedAt);
    const end = ms(r.endedAt);
    const cells = [
      r.modelCallId,
      String(r.backend),
      r.model,
      outcomeText(r),
      start !== undefined ? `+${human(start - t0)}` : '',
      start !== undefined && end !== undefined ? human(end - start) : '',
      followText(r),
      r.failure?.message ?? '',
    ];
    return `<tr class="row-${r.outcome}">${cells.map((c) => `<td>${escapeHtml(c)}</td>`).join('')}</tr>`;
  });
  return `<table class="attempts"><thead><tr>${head.map((h) => `<th>${h}</th>`).join('')}</tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

const STYLE = `
body { font: 14px/1.4 system-ui, sans-serif; margin: 24px; color: #1f2328; }
h1 { font-size: 18px; margin: 0 0 4px; } .meta { color: #57606a; margin: 0 0 12px; }
svg.timeline { display: block; border: 1px solid #d0d7de; border-radius: 6px; background: #fff; max-width: 100%; height: auto; }
.tick { stroke: #eaeef2; } .tick-label { font-size: 10px; fill: #57606a; text-anchor: middle; }
.lane-label { font-size: 12px; fill: #1f2328; text-anchor: end; font-family: ui-monospace, monospace; }
.deadline, .reserve { stroke-width: 2; stroke-dasharray: 6 4; } .line-label { font-size: 11px; }
.wait-label, .tool-label { font-size: 10px; text-anchor: middle; fill: #57606a; } .tool-label { fill: #fff; }
.axis-break { font-size: 12px; fill: #57606a; }
.attempt { stroke: rgba(0,0,0,.25); } .attempt:hover, .wait:hover { opacity: .75; }
ul.legend { list-style: none; padding: 0; display: flex; gap: 16px; flex-wrap: wrap; margin: 10px 0 16px; }
.swatch { display: inline-block; width: 14px; height: 10px; margin-right: 6px; vertical-align: middle; border-radius: 2px; }
.swatch.wait { height: 5px; } .swatch.line { width: 3px; height: 14px; }
table.attempts { border-collapse: collapse; font-size: 13px; } th, td { border-bottom: 1px solid #d0d7de; padding: 4px 10px; text-align: left; vertical-align: top; }
td:nth-child(1), td:nth-child(3) { font-family: ui-monospace, monospace; } .row-failed td:nth-child(4) { color: #b42318; }
`;
