import type { WorkflowStream } from '@temporalio/workflow-streams/workflow';
import type { ResolvedPlan } from '../../policy/index.js';
import type { SharedNotBefore } from '../../policy/shared-not-before.js';
import type { AttemptRecord, CallStatus } from '../../common/call.js';
import type { SpentBefore } from './budget-watch.js';

/**
 * What a caller that runs several calls under one budget (an agent turn) shares with each call. Without
 * options, `callModel` behaves exactly as before.
 */
export interface CallModelOptions {
  /**
   * The resolved plan to use instead of `input.retry` (which is then ignored), e.g. an agent turn's, whose
   * absolute deadline and reserve all its calls share. It is read at every decision, so a later deadline set on
   * the same object (the turn's `extendDeadline`) counts from the call's next decision; an attempt already in
   * flight keeps the timeouts it was scheduled with.
   */
  plan?: ResolvedPlan;
  /**
   * Retry-after not-before times by model name, shared by every call given the same object: read when the call
   * starts (a backend still inside a retry-after is skipped, or waited for) and updated after every decision.
   */
  notBefore?: SharedNotBefore;
  /** Called once the call has its id, with its status and records, which the call keeps updating in place. */
  onStart?: (call: { callId: string; status: CallStatus; records: AttemptRecord[] }) => void;
  /**
   * The workflow's own `WorkflowStream`, when it made one: a streamed call publishes into it (a workflow has one
   * stream). Without it, the call uses the stream model-retry creates for the workflow (`workflowStream()`).
   */
  stream?: WorkflowStream;
  /**
   * What was spent before this call under the same budget (an agent turn's earlier calls): the call's
   * `input.budget` then bounds the total.
   */
  spentBefore?: SpentBefore;
  /**
   * The call's tenant when `input.tenant` does not name one (see `ModelCallInput.tenant`): its attempts carry it as
   * Temporal's fairness key, with the weight the worker's tenants file gives it. Nothing is set on the calling
   * workflow (its search attributes, its own priority).
   */
  tenant?: string;
}

/**
 * What model-retry's own agent turn passes besides (not public: a wrong count would mis-size the history and
 * payload checks, so users' calls always count for themselves).
 */
export interface TurnCallOptions extends CallModelOptions {
  /**
   * The UTF-8 JSON bytes of `input.messages`, which the turn counts as its conversation grows (not again at
   * every step); ignored when `input` has a `system` or a `prompt`.
   */
  messagesBytes?: number;
}
