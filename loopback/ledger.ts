import type { RecordedRequest, UnexpectedRequest } from './record.js';
import { ANY_MODEL } from './script.js';
import type { ScriptBook } from './script.js';
import { describeStep } from './step-builders.js';

interface ArrivalWaiter {
  count: number;
  model: string | undefined;
  resolve: () => void;
  reject: (error: Error) => void;
}

/** The loopback provider's memory: every request, every surprise, and what is still in flight. */
export class Ledger {
  private readonly records: RecordedRequest[] = [];
  private readonly surprises: UnexpectedRequest[] = [];
  private inFlight = 0;
  private idleWaiters: Array<() => void> = [];
  private arrivalWaiters: ArrivalWaiter[] = [];
  private seq = 0;

  /** The next sequence number (1-based; not reset by `clear`, so ids stay unique for the server's life). */
  nextSeq(): number {
    this.seq += 1;
    return this.seq;
  }

  /** Starts tracking a request; call `end` with the same record when it is over. */
  open(record: RecordedRequest): RecordedRequest {
    this.records.push(record);
    this.inFlight += 1;
    this.arrivalWaiters = this.arrivalWaiters.filter((w) => {
      if (this.requests(w.model).length < w.count) return true;
      w.resolve();
      return false;
    });
    return record;
  }

  end(record: RecordedRequest, outcome: RecordedRequest['outcome']): void {
    if (record.outcome !== 'pending') return;
    record.outcome = outcome;
    record.endedAt = Date.now();
    this.inFlight -= 1;
    if (this.inFlight === 0) for (const wake of this.idleWaiters.splice(0)) wake();
  }

  /** Notes a request that the script did not foresee. */
  surprise(record: RecordedRequest, message: string): UnexpectedRequest {
    record.unexpected = message;
    const surprise: UnexpectedRequest = {
      seq: record.seq,
      at: record.receivedAt,
      method: record.method,
      path: record.path,
      ...(record.model === undefined ? {} : { model: record.model }),
      message,
    };
    this.surprises.push(surprise);
    return surprise;
  }

  /** Recorded requests, oldest first; only those for `model` when given. */
  requests(model?: string): RecordedRequest[] {
    return model === undefined ? [...this.records] : this.records.filter((r) => r.model === model);
  }

  unexpected(): UnexpectedRequest[] {
    return [...this.surprises];
  }

  /** Resolves once at least `count` requests (for `model` when given) have been recorded. */
  received(count: number, model?: string): Promise<void> {
    if (this.requests(model).length >= count) return Promise.resolve();
    return new Promise((resolve, reject) => this.arrivalWaiters.push({ count, model, resolve, reject }));
  }

  /** Rejects every `received` wait still pending (the server is closing: no request will come). */
  stopWaiting(): void {
    for (const w of this.arrivalWaiters.splice(0)) {
      const got = this.requests(w.model).length;
      const what = w.model === undefined ? 'request(s)' : `request(s) for model "${w.model}"`;
      w.reject(new Error(`loopback provider: closed after ${got} of the ${w.count} ${what} waited for`));
    }
  }

  /** Resolves once no request is being answered. */
  idle(): Promise<void> {
    if (this.inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Forgets records and surprises (requests still in flight keep being tracked for `idle`). */
  clear(): void {
    this.records.length = 0;
    this.surprises.length = 0;
  }
}

/** @throws Error listing every unexpected request, when there was one. */
export function assertNoUnexpected(ledger: Ledger): void {
  const surprises = ledger.unexpected();
  if (surprises.length === 0) return;
  const lines = surprises.map((u) => `  #${u.seq} ${u.method} ${u.path}: ${u.message}`);
  throw new Error(`loopback provider: ${surprises.length} unexpected request(s):\n${lines.join('\n')}`);
}

/** @throws Error naming every model whose scripted steps were not all used, or any unexpected request. */
export function assertScriptsConsumed(ledger: Ledger, book: ScriptBook): void {
  assertNoUnexpected(ledger);
  const left = Object.entries(book.remaining());
  if (left.length === 0) return;
  const lines = left.map(([model, steps]) => {
    const name = model === ANY_MODEL ? 'any model (*)' : `model "${model}"`;
    return `  ${name}: ${steps.length} unused step(s): ${steps.map(describeStep).join(', ')}`;
  });
  throw new Error(`loopback provider: scripted steps were never requested:\n${lines.join('\n')}`);
}
