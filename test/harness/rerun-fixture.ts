import type { RerunAnswer, RerunPair, RerunReport } from '../../common/rerun.js';
import { rerunTotals } from '../../common/rerun-totals.js';

/** An answer of `model`, succeeded unless told otherwise. */
export function answer(model: string, extra: Partial<RerunAnswer> = {}): RerunAnswer {
  return {
    model,
    workflowId: `wf-${model}`,
    outcome: 'succeeded',
    text: 'The capital of France is Paris.',
    toolCalls: [],
    finishReason: 'stop',
    usage: { inputTokens: 20, outputTokens: 8 },
    costUsd: 0.000123,
    latencyMs: 850,
    ...extra,
  };
}

/** A report over `pairs` for `models`, its totals filled the way the rerun fills them. */
export function report(models: string[], pairs: RerunPair[], extra: Partial<RerunReport> = {}): RerunReport {
  return {
    rerunWorkflowId: 'rerun-1',
    startedAt: '2026-01-01T00:00:00.000Z',
    endedAt: '2026-01-01T00:01:00.000Z',
    models,
    pairs,
    skipped: [],
    totals: rerunTotals(pairs, models),
    ...extra,
  };
}
