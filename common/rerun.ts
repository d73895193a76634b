/**
 * What a rerun compares: each recorded request (a call's first attempt, or an agent turn's step) beside what each
 * candidate backend answered to it. Plain JSON: the rerun workflow returns it, `rerunCalls` and the command line
 * print it, the HTML report renders it.
 */
import type { FailureClass, StopReason } from '../policy/index.js';
import type { ToolCall, Usage } from './attempt.js';

/** Where a rerun request was recorded. */
export interface RerunSource {
  workflowId: string;
  runId: string;
  /** The call in that workflow (`c1`, `c2`, ...). */
  callId: string;
  /** An agent turn's step (1-based) whose request this is; absent for a plain call. */
  step?: number;
}

/** What one backend answered to one request: the recorded original, or a candidate's rerun. */
export interface RerunAnswer {
  /** `provider:model` that answered (the original: the model of its last attempt). */
  model: string;
  /** The workflow holding this answer: the original run, or the rerun's child call. */
  workflowId: string;
  outcome: 'succeeded' | 'failed';
  /** The text parts, joined ('' when there were none). */
  text: string;
  toolCalls: ToolCall[];
  finishReason?: string;
  /** Summed over the call's attempts, as billed (the original's over its whole call, retries included). */
  usage?: Usage;
  /** From the providers file's prices (absent when the model has none). */
  costUsd?: number;
  /**
   * From the call's first attempt's start to its last one's end: the original's spans its whole call (its retries
   * and waits included), a candidate's its own call, so latencies compare calls, not single attempts.
   */
  latencyMs?: number;
  /** A failed answer: its stop reason and the last attempt's failure class. */
  stopReason?: StopReason;
  failureClass?: FailureClass;
  /** A failed answer with no attempt to name it (a candidate refused before its first attempt): why, in words. */
  message?: string;
  /**
   * The report would have passed Temporal's payload limit: `text` is only the beginning of the answer, whose whole
   * text is in the history of `workflowId` (its answered attempt's result).
   */
  textCut?: true;
}

/** One recorded request with the original answer and each candidate's. */
export interface RerunPair {
  source: RerunSource;
  original: RerunAnswer;
  /** One per candidate model, in the order the models were given. */
  candidates: RerunAnswer[];
}

/** A request that could not be rerun (its stored payload is gone, or it was an embedding), and why. */
export interface RerunSkipped {
  source: RerunSource;
  reason: string;
}

/** Totals per model over every pair (the originals' as `original`). */
export interface RerunModelTotals {
  /** `provider:model`, or `original` for the recorded answers. */
  model: string;
  requests: number;
  succeeded: number;
  failed: number;
  inputTokens?: number;
  outputTokens?: number;
  costUsd?: number;
  /** Mean and median latency over the succeeded answers, ms. */
  meanLatencyMs?: number;
  medianLatencyMs?: number;
  /** Answers whose text equals the original's exactly. */
  sameText: number;
  /** Answers whose tool calls (names and parsed arguments) equal the original's. */
  sameToolCalls: number;
}

/** A whole rerun: the rerun workflow's result. */
export interface RerunReport {
  /** The rerun's own workflow id (its history names what it reran). */
  rerunWorkflowId: string;
  startedAt: string;
  endedAt: string;
  /** The candidate models, in the order given. */
  models: string[];
  pairs: RerunPair[];
  skipped: RerunSkipped[];
  totals: RerunModelTotals[];
}
