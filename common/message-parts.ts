/** A message's text, tool-call and tool-result parts in wire form, checked. */
import type { ToolCall } from './attempt.js';
import { toWire } from './request.js';
import { argsValue, arrayAt, objectAt, optionsAt, partAt, refuse } from './message-shape.js';
import type { AssistantPart, Part, ToolPart, UserPart } from './message-shape.js';
import { filePart, legacyFile } from './message-files.js';

export function textPart(part: Part, at: string): Extract<UserPart, { type: 'text' }> {
  if (typeof part.text !== 'string') refuse(`${at}.text`, 'must be a string');
  const providerOptions = optionsAt(part.providerOptions, `${at}.providerOptions`);
  return { type: 'text', text: part.text as string, ...(providerOptions ? { providerOptions } : {}) };
}

export function toolCallPart(part: Part, at: string, extra: object): AssistantPart {
  if (typeof part.toolCallId !== 'string') refuse(`${at}.toolCallId`, 'must be a string');
  if (typeof part.toolName !== 'string') refuse(`${at}.toolName`, 'must be a string');
  return {
    type: 'tool-call',
    toolCallId: part.toolCallId as string,
    toolName: part.toolName as string,
    // `null` is a tool's input as much as `{}` is (the AI SDK keeps it): only a missing input becomes `{}`.
    input: toWire(part.input === undefined ? {} : part.input) as never,
    ...(part.providerExecuted === true ? { providerExecuted: true } : {}),
    ...extra,
  };
}

const OUTPUT_TYPES = ['text', 'json', 'execution-denied', 'error-text', 'error-json', 'content'];

export function toolResultPart(part: Part, at: string): Extract<ToolPart, { type: 'tool-result' }> {
  if (typeof part.toolCallId !== 'string') refuse(`${at}.toolCallId`, 'must be a string');
  if (typeof part.toolName !== 'string') refuse(`${at}.toolName`, 'must be a string');
  const output = objectAt(part.output, `${at}.output`, "`{ type, value }` (the AI SDK's tool result output)");
  if (!OUTPUT_TYPES.includes(output.type as string))
    refuse(`${at}.output.type`, `must be one of ${OUTPUT_TYPES.join(', ')}`);
  let value: unknown = output.value;
  if (output.type === 'content') {
    value = arrayAt(output.value, `${at}.output.value`, 'an array of text and file parts').map((p, k) => {
      const c = partAt(p, `${at}.output.value[${k}]`);
      const file = c.type === 'file' || c.type === 'image' ? c : legacyFile(c, `${at}.output.value[${k}]`);
      return file ? filePart(file, `${at}.output.value[${k}]`) : toWire(c);
    });
  }
  const providerOptions = optionsAt(part.providerOptions, `${at}.providerOptions`);
  return {
    type: 'tool-result',
    toolCallId: part.toolCallId as string,
    toolName: part.toolName as string,
    output: toWire({ ...output, ...(value !== undefined ? { value } : {}) }) as never,
    ...(providerOptions ? { providerOptions } : {}),
  };
}

export function plainToolCalls(value: unknown, field: string): AssistantPart[] {
  return arrayAt(value, field, 'an array of `{ id, name, args }`').map((c, k) => {
    const call = objectAt(c, `${field}[${k}]`, '`{ id, name, args }`') as Partial<ToolCall>;
    if (typeof call.id !== 'string') refuse(`${field}[${k}].id`, 'must be a string');
    if (typeof call.name !== 'string') refuse(`${field}[${k}].name`, 'must be a string');
    if (typeof call.args !== 'string')
      refuse(`${field}[${k}].args`, 'must be the JSON text of the arguments');
    return {
      type: 'tool-call',
      toolCallId: call.id!,
      toolName: call.name!,
      input: argsValue(call.args!) as never,
    };
  });
}
