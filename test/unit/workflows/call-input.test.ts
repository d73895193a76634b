import { describe, expect, it } from 'vitest';
import { backendsOf, messagesOf, validateCallInput } from '../../../workflows/call/call-input.js';
import { checkModelCall } from '../../../client/model-call-client.js';
import { InvalidRetryPlanError } from '../../../policy/index.js';

describe('a model call input', () => {
  it('takes one model or a chain of them', () => {
    expect(backendsOf({ model: 'local:fast' })).toEqual(['local:fast']);
    expect(backendsOf({ model: ['a:x', 'b:y/z'] })).toEqual(['a:x', 'b:y/z']);
  });

  it.each([
    [{ model: [], prompt: 'x' }, /`model`: give at least one model/],
    [{ model: 'gpt-4o', prompt: 'x' }, /`model`: "gpt-4o" is not a model name; write it as `provider:model`/],
    [{ model: ['a:x', 'nocolon'], prompt: 'x' }, /`model\[1\]`/],
    [{ model: 'a:x' }, /`prompt`: give a `prompt` or at least one non-system message/],
    [{ model: 'a:x', system: 'only a system message' }, /`prompt`/],
    [{ model: 'a:x', prompt: '' }, /`prompt`: is empty: give the text to send/],
    [{ model: 'a:x', system: 's', prompt: ' \n ' }, /`prompt`: is empty/],
    [
      { model: 'a:x', messages: [{ role: 'user', content: '' }] },
      /`prompt`: give a `prompt` or at least one/,
    ],
    [{ model: 'a:x', prompt: 3 }, /`prompt`: must be a string/],
    [{ model: 'a:x', messages: [{ role: 'robot', content: 'x' }] }, /`messages\[0\]\.role`/],
    [{ model: 'a:x', prompt: 'x', temperature: 1 }, /`temperature`: unknown field/],
    ['just a string', /`input`/],
  ])('refuses %j, naming the field', (input, message) => {
    expect(() => validateCallInput(input)).toThrow(message);
  });

  it('takes a conversation whose last prompt is blank when an earlier message says something', () => {
    expect(() =>
      validateCallInput({ model: 'a:x', messages: [{ role: 'user', content: 'hi' }], prompt: '' }),
    ).not.toThrow();
    expect(() =>
      validateCallInput({
        model: 'a:x',
        messages: [{ role: 'assistant', content: '', toolCalls: [{ id: 't1', name: 'calc', args: {} }] }],
      }),
    ).not.toThrow();
  });

  it('sends the system message first, then the messages, then the prompt', () => {
    expect(
      messagesOf({
        model: 'a:x',
        system: 's',
        messages: [{ role: 'assistant', content: 'earlier' }],
        prompt: 'now',
      }),
    ).toEqual([
      { role: 'system', content: 's' },
      { role: 'assistant', content: 'earlier' },
      { role: 'user', content: 'now' },
    ]);
  });

  it('has its plan checked with it before anything starts', () => {
    expect(() => checkModelCall({ model: 'a:x', prompt: 'x', retry: { waits: [] } })).toThrow(
      InvalidRetryPlanError,
    );
    expect(() =>
      checkModelCall({ model: 'a:x', prompt: 'x', retry: { waits: [10], maxAttempts: 5 } }),
    ).not.toThrow();
  });
});
