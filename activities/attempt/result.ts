/**
 * A successful `doGenerate` as the attempt's result, or the reason a 2xx answer is still a failure
 * (a content-filter finish, no content at all).
 */
import type { LanguageModelV4GenerateResult } from '@ai-sdk/provider';
import { FailureClass, classify } from '../../policy/index.js';
import type { ObservedError } from './classify-error.js';
import type { AttemptTimes } from './attempt-failure.js';
import type { AnswerResponse, ModelRequestResult, ToolCall, Usage } from '../../common/attempt.js';
import { toWire } from '../../common/request.js';
import type { WireContent } from '../../common/request.js';
import { usageFromSdk } from '../providers/usage.js';
import type { ResolvedModel } from '../providers/registry.js';

/** The text parts, joined. */
export function textOf(result: LanguageModelV4GenerateResult): string {
  return result.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('');
}

/** The tool calls the caller must run (provider-executed ones are not the caller's). */
export function toolCallsOf(result: LanguageModelV4GenerateResult): ToolCall[] {
  return result.content.flatMap((part) =>
    part.type === 'tool-call' && part.providerExecuted !== true
      ? [{ id: part.toolCallId, name: part.toolName, args: part.input }]
      : [],
  );
}

/**
 * Why a 2xx answer is unusable, or `undefined` when it is usable. A content-filter finish reason (unified
 * `content-filter`, or a raw reason the policy knows such as `refusal`) fails as `ContentFiltered`, even with
 * partial text. An answer with neither text nor tool calls has no content: the policy makes it `OutputLimit`
 * when it stopped at the output limit (the same request would end the same way), else `ParseFailed`. An answer
 * that stopped at the limit with content is a success (its record says `finishReason: 'length'`). An attempt that
 * continues a cut stream (`continuing`) and adds nothing but finishes normally (`stop`) is usable: the model says
 * the delivered text was whole.
 */
export function unusableAnswer(
  result: LanguageModelV4GenerateResult,
  continuing = false,
): ObservedError | undefined {
  const { unified, raw } = result.finishReason;
  const finishReason = unified === 'content-filter' ? unified : raw;
  const reason = raw ?? unified;
  if (finishReason !== undefined && classify({ finishReason }) === FailureClass.ContentFiltered) {
    return {
      observation: { status: 200, finishReason },
      message: `the provider stopped on content policy (finish reason ${reason})`,
    };
  }
  if (textOf(result) === '' && toolCallsOf(result).length === 0) {
    if (continuing && unified === 'stop') return undefined;
    // The unified reason says `length` for every family; the raw one is kept for the record's message.
    const observation = {
      status: 200,
      bodyComplete: true,
      noContent: true,
      finishReason: unified === 'length' ? unified : reason,
    };
    if (classify(observation) === FailureClass.OutputLimit) {
      return {
        observation,
        message: `the answer stopped at the output token limit (finish reason ${reason}) with neither text nor tool calls: raise settings.maxOutputTokens or use another model`,
      };
    }
    return { observation, message: `the answer had neither text nor tool calls (finish reason ${reason})` };
  }
  return undefined;
}

/** The usage the provider reported, read by the provider's own reader when it has one. */
export function usageOf(resolved: ResolvedModel, result: LanguageModelV4GenerateResult): Usage | undefined {
  return (resolved.usage ?? usageFromSdk)(result);
}

/** The attempt's result: text, tool calls, finish reason, and only what the provider reported of the rest. */
export function successOf(
  result: LanguageModelV4GenerateResult,
  resolved: ResolvedModel,
  times: AttemptTimes,
): ModelRequestResult {
  const usage = usageOf(resolved, result);
  const cost = resolved.cost?.(result);
  const responseId = result.response?.id;
  const responseModel = result.response?.modelId;
  const response = responseOf(result);
  const raw = result.finishReason.raw;
  return {
    text: textOf(result),
    toolCalls: toolCallsOf(result),
    finishReason: result.finishReason.unified,
    content: toWire(result.content) as WireContent[],
    ...(raw !== undefined ? { rawFinishReason: raw } : {}),
    ...(result.warnings.length > 0 ? { warnings: toWire(result.warnings) as unknown[] } : {}),
    ...(response ? { response } : {}),
    ...(result.providerMetadata !== undefined
      ? { providerMetadata: toWire(result.providerMetadata) as Record<string, Record<string, unknown>> }
      : {}),
    ...(usage === undefined ? {} : { usage }),
    ...(responseId === undefined ? {} : { responseId }),
    ...(responseModel ? { responseModel } : {}),
    provider: resolved.provider,
    ...(cost === undefined ? {} : { cost }),
    startedAt: times.startedAt,
    endedAt: times.endedAt,
  };
}

/**
 * Response headers an answer keeps: request ids, rate limits and retry-after. Everything else a provider sends
 * (cookies, internal routing, tokens an odd proxy echoes) stays out of the history.
 */
const KEPT_HEADER =
  /^(x-request-id|request-id|x-amzn-requestid|cf-ray|openai-processing-ms|openai-model|retry-after(-ms)?|x-ratelimit-.*|anthropic-ratelimit-.*|x-should-retry)$/i;

/** The response's metadata: id, the provider's model id, its time, and allow-listed headers. */
export function responseOf(result: LanguageModelV4GenerateResult): AnswerResponse | undefined {
  const r = result.response;
  if (r === undefined) return undefined;
  const headers = Object.entries(r.headers ?? {}).filter(
    (entry): entry is [string, string] => typeof entry[1] === 'string' && KEPT_HEADER.test(entry[0]),
  );
  const timestamp =
    r.timestamp instanceof Date && !Number.isNaN(r.timestamp.getTime()) ? r.timestamp : undefined;
  const out: AnswerResponse = {
    ...(r.id !== undefined ? { id: r.id } : {}),
    ...(r.modelId !== undefined ? { modelId: r.modelId } : {}),
    ...(timestamp ? { timestamp: timestamp.toISOString() } : {}),
    ...(headers.length > 0 ? { headers: Object.fromEntries(headers) } : {}),
  };
  return Object.keys(out).length > 0 ? out : undefined;
}
