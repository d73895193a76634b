import { describe, expect, it } from 'vitest';
import { formatMs, ProgressPrinter } from '../../../cli/progress.js';
import type { AttemptRecord, CallStatus } from '../../../common/call.js';

const T0 = Date.UTC(2026, 2, 1, 12);
const at = (ms: number) => new Date(T0 + ms).toISOString();

function sink(isTTY: boolean) {
  const chunks: string[] = [];
  return { out: { isTTY, write: (text: string) => chunks.push(text) }, text: () => chunks.join('') };
}

const running: AttemptRecord = {
  modelCallId: 'c1.1',
  callId: 'c1',
  attempt: 1,
  backend: 0,
  model: 'local:fast',
  startedAt: at(0),
  outcome: 'running',
};
const failed: AttemptRecord = {
  ...running,
  outcome: 'failed',
  endedAt: at(40),
  failure: { class: 'ServerError', status: 502, action: 'retry-same', message: 'bad gateway' },
  retryInMs: 30_000,
};
const waiting: CallStatus = {
  callId: 'c1',
  state: 'waiting',
  attempt: 1,
  backend: 0,
  model: 'local:fast',
  waitingUntil: at(30_040),
};

describe('progress lines', () => {
  it('when piped: one line per event, each printed once, and no redraws', () => {
    const { out, text } = sink(false);
    const printer = new ProgressPrinter(out, () => T0 + 1000);
    printer.update([running]);
    printer.update([running]);
    printer.update([failed], waiting);
    printer.update([failed], waiting);
    expect(text()).toBe(
      '[c1.1] attempt 1 on local:fast (backend 0): started\n' +
        '[c1.1] attempt 1 on local:fast (backend 0): ServerError 502 after 40 ms -> retry-same in 30 s\n' +
        `waiting 30 s after ServerError 502 on c1.1 (retry-same); next attempt at ${at(30_040)}\n`,
    );
  });

  it('does not announce a wait before the attempts show the failure that caused it', () => {
    const { out, text } = sink(false);
    const printer = new ProgressPrinter(out);
    printer.update([running], waiting);
    expect(text()).not.toContain('waiting');
    printer.update([failed], waiting);
    expect(text()).toContain('waiting 30 s after ServerError 502');
  });

  it('on a terminal: a live countdown redrawn in place, cleared before the next line', () => {
    const { out, text } = sink(true);
    let now = T0 + 40;
    const printer = new ProgressPrinter(out, () => now);
    printer.update([failed], waiting);
    now += 10_000;
    printer.update([failed], waiting);
    printer.finish();
    expect(text()).toContain('  next attempt in 30 s');
    expect(text()).toContain('\r\x1b[2K  next attempt in 20 s');
    expect(text().endsWith('\r\x1b[2K')).toBe(true);
  });

  it('an attempt first seen ended gets its end line only; a last failure says it stopped', () => {
    const { out, text } = sink(false);
    new ProgressPrinter(out).update([
      { ...failed, retryInMs: undefined, failure: { ...failed.failure!, action: 'abort' } },
    ]);
    expect(text()).toBe(
      '[c1.1] attempt 1 on local:fast (backend 0): ServerError 502 after 40 ms -> abort, stopped\n',
    );
  });

  it('formats durations for people', () => {
    expect([formatMs(850), formatMs(4200), formatMs(30_000), formatMs(90_000)]).toEqual([
      '850 ms',
      '4.2 s',
      '30 s',
      '1 min 30 s',
    ]);
  });
});
