/**
 * A successful `doGenerate` as the attempt's result, or the reason a 2xx answer is still a failure
 * (a content-filter finish, no content at all).
 */
import type { LanguageModelV4GenerateResult } from '@ai-sdk/provider';
import { FailureClass, classify } from '../../policy/index.js';
import type { ObservedError } from './classify-error.js';
import type { AttemptTimes } from './attempt-failure.js';
import type { ModelRequestResult, ToolCall, Usage } from '../../common/attempt.js';
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
 * that stopped at the limit with content is a success (its record says `finishReason: 'length'`).
 */
export function unusableAnswer(result: LanguageModelV4GenerateResult): ObservedError | undefined {
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
  return {
    text: textOf(result),
    toolCalls: toolCallsOf(result),
    finishReason: result.finishReason.unified,
    ...(usage === undefined ? {} : { usage }),
    ...(responseId === undefined ? {} : { responseId }),
    ...(responseModel ? { responseModel } : {}),
    provider: resolved.provider,
    ...(cost === undefined ? {} : { cost }),
    startedAt: times.startedAt,
    endedAt: times.endedAt,
  };
}
