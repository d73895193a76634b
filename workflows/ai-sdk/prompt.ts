/**
 * The AI SDK's request to a model (`LanguageModelV4CallOptions`) as a model call's input: the prompt as our
 * provider-neutral messages, function tools as tool definitions, settings, and a JSON answer as `output`.
 * What a call cannot carry (files, provider tools, other tool choices, provider options, headers, settings the
 * call has no field for) is refused, naming the AI SDK field and the fix: a request silently sent without part
 * of what the caller asked for would be a different request.
 */
import type {
  LanguageModelV4CallOptions,
  LanguageModelV4Message,
  LanguageModelV4ToolResultOutput,
} from '@ai-sdk/provider';
import type { ChatMessage, ModelSettings, ToolCall, ToolDefinition } from '../../common/attempt.js';
import { InvalidModelCallInputError } from '../call/input-error.js';

/** What one AI SDK request becomes in a call's input. */
export interface ConvertedRequest {
  messages: ChatMessage[];
  tools?: ToolDefinition[];
  settings?: ModelSettings;
  /** A JSON answer asked for (`generateObject`, `Output.object`): the structured-output field of the call. */
  output?: { schema: Record<string, unknown> };
}

const refuse = (field: string, message: string): never => {
  throw new InvalidModelCallInputError(field, message);
};

/** Settings the AI SDK may send that a model call has no field for. */
const UNCARRIED = ['topK', 'presencePenalty', 'frequencyPenalty'] as const;

/** Headers the AI SDK sets on every request itself (its user agent): not the caller's, so not refused. */
const AI_SDK_HEADERS = new Set(['user-agent']);

/** Converts one request; throws `InvalidModelCallInputError` for what it cannot carry. */
export function convertRequest(options: LanguageModelV4CallOptions): ConvertedRequest {
  for (const key of UNCARRIED) {
    if (options[key] !== undefined)
      refuse(key, 'a model-retry call does not carry this setting: leave it out');
  }
  if (options.reasoning !== undefined && options.reasoning !== 'provider-default') {
    refuse('reasoning', 'a model-retry call does not carry a reasoning effort yet: leave it out');
  }
  const headers = Object.entries(options.headers ?? {}).filter(
    ([name, v]) => v !== undefined && !AI_SDK_HEADERS.has(name.toLowerCase()),
  );
  if (headers.length > 0) {
    refuse(
      `headers.${headers[0]?.[0]}`,
      'request headers are set per provider in the worker (the providers file), not per call',
    );
  }
  if (Object.keys(options.providerOptions ?? {}).length > 0) {
    refuse(
      'providerOptions',
      'provider options are not carried into the call: configure the provider in the worker',
    );
  }
  const choice = options.toolChoice?.type;
  if (choice !== undefined && choice !== 'auto') {
    refuse(
      'toolChoice',
      `"${choice}" cannot be carried: a call lets the model choose (\`auto\`); leave it out`,
    );
  }
  const tools = convertTools(options.tools);
  const settings = convertSettings(options);
  const output = convertFormat(options.responseFormat);
  return {
    messages: options.prompt.flatMap((m, i) => convertMessage(m, i)),
    ...(tools ? { tools } : {}),
    ...(settings ? { settings } : {}),
    ...(output ? { output } : {}),
  };
}

function convertSettings(options: LanguageModelV4CallOptions): ModelSettings | undefined {
  const s: ModelSettings = {};
  if (options.maxOutputTokens !== undefined) s.maxOutputTokens = options.maxOutputTokens;
  if (options.temperature !== undefined) s.temperature = options.temperature;
  if (options.topP !== undefined) s.topP = options.topP;
  if (options.stopSequences !== undefined && options.stopSequences.length > 0)
    s.stopSequences = options.stopSequences;
  if (options.seed !== undefined) s.seed = options.seed;
  return Object.keys(s).length > 0 ? s : undefined;
}

function convertFormat(format: LanguageModelV4CallOptions['responseFormat']): ConvertedRequest['output'] {
  if (format === undefined || format.type === 'text') return undefined;
  if (format.schema === undefined) {
    return refuse(
      'responseFormat',
      'a JSON answer without a schema cannot be carried: give a schema (`generateObject`)',
    );
  }
  return { schema: format.schema as Record<string, unknown> };
}

function convertTools(tools: LanguageModelV4CallOptions['tools']): ToolDefinition[] | undefined {
  if (tools === undefined || tools.length === 0) return undefined;
  return tools.map((t) => {
    if (t.type !== 'function') {
      return refuse(
        `tools.${t.name}`,
        `provider-defined tools (${t.id}) are not supported: give a function tool`,
      );
    }
    return {
      name: t.name,
      ...(t.description !== undefined ? { description: t.description } : {}),
      inputSchema: t.inputSchema as Record<string, unknown>,
    };
  });
}

function convertMessage(m: LanguageModelV4Message, i: number): ChatMessage[] {
  const at = `prompt[${i}]`;
  switch (m.role) {
    case 'system':
      return [{ role: 'system', content: m.content }];
    case 'user':
      return [{ role: 'user', content: textOf(m.content, at) }];
    case 'assistant':
      return [assistantMessage(m.content, at)];
    case 'tool':
      return m.content.flatMap((part, j) =>
        // An approval answer is the AI SDK's own bookkeeping: providers never see it.
        part.type === 'tool-result'
          ? [
              {
                role: 'tool' as const,
                toolCallId: part.toolCallId,
                toolName: part.toolName,
                ...resultOf(part.output, `${at}.content[${j}]`),
              },
            ]
          : [],
      );
  }
}

type AssistantPart = Extract<LanguageModelV4Message, { role: 'assistant' }>['content'][number];

function assistantMessage(parts: AssistantPart[], at: string): ChatMessage {
  let content = '';
  const toolCalls: ToolCall[] = [];
  parts.forEach((part, j) => {
    const field = `${at}.content[${j}]`;
    if (part.type === 'text') content += part.text;
    else if (part.type === 'tool-call') {
      if (part.providerExecuted === true) refuse(field, 'a provider-executed tool call cannot be carried');
      const args = typeof part.input === 'string' ? part.input : JSON.stringify(part.input ?? {});
      toolCalls.push({ id: part.toolCallId, name: part.toolName, args });
    } else if (part.type !== 'reasoning') {
      // Reasoning text of an earlier answer is dropped: the chat formats a call speaks take none back.
      refuse(
        `${field}.type`,
        `"${part.type}" parts cannot be carried: a call's messages hold text and tool calls`,
      );
    }
  });
  return { role: 'assistant', content, ...(toolCalls.length > 0 ? { toolCalls } : {}) };
}

function textOf(parts: Extract<LanguageModelV4Message, { role: 'user' }>['content'], at: string): string {
  return parts
    .map((part, j) =>
      part.type === 'text'
        ? part.text
        : refuse(
            `${at}.content[${j}]`,
            `a ${part.mediaType} file cannot be carried: a call's messages hold text only`,
          ),
    )
    .join('');
}

function resultOf(
  output: LanguageModelV4ToolResultOutput,
  field: string,
): { content: string; isError?: boolean } {
  switch (output.type) {
    case 'text':
      return { content: output.value };
    case 'json':
      return { content: JSON.stringify(output.value) };
    case 'error-text':
      return { content: output.value, isError: true };
    case 'error-json':
      return { content: JSON.stringify(output.value), isError: true };
    case 'execution-denied':
      return { content: output.reason ?? 'The tool call was denied.', isError: true };
    case 'content':
      return {
        content: output.value
          .map((p, k) =>
            p.type === 'text'
              ? p.text
              : refuse(`${field}.output.value[${k}]`, 'only text tool output can be carried'),
          )
          .join(''),
      };
  }
}
