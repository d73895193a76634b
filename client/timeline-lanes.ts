import type { AttemptRecord } from '../common/call.js';
import type { Axis } from './timeline-axis.js';
import { human, labelWidth, LEFT } from './timeline-axis.js';
import { followText, outcomeText } from './timeline.js';
import type { ToolSpan } from './tool-history.js';

export const COLOURS = {
  succeeded: '#2e9d5b',
  failed: '#d64545',
  cancelled: '#8a8f98',
  running: '#3b82f6',
  wait: '#f0b429',
  tool: '#7c3aed',
  deadline: '#b91c1c',
  reserve: '#ea580c',
} as const;

export const TOP = 34;
export const LANE = 44;
export const BAR = 18;
/** The narrowest bar drawn (px), unless the next thing in its lane starts sooner. */
const MIN_BAR = 2;

/** Escapes text for HTML element content and attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string,
  );
}

export function ms(text: string | undefined): number | undefined {
  if (!text) return undefined;
  const t = Date.parse(text);
  return Number.isFinite(t) ? t : undefined;
}

/** One thing drawn in a lane, in time order: an attempt, the wait after it, or a tool call. */
interface Piece {
  /** Attempts and waits share the lane's row; tool calls have bands of their own in it. */
  kind: 'row' | 'tool';
  start: number;
  end: number;
  draw(x: number, w: number, y: number): string[];
}

/** A call's lane: its attempts, the waits between them (labelled with their cause), and its tools. */
export function drawLane(
  callId: string,
  attempts: readonly AttemptRecord[],
  tools: readonly ToolSpan[],
  lane: number,
  axis: Axis,
  endAt: number,
): string[] {
  const y = TOP + lane * LANE + (LANE - BAR) / 2 + 4;
  const pieces = [...attempts.flatMap((r) => attemptPieces(r, endAt)), ...toolPieces(tools, endAt)];
  pieces.sort((a, b) => a.start - b.start);
  const out = [
    `<text class="lane-label" x="${LEFT - 8}" y="${y + BAR / 2 + 4}">${escapeHtml(callId)}</text>`,
  ];
  pieces.forEach((piece, i) => {
    const x = axis.x(piece.start);
    const next = pieces
      .slice(i + 1)
      .find((p) => axis.x(p.start) > x && (p.kind === 'row' || piece.kind === 'row'));
    const room = next ? axis.x(next.start) - x : Infinity;
    const w = Math.max(Math.min(Math.max(axis.x(piece.end) - x, MIN_BAR), room), 0.5);
    out.push(...piece.draw(x, w, y));
  });
  return out;
}

function attemptPieces(r: AttemptRecord, endAt: number): Piece[] {
  const start = ms(r.startedAt) ?? endAt;
  const end = ms(r.endedAt) ?? endAt;
  const tip = [
    `${r.modelCallId} · [${r.backend}] ${r.model}`,
    outcomeText(r),
    `took ${human(end - start)}`,
    followText(r),
    r.failure?.message ?? '',
  ]
    .filter(Boolean)
    .join(' · ');
  const pieces: Piece[] = [
    {
      kind: 'row',
      start,
      end,
      draw: (x, w, y) => [
        `<rect class="attempt attempt-${r.outcome}" data-attempt="${escapeHtml(r.modelCallId)}" ` +
          `x="${x}" y="${y}" width="${w}" height="${BAR}" rx="2" fill="${COLOURS[r.outcome]}">` +
          `<title>${escapeHtml(tip)}</title></rect>`,
      ],
    },
  ];
  if (r.retryInMs !== undefined && r.retryInMs > 0) {
    const cause = r.failure
      ? `${r.failure.class}${r.failure.status !== undefined ? ` ${r.failure.status}` : ''}`
      : '';
    const waitTip = `wait ${human(r.retryInMs)} after ${r.modelCallId}${cause ? ` (${cause}` : ''}${r.failure?.action ? `, ${r.failure.action})` : cause ? ')' : ''}`;
    pieces.push({
      kind: 'row',
      start: end,
      end: end + r.retryInMs,
      draw: (x, w, y) => {
        const label = [
          `${cause} · ${human(r.retryInMs as number)}`,
          cause,
          human(r.retryInMs as number),
        ].find((text) => text && labelWidth(text) <= w);
        return [
          `<rect class="wait" data-after="${escapeHtml(r.modelCallId)}" x="${x}" y="${y + BAR / 2 - 3}" ` +
            `width="${w}" height="6" fill="${COLOURS.wait}"><title>${escapeHtml(waitTip)}</title></rect>`,
          ...(label
            ? [
                `<text class="wait-label" data-after="${escapeHtml(r.modelCallId)}" x="${x + w / 2}" y="${y - 3}">` +
                  `${escapeHtml(label)}</text>`,
              ]
            : []),
        ];
      },
    });
  }
  return pieces;
}

/** Tool calls of one call: those that overlap in time share the bar's height, one band each. */
function toolPieces(tools: readonly ToolSpan[], endAt: number): Piece[] {
  const band = BAR / Math.max(tools.length, 1);
  return tools.map((t, i) => {
    const end = t.endedAt ?? endAt;
    const name = t.name ?? 'tool';
    const tip = `${t.activityId} · tool ${name} · ${t.outcome} · took ${human(end - t.startedAt)}`;
    return {
      kind: 'tool',
      start: t.startedAt,
      end,
      draw: (x, w, y) => {
        const by = y + i * band;
        const label = labelWidth(name) <= w && band >= 12;
        return [
          `<rect class="tool tool-${t.outcome}" data-tool="${escapeHtml(t.activityId)}" x="${x}" y="${by}" ` +
            `width="${w}" height="${Math.max(band - 1, 1)}" rx="2" fill="${COLOURS.tool}">` +
            `<title>${escapeHtml(tip)}</title></rect>`,
          ...(label
            ? [
                `<text class="tool-label" x="${x + w / 2}" y="${by + band / 2 + 3}">${escapeHtml(name)}</text>`,
              ]
            : []),
        ];
      },
    };
  });
}
