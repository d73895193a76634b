import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonBytes } from '../../../common/turn-input.js';
import { ConversationBytes, objectBytes } from '../../../workflows/turn/conversation-bytes.js';

/** Messages as a conversation holds them, with text that takes 1 to 4 UTF-8 bytes a character. */
const message = fc.record(
  {
    role: fc.constantFrom('system', 'user', 'assistant', 'tool'),
    content: fc.string({ unit: 'binary' }),
    toolCalls: fc.array(fc.record({ id: fc.string(), name: fc.string(), args: fc.jsonValue() }), {
      maxLength: 2,
    }),
  },
  { requiredKeys: ['role', 'content'] },
);

describe("a conversation's JSON size counted as it grows", () => {
  it('is what jsonBytes says of the whole list, at every step of a growing conversation', () => {
    fc.assert(
      fc.property(fc.array(fc.array(message, { maxLength: 4 }), { maxLength: 6 }), (steps) => {
        const counter = new ConversationBytes();
        const messages: unknown[] = [];
        expect(counter.of(messages)).toBe(jsonBytes(messages));
        for (const added of steps) {
          messages.push(...added);
          expect(counter.of(messages)).toBe(jsonBytes(messages));
        }
      }),
    );
  });

  it('counts again from the first message that differs when the list changed elsewhere than its end', () => {
    const counter = new ConversationBytes();
    const a = { role: 'user', content: 'a' };
    const b = { role: 'assistant', content: 'ébè' };
    const c = { role: 'user', content: '😀 then more' };
    expect(counter.of([a, b])).toBe(jsonBytes([a, b]));
    expect(counter.of([a, c, b])).toBe(jsonBytes([a, c, b]));
    expect(counter.of([c])).toBe(jsonBytes([c]));
    expect(counter.of([])).toBe(2);
  });

  it('adds up an object from its members as jsonBytes says of the object itself', () => {
    fc.assert(
      fc.property(
        fc.array(message),
        fc.option(fc.array(fc.jsonValue()), { nil: undefined }),
        fc.option(fc.dictionary(fc.string(), fc.jsonValue()), { nil: undefined }),
        (messages, tools, settings) => {
          const whole = { messages, ...(tools ? { tools } : {}), ...(settings ? { settings } : {}) };
          const parts: [string, number][] = [['messages', new ConversationBytes().of(messages)]];
          if (tools) parts.push(['tools', jsonBytes(tools)]);
          if (settings) parts.push(['settings', jsonBytes(settings)]);
          expect(objectBytes(parts)).toBe(jsonBytes(whole));
        },
      ),
    );
    expect(objectBytes([])).toBe(jsonBytes({}));
  });
});
