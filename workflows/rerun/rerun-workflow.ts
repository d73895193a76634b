import {
  ApplicationFailure,
  ChildWorkflowFailure,
  condition,
  executeChild,
  isCancellation,
  ParentClosePolicy,
  workflowInfo,
} from '@temporalio/workflow';
import type { Pricing } from '../../policy/index.js';
import { MODEL_CALL_FAILED } from '../../common/call.js';
import type { ModelCallFailedDetails } from '../../common/call.js';
import { answerOf, costOf } from '../../common/rerun-answer.js';
import { rerunCallInput } from '../../common/rerun-call.js';
import {
  DEFAULT_RERUN_CONCURRENCY,
  INVALID_RERUN_INPUT,
  RERUN_MEMO_KEY,
  rerunInputProblem,
} from '../../common/rerun-input.js';
import type { RerunInput, RerunRequest } from '../../common/rerun-input.js';
import { rerunTotals } from '../../common/rerun-totals.js';
import type { RerunAnswer, RerunPair, RerunReport, RerunSkipped } from '../../common/rerun.js';
import { modelCallWorkflow } from '../call/model-call-workflow.js';
import { iso } from '../../common/iso.js';
import { workerConfig } from '../call/worker-config.js';
import { RerunBudget } from './rerun-budget.js';
import { boundedReport } from './rerun-report-size.js';

/**
 * A rerun: every recorded request sent again to each candidate model, each as a child model call
 * (`modelCallWorkflow`, its own history, id `<rerun id>.<request>.<model>`), at most `concurrency` at once, under one
 * `budgetUsd`. The recorded runs are only read (by the client that started this): nothing is written to them. The
 * result pairs each original answer with the candidates' and totals them per model.
 */
export async function rerunWorkflow(input: RerunInput): Promise<RerunReport> {
  const problem = rerunInputProblem(input);
  if (problem) throw ApplicationFailure.nonRetryable(problem, INVALID_RERUN_INPUT);
  const startedAt = iso(Date.now());
  const config = await workerConfig();
  const pricing = config?.pricing ?? {};
  if (input.budgetUsd !== undefined) {
    const unpriced = input.models.filter((m) => pricing[m] === undefined);
    if (unpriced.length > 0)
      throw ApplicationFailure.nonRetryable(
        `\`budgetUsd\`: ${unpriced.join(', ')} has no \`pricing\` in the worker's providers file, so the ` +
          "rerun's cost cannot be bounded",
        INVALID_RERUN_INPUT,
      );
  }
  const budget =
    input.budgetUsd !== undefined
      ? new RerunBudget(input.budgetUsd, pricing, input.requests, input.retry)
      : undefined;
  const limit = input.concurrency ?? DEFAULT_RERUN_CONCURRENCY;
  const id = workflowInfo().workflowId;
  const skipped: RerunSkipped[] = [...(input.skipped ?? [])];
  const answers = new Map<RerunRequest, RerunAnswer[]>();
  const running: Promise<void>[] = [];
  let inFlight = 0;
  let ended = 0;
  let stopped: string | undefined;
  try {
    for (const [i, recorded] of input.requests.entries()) {
      const childIds = input.models.map((_, j) => `${id}.${i + 1}.${j + 1}`);
      let limits: number[] | undefined;
      if (stopped === undefined && budget) {
        // What was spent is best known once a call can start: the request is weighed then, and again each time
        // a call ends while it does not fit; only with nothing running is a request that does not fit the end.
        await condition(() => inFlight < limit);
        for (;;) {
          const admitted = budget.admit(recorded, input.models, childIds);
          if (typeof admitted !== 'string') {
            limits = admitted;
            break;
          }
          if (inFlight === 0) {
            stopped = admitted;
            break;
          }
          const seen = ended;
          await condition(() => ended > seen);
        }
      }
      if (stopped !== undefined) {
        skipped.push({ source: recorded.source, reason: stopped });
        continue;
      }
      const candidates: RerunAnswer[] = [];
      answers.set(recorded, candidates);
      for (const [j, model] of input.models.entries()) {
        await condition(() => inFlight < limit);
        inFlight += 1;
        const childId = childIds[j] as string;
        const maxCostUsd = limits?.[j];
        const child = rerunOne(recorded, model, childId, input, pricing, maxCostUsd).then(
          ({ answer, spentUsd }) => {
            candidates[j] = answer;
            inFlight -= 1;
            ended += 1;
            // A child that reported nothing counts what it was allowed: its limit bounds what it could spend.
            budget?.end(childId, spentUsd ?? answer.costUsd ?? maxCostUsd ?? 0, answer.usage?.outputTokens);
          },
        );
        running.push(child);
      }
    }
    await Promise.all(running);
  } catch (error) {
    // Cancelled (or failed): the children in flight were asked to cancel; the rerun ends once they have, so none
    // is left running or terminated with it.
    await Promise.allSettled(running);
    throw error;
  }
  const pairs: RerunPair[] = input.requests.flatMap((recorded) => {
    const candidates = answers.get(recorded);
    if (!candidates) return [];
    const original = priced(recorded, pricing);
    return [{ source: recorded.source, original, candidates }];
  });
  return boundedReport(
    {
      rerunWorkflowId: id,
      startedAt,
      endedAt: iso(Date.now()),
      models: input.models,
      pairs,
      skipped,
      totals: rerunTotals(pairs, input.models),
    },
    config,
  );
}

/** The original answer, its cost priced with the worker's prices when the recording reported none. */
function priced(recorded: RerunRequest, pricing: Readonly<Record<string, Pricing>>): RerunAnswer {
  if (recorded.original.costUsd !== undefined) return recorded.original;
  const costUsd = costOf(recorded.originalAttempts, pricing);
  return costUsd === undefined ? recorded.original : { ...recorded.original, costUsd };
}

/**
 * One child call: the recorded request on `model`; its answer, or what it failed with, and what it counted as
 * spent (with a budget: reported usage and cost, else prices and worst cases, as every call counts).
 */
async function rerunOne(
  recorded: RerunRequest,
  model: string,
  childId: string,
  input: RerunInput,
  pricing: Readonly<Record<string, Pricing>>,
  maxCostUsd: number | undefined,
): Promise<{ answer: RerunAnswer; spentUsd?: number }> {
  const call = rerunCallInput(recorded, model, {
    ...(input.retry !== undefined ? { retry: input.retry } : {}),
    ...(maxCostUsd !== undefined ? { budget: { maxCostUsd } } : {}),
  });
  try {
    const result = await executeChild(modelCallWorkflow, {
      workflowId: childId,
      args: [call],
      // A rerun that ends (cancelled, failed) asks its children to cancel: they end CANCELED, never terminated.
      parentClosePolicy: ParentClosePolicy.REQUEST_CANCEL,
      memo: { [RERUN_MEMO_KEY]: recorded.source },
    });
    const answer = answerOf({
      workflowId: childId,
      attempts: result.attempts,
      output: result.output,
      pricing,
    });
    return { answer, ...(result.spent ? { spentUsd: result.spent.costUsd } : {}) };
  } catch (error) {
    if (isCancellation(error)) throw error;
    const cause = error instanceof ChildWorkflowFailure ? error.cause : undefined;
    if (cause instanceof ApplicationFailure && cause.type === MODEL_CALL_FAILED) {
      const details = cause.details?.[0] as ModelCallFailedDetails | undefined;
      const answer = answerOf({
        workflowId: childId,
        attempts: details?.attempts ?? [],
        ...(details ? { stopReason: details.stopReason } : {}),
        model,
        pricing,
      });
      return { answer, ...(details?.spent ? { spentUsd: details.spent.costUsd } : {}) };
    }
    // Refused before any attempt (the request cannot go to this model: a provider-bound tool), or ended otherwise.
    const answer = answerOf({
      workflowId: childId,
      attempts: [],
      stopReason: 'non-retryable',
      message: (cause ?? (error as Error)).message,
      model,
      pricing,
    });
    return { answer, spentUsd: 0 };
  }
}
