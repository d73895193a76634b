import type { ToolCall } from './attempt.js';
import type { WireContent, WireMessage } from './request.js';
import { argsValue } from './message-shape.js';
import type { AssistantPart } from './message-shape.js';
import { toWireMessage } from './messages.js';

/**
 * The assistant message an answer adds to a conversation, as the AI SDK's step loop makes it: the content in
 * order, reasoning and tool calls with the provider's metadata as their `providerOptions` (so a signed thinking
 * block or an encrypted reasoning item goes back to the model in the next step), provider-executed tool calls with
 * their results. Without `content` (an answer of an earlier version), its text and tool calls.
 */
export function assistantMessageOf(output: {
  text: string;
  toolCalls: readonly ToolCall[];
  content?: readonly WireContent[];
}): WireMessage {
  if (output.content === undefined) {
    return toWireMessage({ role: 'assistant', content: output.text, toolCalls: output.toolCalls }, 'answer');
  }
  const parts: AssistantPart[] = [];
  for (const c of output.content) {
    const providerOptions =
      'providerMetadata' in c && c.providerMetadata !== undefined
        ? { providerOptions: c.providerMetadata as Record<string, Record<string, never>> }
        : {};
    switch (c.type) {
      case 'text':
        // An empty text goes back only with its metadata (an item id), as the AI SDK's step loop sends it.
        if (c.text !== '' || 'providerOptions' in providerOptions)
          parts.push({ type: 'text', text: c.text, ...providerOptions });
        break;
      case 'reasoning':
        parts.push({ type: 'reasoning', text: c.text, ...providerOptions });
        break;
      case 'reasoning-file':
        parts.push({ type: 'reasoning-file', data: c.data, mediaType: c.mediaType, ...providerOptions });
        break;
      case 'file':
        parts.push({ type: 'file', data: c.data, mediaType: c.mediaType, ...providerOptions });
        break;
      case 'tool-call':
        parts.push({
          type: 'tool-call',
          toolCallId: c.toolCallId,
          toolName: c.toolName,
          input: argsValue(c.input) as never,
          ...(c.providerExecuted === true ? { providerExecuted: true } : {}),
          ...providerOptions,
        });
        break;
      case 'tool-result':
        parts.push({
          type: 'tool-result',
          toolCallId: c.toolCallId,
          toolName: c.toolName,
          output: (c.isError === true
            ? { type: 'error-json', value: c.result }
            : { type: 'json', value: c.result }) as never,
          ...providerOptions,
        });
        break;
      default:
        // Sources, custom content and approval requests are the answer's, not the conversation's.
        break;
    }
  }
  return { role: 'assistant', content: parts };
}

/** The text parts of a wire message, joined. */
export function textOfMessage(message: WireMessage): string {
  if (message.role === 'system') return message.content;
  return message.content.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('');
}
