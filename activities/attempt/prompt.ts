/**
 * The attempt's input in the AI SDK's language model format (spec v4): messages, tools and settings.
 */
import type {
  LanguageModelV4CallOptions,
  LanguageModelV4FunctionTool,
  LanguageModelV4Message,
  LanguageModelV4Prompt,
  LanguageModelV4ToolResultPart,
} from '@ai-sdk/provider';
import type { ChatMessage, ModelSettings, ToolCall, ToolDefinition } from '../../common/attempt.js';

/** A tool call's arguments as a value: the parsed JSON text, or the text itself when it is not JSON. */
function argsValue(call: ToolCall): unknown {
  try {
    return JSON.parse(call.args) as unknown;
  } catch {
    return call.args;
  }
}

function assistantMessage(message: Extract<ChatMessage, { role: 'assistant' }>): LanguageModelV4Message {
  const calls = (message.toolCalls ?? []).map((call) => ({
    type: 'tool-call' as const,
    toolCallId: call.id,
    toolName: call.name,
    input: argsValue(call),
  }));
  const text = message.content === '' ? [] : [{ type: 'text' as const, text: message.content }];
  return { role: 'assistant', content: [...text, ...calls] };
}

function toolResult(message: Extract<ChatMessage, { role: 'tool' }>): LanguageModelV4ToolResultPart {
  return {
    type: 'tool-result',
    toolCallId: message.toolCallId,
    toolName: message.toolName,
    output:
      message.isError === true
        ? { type: 'error-text', value: message.content }
        : { type: 'text', value: message.content },
  };
}

/**
 * Messages in the AI SDK's prompt format. Consecutive tool messages become one tool message (the results of
 * one assistant turn travel together, as Anthropic requires).
 */
export function toPrompt(messages: readonly ChatMessage[]): LanguageModelV4Prompt {
  const prompt: LanguageModelV4Prompt = [];
  for (const message of messages) {
    switch (message.role) {
      case 'system':
        prompt.push({ role: 'system', content: message.content });
        break;
      case 'user':
        prompt.push({ role: 'user', content: [{ type: 'text', text: message.content }] });
        break;
      case 'assistant':
        prompt.push(assistantMessage(message));
        break;
      case 'tool': {
        const last = prompt.at(-1);
        if (last?.role === 'tool') last.content.push(toolResult(message));
        else prompt.push({ role: 'tool', content: [toolResult(message)] });
        break;
      }
    }
  }
  return prompt;
}

/** Function tools with their JSON Schema. */
export function toTools(tools: readonly ToolDefinition[]): LanguageModelV4FunctionTool[] {
  return tools.map((tool) => ({
    type: 'function',
    name: tool.name,
    ...(tool.description === undefined ? {} : { description: tool.description }),
    inputSchema: tool.inputSchema as LanguageModelV4FunctionTool['inputSchema'],
  }));
}

/** The generation settings that were given (absent ones are left to the provider). */
export function toSettings(settings: ModelSettings = {}): Partial<LanguageModelV4CallOptions> {
  const out: Partial<LanguageModelV4CallOptions> = {};
  if (settings.maxOutputTokens !== undefined) out.maxOutputTokens = settings.maxOutputTokens;
  if (settings.temperature !== undefined) out.temperature = settings.temperature;
  if (settings.topP !== undefined) out.topP = settings.topP;
  if (settings.stopSequences !== undefined) out.stopSequences = [...settings.stopSequences];
  if (settings.seed !== undefined) out.seed = settings.seed;
  return out;
}
