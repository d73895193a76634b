import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { DiffRun } from '../../../client/word-diff.js';
import { diffWordCounts, MAX_EDITS, tokenize, wordDiff } from '../../../client/word-diff.js';

const spell = (runs: DiffRun[], side: 'removed' | 'added') =>
  runs
    .filter((r) => r.op === 'equal' || r.op === side)
    .map((r) => r.text)
    .join('');

/** The longest common subsequence's length, by the textbook table, to check that the diff keeps the most. */
function lcsLength(a: string[], b: string[]): number {
  const row = new Array<number>(b.length + 1).fill(0);
  for (const x of a) {
    let diag = 0;
    for (let j = 1; j <= b.length; j++) {
      const up = row[j] as number;
      row[j] = x === b[j - 1] ? diag + 1 : Math.max(up, row[j - 1] as number);
      diag = up;
    }
  }
  return row[b.length] as number;
}

/** Texts from a small vocabulary, so that random pairs share words. */
const text = fc
  .array(
    fc.constantFrom('the', 'cat', 'sat', 'on', 'a', 'mat', ' ', '  ', '\n', ',', '.', 'é', '🙂', 'don’t'),
    {
      maxLength: 40,
    },
  )
  .map((parts) => parts.join(''));

describe('wordDiff', () => {
  it.each<[string, string, string, DiffRun[]]>([
    ['equal texts', 'the cat sat', 'the cat sat', [{ op: 'equal', text: 'the cat sat' }]],
    ['both empty', '', '', []],
    ['from nothing', '', 'hello world', [{ op: 'added', text: 'hello world' }]],
    ['to nothing', 'hello world', '', [{ op: 'removed', text: 'hello world' }]],
    [
      'one word replaced',
      'the cat sat on the mat',
      'the dog sat on the mat',
      [
        { op: 'equal', text: 'the ' },
        { op: 'removed', text: 'cat' },
        { op: 'added', text: 'dog' },
        { op: 'equal', text: ' sat on the mat' },
      ],
    ],
    [
      'a word added at the end with its punctuation',
      'Paris is the capital.',
      'Paris is the capital of France.',
      [
        { op: 'equal', text: 'Paris is the capital' },
        { op: 'added', text: ' of France' },
        { op: 'equal', text: '.' },
      ],
    ],
    [
      'two neighbouring words changed read as one change',
      'a quick brown fox',
      'a slow red fox',
      [
        { op: 'equal', text: 'a ' },
        { op: 'removed', text: 'quick brown' },
        { op: 'added', text: 'slow red' },
        { op: 'equal', text: ' fox' },
      ],
    ],
    [
      'a change reads as whole words, the spaces around it shared',
      'its total matches the amount. its total matches the sum.',
      'its total agrees with the amount. its total agrees with the sum.',
      [
        { op: 'equal', text: 'its total ' },
        { op: 'removed', text: 'matches' },
        { op: 'added', text: 'agrees with' },
        { op: 'equal', text: ' the amount. its total ' },
        { op: 'removed', text: 'matches' },
        { op: 'added', text: 'agrees with' },
        { op: 'equal', text: ' the sum.' },
      ],
    ],
    [
      'a word is never split: "cats" is not "cat" plus "s"',
      'cat',
      'cats',
      [
        { op: 'removed', text: 'cat' },
        { op: 'added', text: 'cats' },
      ],
    ],
  ])('%s', (_name, a, b, runs) => {
    expect(wordDiff(a, b)).toEqual(runs);
  });

  it('tokens spell the text back, words whole, punctuation and emoji alone', () => {
    expect(tokenize('Hi, café 🙂!\n  ok')).toEqual(['Hi', ',', ' ', 'café', ' ', '🙂', '!', '\n  ', 'ok']);
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (s) => {
        expect(tokenize(s).join('')).toBe(s);
      }),
    );
  });

  it('the equal and removed runs spell the first text, the equal and added runs the second', () => {
    fc.assert(
      fc.property(text, text, (a, b) => {
        const runs = wordDiff(a, b);
        expect(spell(runs, 'removed')).toBe(a);
        expect(spell(runs, 'added')).toBe(b);
        expect(runs.every((r) => r.text.length > 0)).toBe(true);
      }),
    );
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), fc.string({ unit: 'grapheme' }), (a, b) => {
        const runs = wordDiff(a, b);
        expect(spell(runs, 'removed')).toBe(a);
        expect(spell(runs, 'added')).toBe(b);
      }),
    );
  });

  it('equal texts give one equal run', () => {
    fc.assert(
      fc.property(text.filter(Boolean), (a) => {
        expect(wordDiff(a, a)).toEqual([{ op: 'equal', text: a }]);
      }),
    );
  });

  it('keeps as many tokens shared as the longest common subsequence (texts without whitespace, which is never joined)', () => {
    const dense = fc
      .array(fc.constantFrom('the', 'cat', ',', '.', '-', 'é', '🙂'), { maxLength: 40 })
      .map((parts) => parts.join(''));
    fc.assert(
      fc.property(dense, dense, (a, b) => {
        const shared = wordDiff(a, b)
          .filter((r) => r.op === 'equal')
          .reduce((n, r) => n + tokenize(r.text).length, 0);
        expect(shared).toBe(lcsLength(tokenize(a), tokenize(b)));
      }),
    );
  });

  it('texts too unlike for a word diff are shown removed and added whole, between what they share', () => {
    const a = Array.from({ length: MAX_EDITS }, (_, i) => `a${i}`).join(' ');
    const b = Array.from({ length: MAX_EDITS }, (_, i) => `b${i}`).join(' ');
    const runs = wordDiff(`start ${a} end`, `start ${b} end`);
    expect(runs.map((r) => r.op)).toEqual(['equal', 'removed', 'added', 'equal']);
    expect(spell(runs, 'added')).toBe(`start ${b} end`);
  });

  it('counts the words of each kind, whitespace aside', () => {
    expect(diffWordCounts(wordDiff('the cat sat on the mat', 'the big dog sat on the mat'))).toEqual({
      equal: 5,
      removed: 1,
      added: 2,
    });
  });
});
