import type { WorkflowStream } from '@temporalio/workflow-streams/workflow';
import type { StopReason } from '../../policy/index.js';
import type { AttemptRecord } from '../../common/call.js';
import {
  adoptStream,
  closeAttempt,
  deliveredBy,
  existingStream,
  openAttempt,
  publishEvent,
  workflowStream,
} from '../stream.js';
import type { Delivered } from '../stream.js';
import type { StreamConfig } from '../../common/stream.js';

/**
 * One call's side of the workflow's stream: the attempt and stop events it publishes, and what each streamed
 * attempt delivered, read from the stream log when the attempt ends. A call that does not stream still
 * publishes its events when the workflow has a stream (a subscriber then sees that it ran).
 */
export class CallStream {
  private readonly stream: WorkflowStream | undefined;

  constructor(
    private readonly callId: string,
    /** The batch interval when the call streams, else `undefined`. */
    readonly config: StreamConfig | undefined,
    given: WorkflowStream | undefined,
  ) {
    if (given) this.stream = adoptStream(given);
    else this.stream = config ? workflowStream() : existingStream();
  }

  /** Publishes that the attempt of `record` starts. */
  attemptStarted(record: AttemptRecord): void {
    if (!this.stream) return;
    if (this.config) openAttempt(record.modelCallId);
    publishEvent(this.stream, {
      type: 'attempt',
      callId: this.callId,
      modelCallId: record.modelCallId,
      attempt: record.attempt,
      model: record.model,
    });
  }

  /**
   * What a streamed attempt delivered (the caller records it as `streamedDeltas`, last, as the history reader
   * does); `undefined` when the call does not stream. Deltas reach the log by signal before the attempt's own
   * result or failure does.
   */
  delivered(record: AttemptRecord): Delivered | undefined {
    if (!this.config || !this.stream) return undefined;
    closeAttempt(record.modelCallId);
    return deliveredBy(this.stream, record.modelCallId);
  }

  /** Publishes that the call stopped. */
  stopped(reason: StopReason, last: AttemptRecord | undefined): void {
    if (!this.stream) return;
    publishEvent(this.stream, {
      type: 'stop',
      callId: this.callId,
      stopReason: reason,
      ...(last ? { modelCallId: last.modelCallId } : {}),
    });
  }
}
