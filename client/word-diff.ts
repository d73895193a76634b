/**
 * A word-level diff of two answers' texts, for the rerun reports (the command line and the HTML page). Written
 * here rather than taken from a package because none is installed and the project's dependencies are shared:
 * Myers' shortest edit script over words, whitespace runs and single punctuation marks, so that the runs give
 * back both texts exactly.
 */

/** A stretch of text both answers share, or that only the first (`removed`) or the second (`added`) holds. */
export interface DiffRun {
  op: 'equal' | 'removed' | 'added';
  text: string;
}

/**
 * Beyond this many edits (token insertions and deletions) the texts are too unlike for a word diff to help a
 * reader, and the search would grow with its square: the differing middle is shown removed and added whole.
 */
export const MAX_EDITS = 2000;
/** Texts of more tokens than this (about 20,000 words between them) are not searched either. */
const MAX_TOKENS = 40_000;

/**
 * The runs that turn `a` into `b`: the `equal` and `removed` runs in order spell `a`, the `equal` and `added` runs
 * spell `b`. Between two shared stretches the removed text comes before the added; a change cut in two by a
 * shared space only is shown as one change. Equal texts give one `equal` run (none when both are empty).
 */
export function wordDiff(a: string, b: string): DiffRun[] {
  const left = tokenize(a);
  const right = tokenize(b);
  let start = 0;
  while (start < left.length && start < right.length && left[start] === right[start]) start++;
  let endA = left.length;
  let endB = right.length;
  while (endA > start && endB > start && left[endA - 1] === right[endB - 1]) {
    endA--;
    endB--;
  }
  const middle = editScript(left.slice(start, endA), right.slice(start, endB));
  const ops: Op[] = [
    ...left.slice(0, start).map((text): Op => ['equal', text]),
    ...middle,
    ...left.slice(endA).map((text): Op => ['equal', text]),
  ];
  return mergeRuns(ops);
}

/** How many words (whitespace aside) each kind of run holds. */
export function diffWordCounts(runs: readonly DiffRun[]): { equal: number; removed: number; added: number } {
  const counts = { equal: 0, removed: 0, added: 0 };
  for (const run of runs) counts[run.op] += run.text.split(/\s+/u).filter(Boolean).length;
  return counts;
}

/** Words (letters, digits, marks, `_`), whitespace runs, and every other character alone. */
export function tokenize(text: string): string[] {
  return text.match(/\s+|[\p{L}\p{N}\p{M}_]+|[^\s\p{L}\p{N}\p{M}_]/gu) ?? [];
}

type Op = [DiffRun['op'], string];

/**
 * Myers' O((N+M)D) search for a shortest edit script, keeping for each step only the diagonals it reached, so its
 * memory grows with D² rather than with the texts' lengths.
 */
function editScript(a: readonly string[], b: readonly string[]): Op[] {
  const n = a.length;
  const m = b.length;
  if (n === 0 || m === 0 || n + m > MAX_TOKENS) return whole(a, b);
  const max = Math.min(n + m, MAX_EDITS);
  const off = n + m + 1;
  const v = new Int32Array(2 * off + 1);
  const trace: Int32Array[] = [];
  for (let d = 0; d <= max; d++) {
    // The furthest x on each diagonal k in [-d-1, d+1] before this step, for the walk back.
    trace.push(v.slice(off - d - 1, off + d + 2));
    for (let k = -d; k <= d; k += 2) {
      const down = k === -d || (k !== d && (v[off + k - 1] as number) < (v[off + k + 1] as number));
      let x = down ? (v[off + k + 1] as number) : (v[off + k - 1] as number) + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      v[off + k] = x;
      if (x >= n && y >= m) return walkBack(a, b, trace);
    }
  }
  return whole(a, b);
}

function walkBack(a: readonly string[], b: readonly string[], trace: Int32Array[]): Op[] {
  const ops: Op[] = [];
  let x = a.length;
  let y = b.length;
  for (let d = trace.length - 1; d >= 0; d--) {
    const v = trace[d] as Int32Array;
    const at = (k: number) => v[k + d + 1] as number;
    const k = x - y;
    const down = k === -d || (k !== d && at(k - 1) < at(k + 1));
    const prevK = down ? k + 1 : k - 1;
    const prevX = at(prevK);
    const prevY = prevX - prevK;
    while (x > prevX && y > prevY) {
      ops.push(['equal', a[x - 1] as string]);
      x--;
      y--;
    }
    if (d > 0) ops.push(x === prevX ? ['added', b[prevY] as string] : ['removed', a[prevX] as string]);
    x = prevX;
    y = prevY;
  }
  return ops.reverse();
}

function whole(a: readonly string[], b: readonly string[]): Op[] {
  return [...a.map((t): Op => ['removed', t]), ...b.map((t): Op => ['added', t])];
}

/**
 * Joins the tokens into runs: each stretch between shared ones becomes its removed text then its added text, and
 * a shared whitespace run between two changes joins them (both sides hold it, so the texts still come back).
 */
function mergeRuns(ops: readonly Op[]): DiffRun[] {
  type Segment = { equal: string } | { removed: string; added: string };
  const segments: Segment[] = [];
  for (const [op, text] of ops) {
    const last = segments.at(-1);
    if (op === 'equal') {
      if (last && 'equal' in last) last.equal += text;
      else segments.push({ equal: text });
    } else {
      const change = last && !('equal' in last) ? last : { removed: '', added: '' };
      if (change !== last) segments.push(change);
      change[op] += text;
    }
  }
  const joined: Segment[] = [];
  for (let i = 0; i < segments.length; i++) {
    const seg = segments[i] as Segment;
    const prev = joined.at(-1);
    const next = segments[i + 1];
    if (
      'equal' in seg &&
      /^\s+$/u.test(seg.equal) &&
      prev &&
      !('equal' in prev) &&
      next &&
      !('equal' in next)
    ) {
      prev.removed += seg.equal + next.removed;
      prev.added += seg.equal + next.added;
      i++;
      continue;
    }
    joined.push(seg);
  }
  joined.forEach((seg, i) => {
    if ('equal' in seg) return;
    // Whitespace both sides of a change start or end with is shared: it goes to the stretch beside it, so that a
    // change reads as whole words ("total [matches|agrees with] the", not "total [matches |agrees with ]the").
    const before = joined[i - 1];
    const after = joined[i + 1];
    const lead = sharedSpace(seg.removed, seg.added, 'start');
    if (lead && before && 'equal' in before) {
      before.equal += lead;
      seg.removed = seg.removed.slice(lead.length);
      seg.added = seg.added.slice(lead.length);
    }
    const trail = sharedSpace(seg.removed, seg.added, 'end');
    if (trail && after && 'equal' in after) {
      after.equal = trail + after.equal;
      seg.removed = seg.removed.slice(0, -trail.length);
      seg.added = seg.added.slice(0, -trail.length);
    }
  });
  return joined.flatMap((seg): DiffRun[] =>
    'equal' in seg
      ? [{ op: 'equal', text: seg.equal }]
      : [
          ...(seg.removed ? [{ op: 'removed' as const, text: seg.removed }] : []),
          ...(seg.added ? [{ op: 'added' as const, text: seg.added }] : []),
        ],
  );
}

/** The whitespace both texts start (or end) with, when both are non-empty and would keep some text. */
function sharedSpace(a: string, b: string, side: 'start' | 'end'): string {
  const pattern = side === 'start' ? /^\s+/u : /\s+$/u;
  const x = pattern.exec(a)?.[0] ?? '';
  const y = pattern.exec(b)?.[0] ?? '';
  let n = 0;
  while (n < x.length && n < y.length) {
    const i = side === 'start' ? n : -1 - n;
    if (x.at(i) !== y.at(i)) break;
    n++;
  }
  if (n === 0 || n >= a.length || n >= b.length) return '';
  return side === 'start' ? a.slice(0, n) : a.slice(a.length - n);
}
