import type { AttemptRecord, CallStatus } from '../common/call.js';

/** Where progress goes: a stream and whether it is a terminal (live countdown) or not (one line per event). */
export interface ProgressOut {
  write(text: string): unknown;
  isTTY?: boolean;
}

/** `850 ms`, `4.2 s`, `1 min 30 s`. */
export function formatMs(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '?';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;
  const min = Math.floor(ms / 60_000);
  const s = Math.round((ms % 60_000) / 1000);
  return `${min} min${s ? ` ${s} s` : ''}`;
}

/** `ServerError 502` / `RateLimited 429 (retry-after 1000 ms)` / `succeeded`. */
export function outcomeText(record: AttemptRecord): string {
  const f = record.failure;
  if (record.outcome !== 'failed' || !f) return record.outcome;
  const status = f.status !== undefined ? ` ${f.status}` : '';
  const retryAfter = f.retryAfterMs !== undefined ? ` (retry-after ${f.retryAfterMs} ms)` : '';
  return `${f.class}${status}${retryAfter}`;
}

function what(record: AttemptRecord): string {
  return `[${record.modelCallId}] attempt ${record.attempt} on ${record.model} (backend ${record.backend})`;
}

/** What followed a failed attempt: `-> retry-same in 30 ms`, `-> advance at once`, `-> abort, stopped`. */
function followText(record: AttemptRecord): string {
  const action = record.failure?.action;
  if (record.outcome !== 'failed') return '';
  if (record.retryInMs === undefined) return action ? ` -> ${action}, stopped` : ' -> stopped';
  const when = record.retryInMs === 0 ? 'at once' : `in ${formatMs(record.retryInMs)}`;
  return ` -> ${action ?? 'retry'} ${when}`;
}

/**
 * Turns successive snapshots of a call (its `attempts` and `status` queries) into progress lines: each attempt
 * as it starts and as it ends (outcome, class and status, duration, what follows), and each wait with its
 * cause. On a terminal a live line counts the wait down (redrawn in place); elsewhere nothing is redrawn.
 */
export class ProgressPrinter {
  private readonly started = new Set<string>();
  private readonly ended = new Set<string>();
  private waitShown: string | undefined;
  private waitingUntil: number | undefined;
  private live = false;

  constructor(
    private readonly out: ProgressOut,
    private readonly now: () => number = Date.now,
  ) {}

  /** Prints what changed since the last snapshot. */
  update(attempts: readonly AttemptRecord[], status?: CallStatus): void {
    for (const record of attempts) {
      const id = record.modelCallId;
      if (!this.started.has(id)) {
        this.started.add(id);
        if (record.outcome === 'running') this.line(`${what(record)}: started`);
      }
      if (record.outcome !== 'running' && !this.ended.has(id)) {
        this.ended.add(id);
        const took = record.endedAt ? Date.parse(record.endedAt) - Date.parse(record.startedAt) : NaN;
        const duration = Number.isFinite(took) ? ` after ${formatMs(took)}` : '';
        this.line(`${what(record)}: ${outcomeText(record)}${duration}${followText(record)}`);
      }
    }
    this.noteWait(attempts, status);
    this.redraw();
  }

  /** Prints a line of its own (a warning), keeping the live countdown below it. */
  note(text: string): void {
    this.line(text);
    this.redraw();
  }

  /** Clears the live line, leaving the terminal ready for what follows. */
  finish(): void {
    this.clearLive();
    this.waitingUntil = undefined;
  }

  private noteWait(attempts: readonly AttemptRecord[], status: CallStatus | undefined): void {
    if (status?.state !== 'waiting' || status.waitingUntil === undefined) {
      this.waitingUntil = undefined;
      return;
    }
    this.waitingUntil = Date.parse(status.waitingUntil);
    const key = `${status.callId}@${status.waitingUntil}`;
    if (this.waitShown === key) return;
    const failed = attempts.findLast((r) => r.callId === status.callId);
    // The two queries are separate reads: wait until the attempts show the failure that caused the wait.
    if (failed?.outcome === 'running') return;
    this.waitShown = key;
    const cause = failed?.failure
      ? ` after ${outcomeText(failed)} on ${failed.modelCallId} (${failed.failure.action ?? 'retry'})`
      : '';
    const length = failed?.retryInMs !== undefined ? ` ${formatMs(failed.retryInMs)}` : '';
    this.line(`waiting${length}${cause}; next attempt at ${status.waitingUntil}`);
  }

  private redraw(): void {
    if (!this.out.isTTY) return;
    this.clearLive();
    if (this.waitingUntil === undefined) return;
    const left = Math.max(0, this.waitingUntil - this.now());
    this.out.write(`  next attempt in ${formatMs(left)} (Ctrl-C detaches; the call goes on)`);
    this.live = true;
  }

  private clearLive(): void {
    if (this.live) this.out.write('\r\x1b[2K');
    this.live = false;
  }

  private line(text: string): void {
    this.clearLive();
    this.out.write(`${text}\n`);
  }
}
