import { describe, expect, it } from 'vitest';
import type { CallState, Decision } from '../../../policy/index.js';
import { initialState } from '../../../policy/index.js';
import type { WireMessage } from '../../../common/request.js';
import { outputOf, validateCallInput } from '../../../common/call-input/call-input.js';
import { Corrections, correctionOf } from '../../../workflows/call/call-repair.js';

const SCHEMA = { type: 'object' };

describe("a call's output, checked in workflow code", () => {
  it('fills in the default repairs, and takes 0 to 10', () => {
    expect(outputOf({ output: { schema: SCHEMA } })).toEqual({ schema: SCHEMA, repairs: 2 });
    expect(outputOf({ output: { schema: SCHEMA, repairs: 0 } })?.repairs).toBe(0);
    expect(outputOf({ output: { schema: SCHEMA, repairs: 10 } })?.repairs).toBe(10);
    expect(outputOf({})).toBeUndefined();
  });

  it.each([
    [{ output: [] }, /^`output`: must be an object/],
    [{ output: { schema: SCHEMA, retries: 1 } }, /^`output\.retries`: unknown field/],
    [{ output: {} }, /^`output\.schema`: must be a JSON Schema object/],
    [{ output: { schema: SCHEMA, repairs: 1.5 } }, /^`output\.repairs`: must be a whole number from 0 to 10/],
    [{ output: { schema: SCHEMA, repairs: -1 } }, /^`output\.repairs`/],
    [
      { output: { schema: SCHEMA }, stream: { batchMs: 100 } },
      /^`stream`: cannot be used with `output\.schema`/,
    ],
  ])('refuses %j', (input, message) => {
    expect(() => outputOf(input as never)).toThrow(message);
  });

  it('is part of the call input check', () => {
    expect(() => validateCallInput({ model: 'local:m', prompt: 'x', output: { schema: 1 } })).toThrow(
      /`output\.schema`/,
    );
    expect(() =>
      validateCallInput({ model: 'local:m', prompt: 'x', output: { schema: SCHEMA } }),
    ).not.toThrow();
  });
});

describe('the corrections of a call', () => {
  const mismatch = { answer: '{"a":1}', errors: ['/a: must be string'] };
  const attempt = (action: Decision['action'], state: Partial<CallState>): Decision => ({
    kind: 'attempt',
    backend: 0,
    waitMs: 0,
    ...(action ? { action } : {}),
    why: '',
    state: { ...initialState(2), ...state },
  });
  const original: WireMessage[] = [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }];

  it('are the bad answer, then the validator errors and what to do', () => {
    expect(correctionOf(mismatch)).toEqual([
      { role: 'assistant', content: [{ type: 'text', text: '{"a":1}' }] },
      {
        role: 'user',
        content: [
          {
            type: 'text',
            text:
              'Your answer does not match the required JSON Schema. The validator says:\n- /a: must be string\n' +
              'Answer again with only the corrected JSON value.',
          },
        ],
      },
    ]);
  });

  it('grow with each repair, stay through a same-backend retry, and go when another backend is tried', () => {
    const c = new Corrections();
    c.note(mismatch);
    c.follow(attempt('repair', { repairs: 1 }));
    expect(c.messages(original)).toHaveLength(3);
    c.note(undefined);
    c.follow(attempt('retry-same', { repairs: 1, sameBackendRetries: 1 }));
    expect(c.messages(original)).toHaveLength(3);
    c.note(mismatch);
    c.follow(attempt('repair', { repairs: 2 }));
    expect(c.messages(original)).toHaveLength(5);
    c.note(mismatch);
    c.follow(attempt('drop', { repairs: 0, backend: 1 }));
    expect(c.messages(original)).toBe(original);
  });
});
