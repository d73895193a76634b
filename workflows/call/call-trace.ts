/**
 * A call's spans, made in workflow code with the tracer that `@temporalio/interceptors-opentelemetry`'s
 * workflow interceptors install in the sandbox. Their spans leave the sandbox only through that package's
 * `exporter` sink, which Temporal does not call while a workflow replays: a span ended during replay (the part
 * of a call a restarted worker re-executes) was exported, if at all, by the worker that first ran it, and is
 * never exported twice. With model-retry's tracing (`startTracing`), span ids come from the run's own sequence
 * (`workflows/tracing/span-ids.ts`), not the workflow's random: a span begun on one worker and ended on another
 * after a restart keeps its id, and the backoff jitter is the same with tracing on or off. Without the interceptors
 * (a user's worker without tracing) no span is made at all (`tracingOff`).
 *
 * Attributes follow the OpenTelemetry GenAI conventions and carry no prompt, answer or key: only names, counts,
 * classes and reasons from the attempt records.
 */
import { context, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { Attributes, Context, Span } from '@opentelemetry/api';
import type { ModelRequestResult } from '../../common/attempt.js';
import type { AttemptRecord } from '../../common/call.js';
import type { Decision, StopDecision } from '../../policy/index.js';
import { billedTotals } from '../../common/ledger/billed.js';
import { modelRetryTracer, tracingOff } from '../tracing/tracer.js';

const tracer = modelRetryTracer;

/**
 * `provider:model` as the conventions name it: `gen_ai.request.model`, and `gen_ai.provider.name` the well-known
 * value of the provider's type (`openai`, `anthropic`, `gcp.gemini`: `providers`, from the worker's config), absent
 * for a type without one; model-retry's own provider name goes in `model_retry.provider`.
 */
function modelAttributes(model: string, providers: Readonly<Record<string, string>>): Attributes {
  const colon = model.indexOf(':');
  if (colon < 0) return { 'gen_ai.request.model': model };
  const provider = model.slice(0, colon);
  const known = Object.hasOwn(providers, provider) ? providers[provider] : undefined;
  return {
    ...(known !== undefined ? { 'gen_ai.provider.name': known } : {}),
    'model_retry.provider': provider,
    'gen_ai.request.model': model.slice(colon + 1),
  };
}

/** The usage a record reports, under the conventions' names; absent counts stay absent. */
function usageAttributes(usage: AttemptRecord['usage']): Attributes {
  return {
    ...(usage?.inputTokens !== undefined ? { 'gen_ai.usage.input_tokens': usage.inputTokens } : {}),
    ...(usage?.outputTokens !== undefined ? { 'gen_ai.usage.output_tokens': usage.outputTokens } : {}),
  };
}

/** One call's span (`callModel <callId>`) and the spans of its attempts (`chat <model>`), children of it. */
export class CallTrace {
  private readonly span: Span | undefined;
  private readonly context: Context | undefined;
  private ended = false;

  constructor(
    private readonly callId: string,
    backends: readonly string[],
    private readonly providers: Readonly<Record<string, string>> = {},
    /** The conventions' operation: `chat`, or `embeddings` for an embedding call. */
    private readonly operation: 'chat' | 'embeddings' = 'chat',
  ) {
    // Tracing off (see `tracingOff`): no span, no attributes, and the attempt runs in the context it is in.
    if (tracingOff()) return;
    this.span = tracer().startSpan(`callModel ${callId}`, {
      kind: SpanKind.INTERNAL,
      attributes: {
        'gen_ai.operation.name': operation,
        ...modelAttributes(backends[0] ?? '', providers),
        'model_retry.call.id': callId,
        'model_retry.call.backends': [...backends],
      },
    });
    this.context = trace.setSpan(context.active(), this.span);
  }

  /** Notes the wait `decision` is about to make, with its cause: the attempt before it and what it met. */
  waiting(decision: Decision, before: AttemptRecord | undefined): void {
    if (!this.span || decision.kind !== 'attempt' || decision.waitMs <= 0) return;
    const failure = before?.failure;
    this.span.addEvent('model_retry.wait', {
      'model_retry.wait.ms': decision.waitMs,
      'model_retry.wait.cause': failure?.class ?? 'retry-after',
      ...(failure?.action ? { 'model_retry.wait.action': failure.action } : {}),
      ...(failure?.status !== undefined ? { 'model_retry.wait.status': failure.status } : {}),
      ...(failure?.retryAfterMs !== undefined
        ? { 'model_retry.wait.retry_after_ms': failure.retryAfterMs }
        : {}),
      ...(before ? { 'model_retry.wait.after_attempt': before.modelCallId } : {}),
    });
  }

  /**
   * Runs `run` (the attempt's activity) inside the attempt's span, so that the interceptor's `StartActivity`
   * span and the activity's own spans are its children; `done` ends the span from the finished record. Returns
   * `run`'s own promise, not one wrapping it: every promise costs a replay a stack trace (Temporal's hook).
   */
  attempt<T>(record: AttemptRecord, run: () => Promise<T>): { value: Promise<T>; done: AttemptDone } {
    if (!this.context) return { value: run(), done: untraced };
    const span = tracer().startSpan(
      `${this.operation} ${modelAttributes(record.model, this.providers)['gen_ai.request.model'] as string}`,
      {
        kind: SpanKind.CLIENT,
        attributes: {
          'gen_ai.operation.name': this.operation,
          ...modelAttributes(record.model, this.providers),
          'model_retry.call.id': this.callId,
          'model_retry.attempt': record.attempt,
          'model_retry.attempt.id': record.modelCallId,
          'model_retry.backend': record.backend,
        },
      },
      this.context,
    );
    const value = context.with(trace.setSpan(this.context, span), run);
    return { value, done: (result) => endAttempt(span, record, result) };
  }

  /** Ends the call's span with its stop reason (and the class of the last failure when it did not succeed). */
  stopped(decision: StopDecision, records: readonly AttemptRecord[]): void {
    if (!this.span || this.ended) return;
    this.ended = true;
    const last = records.at(-1);
    const totals = billedTotals(records);
    this.span.setAttributes({
      'model_retry.stop_reason': decision.reason,
      'model_retry.attempts': records.length,
      ...(totals.inputTokens !== undefined ? { 'model_retry.billed.input_tokens': totals.inputTokens } : {}),
      ...(totals.outputTokens !== undefined
        ? { 'model_retry.billed.output_tokens': totals.outputTokens }
        : {}),
    });
    if (decision.reason === 'succeeded' && last) {
      this.span.setAttributes({
        ...usageAttributes(last.usage),
        ...(last.finishReason ? { 'gen_ai.response.finish_reasons': [last.finishReason] } : {}),
      });
    } else {
      this.span.setAttribute('error.type', last?.failure?.class ?? decision.reason);
      this.span.setStatus({ code: SpanStatusCode.ERROR, message: decision.reason });
    }
    this.span.end();
  }

  /** Ends the call's span when the call ended by an exception the loop did not expect. */
  abandoned(error: unknown): void {
    if (!this.span || this.ended) return;
    this.ended = true;
    this.span.setAttribute('error.type', error instanceof Error ? error.name : 'Error');
    this.span.setStatus({ code: SpanStatusCode.ERROR });
    this.span.end();
  }
}

/** Ends an attempt's span once its record is final (the answer, or the class and the action taken). */
export type AttemptDone = (result: ModelRequestResult | undefined) => void;

/** The `done` of an attempt without a span (tracing off). */
const untraced: AttemptDone = () => undefined;

function endAttempt(span: Span, record: AttemptRecord, result: ModelRequestResult | undefined): void {
  span.setAttributes({
    'model_retry.outcome': record.outcome,
    ...usageAttributes(record.usage),
    ...(result?.responseModel ? { 'gen_ai.response.model': result.responseModel } : {}),
    ...(record.responseId ? { 'gen_ai.response.id': record.responseId } : {}),
    ...(record.finishReason ? { 'gen_ai.response.finish_reasons': [record.finishReason] } : {}),
  });
  const failure = record.failure;
  if (failure) {
    span.setAttributes({
      'error.type': failure.class,
      ...(failure.action ? { 'model_retry.action': failure.action } : {}),
      ...(failure.status !== undefined ? { 'http.response.status_code': failure.status } : {}),
      ...(record.retryInMs !== undefined ? { 'model_retry.retry_in_ms': record.retryInMs } : {}),
    });
    span.setStatus({ code: SpanStatusCode.ERROR, message: failure.class });
  } else if (record.outcome === 'cancelled') {
    span.setAttribute('error.type', 'cancelled');
    span.setStatus({ code: SpanStatusCode.ERROR, message: 'cancelled' });
  }
  span.end();
}
