import type { AttemptRecord } from '../common/call.js';
import { groupByCall } from './history-chain.js';
import { followText, outcomeText } from './timeline.js';

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

const COLOURS = {
  succeeded: '#2e9d5b',
  failed: '#d64545',
  cancelled: '#8a8f98',
  running: '#3b82f6',
  wait: '#f0b429',
  deadline: '#b91c1c',
  reserve: '#ea580c',
} as const;

const W = 1000;
const LEFT = 70;
const RIGHT = 50;
const TOP = 34;
const LANE = 40;
const BAR = 18;

/** Escapes text for HTML element content and attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string,
  );
}

function ms(text: string | undefined): number | undefined {
  if (!text) return undefined;
  const t = Date.parse(text);
  return Number.isFinite(t) ? t : undefined;
}

function human(msValue: number): string {
  const abs = Math.abs(msValue);
  if (abs < 1000) return `${Math.round(msValue)} ms`;
  if (abs < 120_000) return `${(msValue / 1000).toFixed(abs < 10_000 ? 2 : 1)} s`;
  return `${(msValue / 60_000).toFixed(1)} min`;
}

/** A round tick step for a span, about six ticks. */
function tickStep(span: number): number {
  const raw = span / 6;
  const pow = 10 ** Math.floor(Math.log10(Math.max(raw, 1)));
  return ([1, 2, 5, 10].map((m) => m * pow).find((s) => s >= raw) ?? 10 * pow) as number;
}

/**
 * A self-contained HTML page (inline CSS and SVG, no external assets, every text escaped) with the run's
 * timeline: one lane per call, attempt bars coloured by outcome, the waits between them, the deadline and the
 * reserve as vertical lines, the failure class and status on hover (`<title>`), a legend and a table of attempts.
 */
export function renderHtmlTimeline(records: readonly AttemptRecord[], meta: HtmlTimelineMeta): string {
  const calls = groupByCall(records);
  const t0 = Math.min(meta.startedAt, ...records.map((r) => ms(r.startedAt) ?? meta.startedAt));
  const ends = records.flatMap((r) => {
    const end = ms(r.endedAt) ?? meta.endAt;
    return [end, end + (r.retryInMs ?? 0)];
  });
  const t1 = Math.max(meta.endAt, meta.deadlineMs ?? 0, ...ends, t0 + 1);
  const span = t1 - t0;
  const x = (t: number) => LEFT + ((t - t0) / span) * (W - LEFT - RIGHT);
  const height = TOP + Math.max(calls.length, 1) * LANE + 24;
  const svg: string[] = [];
  const step = tickStep(span);
  for (let t = 0; t <= span; t += step) {
    svg.push(
      `<line class="tick" x1="${x(t0 + t)}" x2="${x(t0 + t)}" y1="${TOP - 6}" y2="${height - 20}"/>`,
      `<text class="tick-label" x="${x(t0 + t)}" y="${TOP - 10}">+${escapeHtml(human(t))}</text>`,
    );
  }
  calls.forEach((call, lane) => {
    const y = TOP + lane * LANE + (LANE - BAR) / 2;
    svg.push(
      `<text class="lane-label" x="${LEFT - 8}" y="${y + BAR / 2 + 4}">${escapeHtml(call.callId)}</text>`,
    );
    for (const r of call.attempts) {
      const start = ms(r.startedAt) ?? t0;
      const end = ms(r.endedAt) ?? meta.endAt;
      const took = end - start;
      const tip = [
        `${r.modelCallId} · [${r.backend}] ${r.model}`,
        outcomeText(r),
        `took ${human(took)}`,
        followText(r),
        r.failure?.message ?? '',
      ]
        .filter(Boolean)
        .join(' · ');
      const w = Math.max(x(end) - x(start), 3);
      svg.push(
        `<rect class="attempt attempt-${r.outcome}" data-attempt="${escapeHtml(r.modelCallId)}" ` +
          `x="${x(start)}" y="${y}" width="${w}" height="${BAR}" rx="3" fill="${COLOURS[r.outcome]}">` +
          `<title>${escapeHtml(tip)}</title></rect>`,
      );
      if (r.retryInMs !== undefined && r.retryInMs > 0) {
        const ww = Math.max(x(end + r.retryInMs) - x(end), 2);
        const waitTip = `wait ${human(r.retryInMs)} after ${r.modelCallId}${r.failure?.action ? ` (${r.failure.action})` : ''}`;
        svg.push(
          `<rect class="wait" data-after="${escapeHtml(r.modelCallId)}" x="${x(end)}" y="${y + BAR / 2 - 3}" ` +
            `width="${ww}" height="6" fill="${COLOURS.wait}"><title>${escapeHtml(waitTip)}</title></rect>`,
        );
      }
    }
  });
  if (meta.deadlineMs !== undefined) {
    const lines: [string, number, string][] = [['deadline', meta.deadlineMs, 'deadline']];
    if (meta.reserveMs) lines.unshift(['reserve', meta.deadlineMs - meta.reserveMs, 'reserve starts']);
    for (const [cls, t, label] of lines) {
      const tip = `${label} at +${human(t - t0)} (${new Date(t).toISOString()})`;
      svg.push(
        `<line class="${cls}" x1="${x(t)}" x2="${x(t)}" y1="${TOP - 6}" y2="${height - 20}" stroke="${COLOURS[cls as 'deadline']}"><title>${escapeHtml(tip)}</title></line>`,
        `<text class="line-label" x="${x(t)}" y="${height - 6}" fill="${COLOURS[cls as 'deadline']}">${escapeHtml(label)}</text>`,
      );
    }
  }
  const title = `${meta.workflowId}: ${meta.status}${meta.stopReason ? ` (${meta.stopReason})` : ''}`;
  return [
    '<!doctype html>',
    '<html lang="en"><head><meta charset="utf-8">',
    `<title>${escapeHtml(title)}</title>`,
    `<style>${STYLE}</style></head><body>`,
    `<h1>${escapeHtml(title)}</h1>`,
    `<p class="meta">${escapeHtml(describeMeta(meta, records.length))}</p>`,
    `<svg class="timeline" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${W} ${height}" width="${W}" height="${height}" role="img" aria-label="attempt timeline">`,
    ...svg,
    '</svg>',
    legend(meta.deadlineMs !== undefined),
    records.length === 0 ? '<p class="none">No attempt was made.</p>' : table(records, t0),
    '</body></html>',
    '',
  ].join('\n');
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

function legend(deadline: boolean): string {
  const items: [string, string, string][] = [
    ['succeeded', COLOURS.succeeded, 'bar'],
    ['failed', COLOURS.failed, 'bar'],
    ['cancelled', COLOURS.cancelled, 'bar'],
    ['running', COLOURS.running, 'bar'],
    ['wait', COLOURS.wait, 'wait'],
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
.deadline, .reserve { stroke-width: 2; stroke-dasharray: 6 4; } .line-label { font-size: 11px; text-anchor: middle; }
.attempt { stroke: rgba(0,0,0,.25); } .attempt:hover, .wait:hover { opacity: .75; }
ul.legend { list-style: none; padding: 0; display: flex; gap: 16px; flex-wrap: wrap; margin: 10px 0 16px; }
.swatch { display: inline-block; width: 14px; height: 10px; margin-right: 6px; vertical-align: middle; border-radius: 2px; }
.swatch.wait { height: 5px; } .swatch.line { width: 3px; height: 14px; }
table.attempts { border-collapse: collapse; font-size: 13px; } th, td { border-bottom: 1px solid #d0d7de; padding: 4px 10px; text-align: left; vertical-align: top; }
td:nth-child(1), td:nth-child(3) { font-family: ui-monospace, monospace; } .row-failed td:nth-child(4) { color: #b42318; }
`;
