import { fileURLToPath } from 'node:url';
import type { WorkflowBundle } from '@temporalio/worker';
import { beforeAll, describe, expect, it } from 'vitest';
import { installQuietRuntime } from '../harness/quiet.js';
import { bundleForReplay, countOwnPromises, readHistory } from '../harness/replay.js';

const HISTORY = fileURLToPath(new URL('./histories/turn-tool-and-502.json', import.meta.url));

installQuietRuntime();

/**
 * Every promise a workflow creates costs a stack trace in Temporal's sandbox (its promise hook, for the
 * `__stack_trace` query): about 50-100 µs each, most of a turn's workflow CPU beyond the floor's. The turn's own
 * code (workflows/turn/) awaits only its model calls and tool calls
 * (docs/decisions/turns/012-step-loop-plain-functions.md); this replays a recorded turn (two model calls, one retried after a 502, one tool call) and counts the
 * promises created with turn code nearest on the stack. Replay runs workflow code in this thread.
 */
describe("an agent turn's own promises", () => {
  let bundle: WorkflowBundle;
  beforeAll(async () => {
    bundle = await bundleForReplay();
  }, 180_000);

  it('are at most a few per step: the awaits of the model call and the tool calls, and the activities', async () => {
    const byFile = await countOwnPromises(
      bundle,
      readHistory(HISTORY, 'replay-turn-promises'),
      'workflows/turn/',
    );
    const total = Object.values(byFile).reduce((a, b) => a + b, 0);
    expect(total, JSON.stringify(byFile)).toBeLessThanOrEqual(BUDGET);
  });
});

/**
 * The budget for this turn: it makes 14 (the describe, tool and model activities' own, the loop's awaits); it
 * made 16 when it awaited its stop's bookkeeping even when that was done at once, and 31 when each part of a step
 * was an async function of its own.
 */
const BUDGET = 15;
