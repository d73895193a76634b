import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { REQUEST_TEXT, withoutRequestText } from '../../../activities/scrub.js';

/** Every run of `n` characters of `text`. */
function windows(text: string, n: number): string[] {
  return Array.from({ length: Math.max(0, text.length - n + 1) }, (_, i) => text.slice(i, i + n));
}

describe('withoutRequestText: a provider message keeps no run of the request it repeats', () => {
  it.each([
    [
      'a short prompt (under 24 characters) is not searched for',
      'ok then',
      'error: ok then',
      'error: ok then',
    ],
    [
      'a quoted prompt is replaced, the rest kept',
      'please translate this sentence to French',
      "bad input 'please translate this sentence to French' here",
      `bad input '${REQUEST_TEXT}' here`,
    ],
    [
      'a run shorter than 24 characters of a long prompt stays (ordinary words)',
      'please translate this sentence to French',
      'cannot translate this now',
      'cannot translate this now',
    ],
  ])('%s', (_what, prompt, message, expected) => {
    expect(withoutRequestText(message, [prompt])).toBe(expected);
  });

  it('property: no 32-character run of the prompt survives, whatever slice of it the message quotes', () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 40, maxLength: 400, unit: 'grapheme-ascii' }),
        fc.nat(),
        fc.nat(),
        fc.string({ maxLength: 60 }),
        fc.string({ maxLength: 60 }),
        (prompt, a, b, before, after) => {
          const from = a % prompt.length;
          const to = Math.min(prompt.length, from + 32 + (b % prompt.length));
          const out = withoutRequestText(`${before}${prompt.slice(from, to)}${after}`, [prompt]);
          for (const w of windows(out, 32)) expect(prompt.includes(w), w).toBe(false);
        },
      ),
      { numRuns: 300 },
    );
  });
});
