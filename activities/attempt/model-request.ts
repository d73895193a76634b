/**
 * The attempt activity: one model request through the AI SDK's single request (`doGenerate`), so no SDK retry
 * runs beneath the workflow's. It heartbeats `{ startedAt }` while it waits, aborts its request when its
 * timeout T runs out or when the activity is cancelled, and turns every failure into a classified,
 * non-retryable `ApplicationFailure` (see `attempt-failure.ts`).
 */
import type { LanguageModelV4GenerateResult } from '@ai-sdk/provider';
import { Context } from '@temporalio/activity';
import { ObservedPhase } from '../../policy/index.js';
import { attemptFailure, failureDetails } from './attempt-failure.js';
import type { AttemptTimes } from './attempt-failure.js';
import { cancellationOutcome } from '../cancellation.js';
import { observeError } from './classify-error.js';
import type { ObservedError } from './classify-error.js';
import { answerFacts, definedOnly, refine, refusedRequest } from './answer-facts.js';
import type { AnswerFacts } from './answer-facts.js';
import { startHeartbeat } from '../heartbeat.js';
import { markSending } from '../sending.js';
import type {
  AttemptHeartbeat,
  ContinuationFacts,
  ModelRequestInput,
  ModelRequestResult,
} from '../../common/attempt.js';
import { decodeRequest, requestTexts } from './prompt.js';
import {
  defaultDownload,
  FileDownloadFailed,
  observeDownloadError,
  shownUrl,
  withDownloadedFiles,
} from './file-downloads.js';
import type { DownloadFile } from './file-downloads.js';
import { forProvider, providerKeyOf } from './provider-bound.js';
import type { ProviderRegistry } from '../providers/registry.js';
import { noPricing, resolveModel } from './resolve-model.js';
import { requestSignal } from './request-signal.js';
import { knownSearchAttributesReady } from '../search-attributes.js';
import { successOf, unusableAnswer } from './result.js';
import {
  responseFormatOf,
  structuredAnswer,
  unusableSchema,
  withSchemaInstructions,
} from './structured-output.js';
import { createDeltaPublisher } from './delta-publisher.js';
import type { DeltaPublisher, StreamClientFactory } from './delta-publisher.js';
import { finishPart, observeStreamError, StreamErrorPart, streamAnswer } from './stream-answer.js';
import type { InFlightLimits, Release } from './in-flight.js';
import { clearToSend } from './attempt-time.js';
import { withoutRequestText } from '../scrub.js';
import { embedAttempt } from './embed-request.js';
import { continuationForm, continuationPrompt } from './continuation.js';
import { continuedAnswer, StreamGate } from './stream-gate.js';
import type { ContinuationForm } from './continuation.js';

/** The header that joins both sides' logs: `<workflowId>/<modelCallId>`. */
export const REQUEST_ID_HEADER = 'X-Request-Id';

/** What the attempt activity needs. */
export interface ModelRequestDeps {
  /** The registry; called at each request (so it may be loaded lazily, and a failed load retried). */
  providers: () => ProviderRegistry;
  /** The clock, in ms since the epoch. @default Date.now */
  now?: () => number;
  /** How a streamed attempt reaches its workflow's stream. @default the activity's own workflow */
  streamClient?: StreamClientFactory;
  /**
   * Sees the response headers of each attempt that got a response (fleet health reads rate-limit resets from
   * them), with the attempt's input.
   */
  onHeaders?: (input: ModelRequestInput, headers: Readonly<Record<string, string>>) => void;
  /** The process's `maxInFlight` semaphores. @default none: no backend is limited */
  inFlight?: InFlightLimits;
  /** How often the attempt heartbeats while it waits. @default HEARTBEAT_INTERVAL_MS */
  heartbeatIntervalMs?: number;
  /**
   * Downloads a file whose URL the model cannot take (`supportedUrls`). @default the AI SDK's `createDownload()`
   * (http(s) only, no private addresses, 100 MiB at most)
   */
  download?: DownloadFile;
}

/** Builds the `modelRequest` activity. */
export function createModelRequest(deps: ModelRequestDeps) {
  const now = deps.now ?? Date.now;

  /**
   * One attempt of a model call: resolves `input.model`, sends the request with `X-Request-Id`, and returns
   * the answer. Fails with a non-retryable `ApplicationFailure` whose `type` is the failure class; rethrows
   * the `CancelledFailure` when the workflow cancelled it; fails as `WorkerLost` when the worker shut down.
   * A streamed attempt (`input.stream`) publishes its text deltas as they arrive; whether any reached the
   * workflow is for the workflow to tell from its stream log, so the failure is classified as usual.
   * An attempt with `input.continuation` asks the model to continue that text (see `continuation.ts`) and
   * reports how (`continuation`) on its result and on its failure.
   */
  return async function modelRequest(input: ModelRequestInput): Promise<ModelRequestResult> {
    const ctx = Context.current();
    const startedAt = new Date(now()).toISOString();
    const ready = knownSearchAttributesReady(ctx.info.namespace);
    const sa = ready === undefined ? {} : { searchAttributesReady: ready };
    const stopHeartbeat = startHeartbeat(
      ctx,
      { startedAt } satisfies AttemptHeartbeat,
      deps.heartbeatIntervalMs,
    );
    let secrets: readonly string[] = [];
    let release: Release | undefined;
    const delivered = input.continuation?.text ?? '';
    // How this attempt asks to continue, once known; the gate of its last request says what it left out.
    let asked: Omit<ContinuationFacts, 'trimmed'> | undefined;
    let gate: StreamGate | undefined;
    const continuation = (): { continuation: ContinuationFacts } | Record<string, never> => {
      if (asked === undefined) return {};
      const trimmed = gate?.trimmed ?? 0;
      return { continuation: { ...asked, ...(trimmed > 0 ? { trimmed } : {}) } };
    };
    const publisher: DeltaPublisher | undefined = input.stream
      ? createDeltaPublisher(input.modelCallId, input.stream.batchMs, deps.streamClient)
      : undefined;
    const failed = (observed: ObservedError, answer: AnswerFacts = {}): Error => {
      const endMs = now();
      if (observed.observation.headers !== undefined) deps.onHeaders?.(input, observed.observation.headers);
      const times: AttemptTimes = { startedAt, endedAt: new Date(endMs).toISOString() };
      const texts = requestTexts(input.request);
      const message = withoutRequestText(observed.message, delivered === '' ? texts : [...texts, delivered]);
      const details = failureDetails(observed.observation, message, secrets, times, endMs);
      return attemptFailure({ ...details, ...definedOnly(answer), ...continuation(), ...sa });
    };
    const cancelled = (): Error => {
      const outcome = cancellationOutcome(ctx);
      if (outcome.kind === 'cancelled') return outcome.failure;
      return failed({
        observation: { workerShutdown: true },
        message: 'the worker shut down while the request was in flight',
      });
    };

    try {
      if (ctx.cancellationSignal.aborted) throw cancelled();
      if (input.request.embed !== undefined) {
        const answer = await embedAttempt(input, {
          providers: deps.providers,
          now,
          inFlight: deps.inFlight,
          onHeaders: deps.onHeaders,
          cancellation: ctx.cancellationSignal,
          startedAt,
          useSecrets: (given) => void (secrets = given),
          failed,
          cancelled,
          requestId: [REQUEST_ID_HEADER, `${input.workflowId}/${input.modelCallId}`],
        });
        return { ...answer, ...sa };
      }
      const resolved = resolveModel(deps.providers, input.model);
      if ('observation' in resolved) throw failed(resolved);
      // How it asks to continue is known from the model and the request: every failure from here says it.
      const form: ContinuationForm | undefined =
        delivered === '' ? undefined : continuationForm(resolved.prefill === true, input.request, delivered);
      if (form !== undefined) asked = { form };
      if (input.costBudget === true && resolved.pricing === undefined) throw failed(noPricing(input.model));
      secrets = resolved.secrets;
      const schema = input.output?.schema;
      const badSchema = schema === undefined ? undefined : unusableSchema(schema);
      if (badSchema !== undefined) throw failed(badSchema);

      // The request timeout counts from here, not from when the attempt was scheduled (it may have waited in its
      // rate-limit queue), within the call's deadline. Waiting for a slot heartbeats (started above) and counts;
      // with less than minAttemptMs left after it, nothing is sent.
      const clear = await clearToSend(deps.inFlight, input, ctx.cancellationSignal, now).catch(
        (error: unknown) => {
          throw ctx.cancellationSignal.aborted ? cancelled() : error;
        },
      );
      if ('observation' in clear) throw failed(clear);
      release = clear.release;
      const { timeoutMs } = clear;
      const request = requestSignal(ctx.cancellationSignal, clear.leftMs);
      // Reasoning bound to another provider of the chain stays out; a file only another provider holds is this
      // backend's misconfiguration (it is dropped), found before anything is sent.
      const { prompt: given, headers, ...rest } = decodeRequest(input.request);
      const type = deps.providers().configOf?.(resolved.provider)?.type;
      const bound = forProvider(given, providerKeyOf(resolved.model.provider, type));
      if ('unreachable' in bound) {
        request.dispose();
        throw failed({ observation: { misconfigured: true }, message: bound.unreachable });
      }
      // A file the model cannot take by URL is downloaded now, within the attempt's time (nothing is sent yet).
      let prompt = bound.prompt;
      try {
        // A model that states none (a hand-made one) is taken to accept no URL, as the AI SDK would treat `{}`.
        const supportedUrls = (await resolved.model.supportedUrls) ?? {};
        prompt = await withDownloadedFiles(
          prompt,
          supportedUrls,
          deps.download ?? defaultDownload,
          request.signal,
        );
      } catch (error) {
        request.dispose();
        if (ctx.cancellationSignal.aborted) throw cancelled();
        if (!(error instanceof FileDownloadFailed)) throw failed(observeError(error));
        throw failed(
          request.stoppedBy() === 'timeout'
            ? {
                observation: { phase: ObservedPhase.BeforeSend },
                message: `the file at ${shownUrl(error.url)} was not downloaded within ${timeoutMs} ms (the attempt's request timeout)`,
              }
            : observeDownloadError(error),
        );
      }
      let result: LanguageModelV4GenerateResult;
      const holdToolInput = input.stream?.onCut === 'continue';
      // One request; a continuation's prompt is the original with the delivered text after it.
      const ask = async (how: ContinuationForm | undefined): Promise<LanguageModelV4GenerateResult> => {
        const asking = how === undefined ? prompt : continuationPrompt(prompt, delivered, how);
        const instructed = schema !== undefined && resolved.jsonSchemaMode === 'json-object';
        const options = {
          ...rest,
          prompt: instructed ? withSchemaInstructions(asking, schema) : asking,
          ...(schema === undefined ? {} : responseFormatOf(schema)),
          abortSignal: request.signal,
          headers: { ...headers, [REQUEST_ID_HEADER]: `${input.workflowId}/${input.modelCallId}` },
        };
        const asks = new StreamGate({
          ...(how === undefined ? {} : { continuation: { text: delivered, form: how } }),
          holdToolInput,
        });
        gate = asks;
        if (publisher) return streamAnswer(resolved.model, options, publisher, asks);
        // A whole answer (not streamed) continues the text by the same head rule as a stream.
        const whole = await resolved.model.doGenerate(options);
        return how === undefined ? whole : continuedAnswer(whole, asks);
      };
      try {
        markSending(ctx);
        try {
          result = await ask(form);
        } catch (error) {
          // A model that refuses the prefill (a 400 before the stream began: nothing of it was published) is
          // asked once more at once, within this attempt, with an instruction.
          if (form !== 'prefill' || !refusedRequest(resolved, error) || ctx.cancellationSignal.aborted)
            throw error;
          asked = { form: 'instruction', prefillRefused: true };
          result = await ask('instruction');
        }
      } catch (error) {
        await publisher?.abandon();
        if (ctx.cancellationSignal.aborted) throw cancelled();
        if (request.stoppedBy() === 'timeout') {
          throw failed({
            observation: { requestTimedOut: true },
            message: `no complete answer within ${timeoutMs} ms (the attempt's request timeout)`,
          });
        }
        const observed =
          error instanceof StreamErrorPart
            ? observeStreamError(error, resolved.streamErrorStatus)
            : observeError(error);
        throw failed(refine(resolved, error, observed));
      } finally {
        request.dispose();
      }

      const unusable = unusableAnswer(result, asked !== undefined);
      // A 2xx that is still a failure was billed: its usage goes with the failure.
      if (unusable !== undefined) {
        await publisher?.abandon();
        throw failed(unusable, answerFacts(resolved, result));
      }
      const structured = schema === undefined ? {} : structuredAnswer(result, schema, secrets);
      if ('failure' in structured) {
        throw failed(structured.failure, { ...answerFacts(resolved, result), mismatch: structured.mismatch });
      }
      // The caller's stream holds the whole answer, its finish last, before the attempt reports it.
      publisher?.add('', finishPart(result));
      await publisher?.finish();
      if (result.response?.headers !== undefined)
        deps.onHeaders?.(input, result.response.headers as Record<string, string>);
      const success = successOf(result, resolved, { startedAt, endedAt: new Date(now()).toISOString() });
      return { ...success, ...structured, ...continuation(), ...sa };
    } finally {
      release?.();
      stopHeartbeat();
    }
  };
}
