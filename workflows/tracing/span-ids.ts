/**
 * Span and trace ids for workflow code that draw nothing from the workflow's random: each run has its own
 * sequence, from Temporal's own Alea generator seeded with the run's workflow id and run id. A replay makes the
 * same spans in the same order and so gets the same ids (a span begun on one worker and ended on another after a
 * restart keeps its id), while `Math.random` (the backoff jitter) is the same whether tracing is on or off.
 */
import type { IdGenerator } from '@opentelemetry/sdk-trace-base';
import { workflowInfo } from '@temporalio/workflow';
import { alea } from '@temporalio/workflow/lib/alea.js';
import type { RNG } from '@temporalio/workflow/lib/alea.js';

/** One run's sequence (module state: one per workflow run), and the one for what is not in its history. */
let inHistory: RNG | undefined;
let aside: RNG | undefined;
let asideDepth = 0;

function seeded(stream: string): RNG {
  const { workflowId, runId } = workflowInfo();
  return alea([...`${stream}\u0000${workflowId}\u0000${runId}`].map((c) => c.codePointAt(0) ?? 0));
}

function next(): RNG {
  if (asideDepth > 0) return (aside ??= seeded('aside'));
  return (inHistory ??= seeded('history'));
}

/** `bytes` bytes of the run's sequence as lowercase hex, never all zeros (an invalid id). */
function hexId(bytes: number): string {
  const rng = next();
  let hex = '';
  for (let i = 0; i < bytes / 4; i++) hex += ((rng() * 2 ** 32) >>> 0).toString(16).padStart(8, '0');
  return /^0+$/.test(hex) ? `${hex.slice(0, -1)}1` : hex;
}

/**
 * Runs `fn` with ids from a second sequence: for spans that a replay does not make again (a query's, an update
 * validator's), so that they do not shift the ids of the spans that follow.
 */
export function outsideHistory<T>(fn: () => T): T {
  asideDepth++;
  try {
    return fn();
  } finally {
    asideDepth--;
  }
}

/** The OpenTelemetry `IdGenerator` of workflow code (see the module comment). */
export class RunIdGenerator implements IdGenerator {
  generateTraceId(): string {
    return hexId(16);
  }

  generateSpanId(): string {
    return hexId(8);
  }
}
