/**
 * The time axis of the HTML timeline: it fits the run (its first attempt to its last event, waits included), not
 * the deadline, so a 2-second run under a 2-minute deadline fills the width. The deadline and the reserve stay
 * marked: on the axis when they fall near its end, else in a gutter past a break at the right edge ("off
 * scale"), in their order.
 */

/** Width of the SVG and its margins (px). */
export const WIDTH = 1000;
export const LEFT = 70;
export const RIGHT = 70;
/** Room for the marks past the break when any is off scale. */
const GUTTER = 60;
/** A mark this far past the run's end (as a share of the run's length) still stretches the axis to it. */
const STRETCH = 0.25;

/** A vertical mark (the reserve's start, the deadline) and where it is drawn. */
export interface AxisMark {
  kind: 'reserve' | 'deadline';
  at: number;
  x: number;
  offScale: boolean;
}

export interface Axis {
  t0: number;
  t1: number;
  /** Where the plot ends (the break, when marks are off scale). */
  plotEnd: number;
  x(t: number): number;
  marks: AxisMark[];
}

/** The axis for a run from `t0` to `runEnd`, with the deadline (and the reserve before it) when the run has one. */
export function fitAxis(t0: number, runEnd: number, deadlineMs?: number, reserveMs?: number): Axis {
  const wanted: { kind: AxisMark['kind']; at: number }[] = [];
  if (deadlineMs !== undefined) {
    if (reserveMs) wanted.push({ kind: 'reserve', at: deadlineMs - reserveMs });
    wanted.push({ kind: 'deadline', at: deadlineMs });
  }
  const runSpan = Math.max(runEnd - t0, 1);
  const near = (at: number) => at <= runEnd + runSpan * STRETCH;
  const t1 = Math.max(runEnd, ...wanted.filter((m) => near(m.at)).map((m) => m.at), t0 + 1);
  const off = wanted.filter((m) => !near(m.at));
  const plotEnd = WIDTH - RIGHT - (off.length > 0 ? GUTTER : 0);
  const x = (t: number) => LEFT + ((t - t0) / (t1 - t0)) * (plotEnd - LEFT);
  let slot = 0;
  const marks = wanted.map((m) => {
    if (near(m.at)) return { ...m, x: x(m.at), offScale: false };
    slot += 1;
    return { ...m, x: plotEnd + slot * (GUTTER / (off.length + 1)), offScale: true };
  });
  return { t0, t1, plotEnd, x, marks };
}

/** A round tick step for a span, about six ticks. */
export function tickStep(span: number): number {
  const raw = span / 6;
  const pow = 10 ** Math.floor(Math.log10(Math.max(raw, 1)));
  return ([1, 2, 5, 10].map((m) => m * pow).find((s) => s >= raw) ?? 10 * pow) as number;
}

/** `250 ms`, `1.50 s`, `2.0 min`. */
export function human(msValue: number): string {
  const abs = Math.abs(msValue);
  if (abs < 1000) return `${Math.round(msValue)} ms`;
  if (abs < 120_000) return `${(msValue / 1000).toFixed(abs < 10_000 ? 2 : 1)} s`;
  return `${(msValue / 60_000).toFixed(1)} min`;
}

/** About how wide a label of `text` is at the timeline's 10 px font (px). */
export function labelWidth(text: string): number {
  return text.length * 6 + 4;
}
