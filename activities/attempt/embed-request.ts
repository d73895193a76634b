/**
 * The attempt of an embedding call (`request.embed`): one `doEmbed` of the backend's AI SDK embedding model, with
 * the attempt's own time, slots, abort signal and `X-Request-Id`, its failures classified exactly as a language
 * model's (`observeError` and the provider's documented patterns). The vectors come back as base64 of Float32
 * (little-endian), so the payload store can move a large result; usage is the provider's token count.
 */
import type { EmbeddingModelV4Result, LanguageModelV4GenerateResult } from '@ai-sdk/provider';
import { TooManyEmbeddingValuesForCallError } from '@ai-sdk/provider';
import type { ModelRequestInput, ModelRequestResult, Usage } from '../../common/attempt.js';
import { vectorToBase64 } from '../../common/embedding.js';
import { toWire } from '../../common/request.js';
import { MisconfiguredError, parseModelName } from '../providers/registry.js';
import type { ProviderRegistry, ResolvedEmbeddingModel } from '../providers/registry.js';
import { ProvidersConfigError } from '../providers/config.js';
import { clearToSend } from './attempt-time.js';
import { observeError } from './classify-error.js';
import type { ObservedError } from './classify-error.js';
import type { InFlightLimits } from './in-flight.js';
import { requestSignal } from './request-signal.js';
import { responseOf } from './result.js';

/** What the embedding attempt takes from the attempt activity around it. */
export interface EmbedAttempt {
  providers: () => ProviderRegistry;
  now: () => number;
  inFlight: InFlightLimits | undefined;
  onHeaders: ((input: ModelRequestInput, headers: Readonly<Record<string, string>>) => void) | undefined;
  /** The activity's cancellation. */
  cancellation: AbortSignal;
  startedAt: string;
  /** The credentials of the resolved model, for the activity's scrubbing of every message. */
  useSecrets(secrets: readonly string[]): void;
  /** The activity's classified failure of an observation (usage: what a billed answer reported). */
  failed(observed: ObservedError, answer?: { usage?: Usage }): Error;
  /** The activity's failure for its own cancellation (or the worker's shutdown). */
  cancelled(): Error;
  /** The header that joins both sides' logs, and its value. */
  requestId: [string, string];
}

/** One embedding attempt: its vectors, or a classified failure. */
export async function embedAttempt(input: ModelRequestInput, at: EmbedAttempt): Promise<ModelRequestResult> {
  const embed = input.request.embed;
  if (embed === undefined) throw new TypeError('embedAttempt: the request has no `embed`');
  const resolved = resolveEmbedding(at.providers, input.model);
  if ('observation' in resolved) throw at.failed(resolved);
  at.useSecrets(resolved.secrets);
  if (input.costBudget === true && resolved.pricing === undefined) {
    const { provider, modelId } = parseModelName(input.model);
    throw at.failed({
      observation: { misconfigured: true },
      message:
        `the call has a cost budget (budget.maxCostUsd) but model "${input.model}" has no \`pricing\` in the ` +
        `providers file: add "models": { "${modelId}": { "pricing": { "inputPerMTok": ..., "outputPerMTok": 0 } } } ` +
        `to provider "${provider}", or use a token budget`,
    });
  }
  const clear = await clearToSend(at.inFlight, input, at.cancellation, at.now).catch((error: unknown) => {
    throw at.cancellation.aborted ? at.cancelled() : error;
  });
  if ('observation' in clear) throw at.failed(clear);
  const request = requestSignal(at.cancellation, clear.leftMs);
  let result: EmbeddingModelV4Result;
  try {
    const [header, id] = at.requestId;
    result = await resolved.model.doEmbed({
      values: embed.values,
      ...(embed.dimensions !== undefined ? { dimensions: embed.dimensions } : {}),
      abortSignal: request.signal,
      headers: { ...input.request.headers, [header]: id },
      ...(input.request.providerOptions !== undefined
        ? { providerOptions: input.request.providerOptions as never }
        : {}),
    });
  } catch (error) {
    if (at.cancellation.aborted) throw at.cancelled();
    if (request.stoppedBy() === 'timeout') {
      throw at.failed({
        observation: { requestTimedOut: true },
        message: `no complete answer within ${clear.timeoutMs} ms (the attempt's request timeout)`,
      });
    }
    throw at.failed(observeEmbedError(resolved, error));
  } finally {
    request.dispose();
    clear.release();
  }
  const usage = usageOf(result);
  if (result.embeddings.length !== embed.values.length) {
    throw at.failed(
      {
        observation: { status: 200, bodyComplete: true, parseFailed: true },
        message: `the provider answered ${result.embeddings.length} vectors for ${embed.values.length} texts`,
      },
      usage === undefined ? {} : { usage },
    );
  }
  const headers = result.response?.headers as Record<string, string> | undefined;
  if (headers !== undefined) at.onHeaders?.(input, headers);
  // `responseOf` reads only the response's id, model id, time and headers (the allow-list): no body is kept.
  const response = responseOf({ response: { headers } } as LanguageModelV4GenerateResult);
  return {
    text: '',
    toolCalls: [],
    finishReason: 'stop',
    embeddings: result.embeddings.map(vectorToBase64),
    ...(result.warnings.length > 0 ? { warnings: toWire(result.warnings) as unknown[] } : {}),
    ...(response ? { response } : {}),
    ...(result.providerMetadata !== undefined
      ? { providerMetadata: toWire(result.providerMetadata) as Record<string, Record<string, unknown>> }
      : {}),
    ...(usage === undefined ? {} : { usage }),
    provider: resolved.provider,
    startedAt: at.startedAt,
    endedAt: new Date(at.now()).toISOString(),
  };
}

/** The tokens the provider counted (an embedding reads input only), when it reported them. */
function usageOf(result: EmbeddingModelV4Result): Usage | undefined {
  const tokens = result.usage?.tokens;
  if (typeof tokens !== 'number' || !Number.isFinite(tokens)) return undefined;
  return { inputTokens: tokens, totalTokens: tokens };
}

/**
 * A failed `doEmbed`, classified as a language model's failure is. More texts than the provider's SDK takes in
 * one request (`maxEmbeddingsPerCall` set above the model's own) is refused before sending: `Misconfigured`.
 */
function observeEmbedError(resolved: ResolvedEmbeddingModel, error: unknown): ObservedError {
  if (TooManyEmbeddingValuesForCallError.isInstance(error)) {
    return {
      observation: { misconfigured: true },
      message:
        `${error.message}: give durableEmbeddingModel \`maxEmbeddingsPerCall: ${error.maxEmbeddingsPerCall}\` ` +
        '(nothing was sent)',
    };
  }
  const observed = observeError(error);
  if (resolved.refineObservation === undefined) return observed;
  return { observation: resolved.refineObservation(error, observed.observation), message: observed.message };
}

/** The embedding model, or the observation of why the worker cannot make the request (`Misconfigured`). */
function resolveEmbedding(
  providers: () => ProviderRegistry,
  model: string,
): ResolvedEmbeddingModel | ObservedError {
  try {
    const registry = providers();
    if (registry.resolveEmbedding === undefined) {
      return {
        observation: { misconfigured: true },
        message: `the worker's provider registry resolves no embedding models (model "${model}")`,
      };
    }
    return registry.resolveEmbedding(model);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (error instanceof MisconfiguredError || error instanceof ProvidersConfigError) {
      return { observation: { misconfigured: true }, message };
    }
    return { observation: {}, message };
  }
}
