import type { WorkerConfig } from '../../common/worker-config.js';
import type { RerunAnswer, RerunReport } from '../../common/rerun.js';
import { jsonBytes } from '../../common/turn-input.js';
import { MAX_OUTCOME_BYTES, outcomeTooLarge } from '../turn/turn-size.js';

/** What a cut answer keeps of its text: enough to recognise it. */
export const CUT_TEXT_CHARS = 1000;

/**
 * The rerun's report within Temporal's payload limit (the turn's rule): past it, the longest answer texts are cut
 * to their first {@link CUT_TEXT_CHARS} characters, longest first, until it fits, each marked `textCut` (the
 * whole text stays in the history of the answer's workflow). The totals were counted on the whole texts. A
 * report over the limit would have the rerun terminated at its very end, with everything it paid for.
 */
export function boundedReport(report: RerunReport, config: WorkerConfig | undefined): RerunReport {
  let bytes = jsonBytes(report);
  if (!outcomeTooLarge(bytes, config, report)) return report;
  const answers: RerunAnswer[] = report.pairs.flatMap((p) => [p.original, ...p.candidates]);
  const longest = answers
    .map((answer, index) => ({ answer, index }))
    .filter(({ answer }) => answer.text.length > CUT_TEXT_CHARS)
    .sort((a, b) => b.answer.text.length - a.answer.text.length || a.index - b.index);
  const cut = new Map<RerunAnswer, RerunAnswer>();
  for (const { answer } of longest) {
    if (bytes <= MAX_OUTCOME_BYTES) break;
    const text = cutText(answer.text);
    const shorter: RerunAnswer = { ...answer, text, textCut: true };
    bytes -= jsonBytes(answer) - jsonBytes(shorter);
    cut.set(answer, shorter);
  }
  const keep = (a: RerunAnswer) => cut.get(a) ?? a;
  return {
    ...report,
    pairs: report.pairs.map((p) => ({
      ...p,
      original: keep(p.original),
      candidates: p.candidates.map(keep),
    })),
  };
}

/** The first {@link CUT_TEXT_CHARS} characters, never half a surrogate pair. */
function cutText(text: string): string {
  const end = /[\uD800-\uDBFF]/.test(text.charAt(CUT_TEXT_CHARS - 1)) ? CUT_TEXT_CHARS - 1 : CUT_TEXT_CHARS;
  return text.slice(0, end);
}
