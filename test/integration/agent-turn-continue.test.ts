import { readCallHistory } from '../../client/history-reader.js';
import { describe, expect, it } from 'vitest';
import { fail, ok, slow, toolCall } from '../../loopback/index.js';
import { ATTEMPT_COUNT, LAST_FAILURE_CLASS, STOP_REASON } from '../../common/search-attributes.js';
import { turnStatusQuery } from '../../common/queries.js';
import { finishTurn, runTurn, toolResults } from '../harness/agent-turn.js';
import { startAgentTurn } from '../../client/agent-turn-client.js';
import { subscribeCallStream } from '../../client/call-stream.js';
import type { CallStreamItem } from '../../client/call-stream.js';
import { readWholeStream, streamTrace } from '../harness/stream-trace.js';
import { useOwnServer } from '../harness/fixture.js';

/**
 * The suite's shared dev server keeps Temporal's default continue-as-new suggestion (thousands of events), so
 * this file starts its own with the suggestion lowered to a few dozen events: a turn of eight steps then runs
 * as a chain of several runs.
 */
describe('a long agent turn continues as new when Temporal suggests it', () => {
  const taskQueue = 'agent-turn-continue';
  const fx = useOwnServer({
    extraArgs: ['--dynamic-config-value', 'limit.historyCount.suggestContinueAsNew=30'],
    taskQueue,
  });

  it('keeps the messages, the attempts, the call counter and the deadline across runs', async () => {
    const steps = [1, 2, 3, 4, 5, 6, 7].map((n) => toolCall('calculator', { expression: `${n} * 10` }));
    fx.lp.script('long', [...steps.slice(0, 4), fail(502), ...steps.slice(4), ok('seventy at last')]);
    const run = await runTurn(
      fx,
      { taskQueue },
      {
        model: 'local:long',
        prompt: 'Count in tens',
        tools: ['calculator'],
        retry: { waits: [50] },
        deadlineInMs: 300_000,
        reserveMs: 5000,
      },
    );
    expect(run.result?.stopReason).toBe('succeeded');
    expect(run.result?.text).toBe('seventy at last');
    expect(run.history.runIds.length).toBeGreaterThan(2);
    expect(run.result?.runs).toBe(run.history.runIds.length);
    expect(run.status).toMatchObject({ step: 8, runs: run.history.runIds.length, attempts: 9 });

    const tools = toolResults(run.result?.messages ?? []).map((r) => r.output);
    expect(tools).toEqual(
      ['10', '20', '30', '40', '50', '60', '70'].map((value) => ({ type: 'text', value })),
    );
    expect(run.result?.messages).toHaveLength(15);
    const lastRequest = fx.lp.requests('long').at(-1)?.body as { messages: unknown[] };
    expect(lastRequest.messages).toHaveLength(1 + 14);

    expect(run.result?.steps.map((s) => s.step)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(run.records.map((r) => r.modelCallId)).toEqual([
      'c1.1',
      'c2.1',
      'c3.1',
      'c4.1',
      'c5.1',
      'c5.2',
      'c6.1',
      'c7.1',
      'c8.1',
    ]);
    expect(run.records[4]).toMatchObject({
      outcome: 'failed',
      retryInMs: 50,
      failure: { class: 'ServerError' },
    });

    const first = await fx.temporal.client.workflow
      .getHandle(run.handle.workflowId, run.history.runIds[0])
      .describe();
    expect(run.result?.deadline).toBe(new Date(first.startTime.getTime() + 300_000).toISOString());
    expect((await run.handle.query(turnStatusQuery)).deadline).toBe(run.result?.deadline);

    // The search attributes are set once, by the run that stopped, over the attempts of every run; besides, the
    // run whose call met the ServerError set `ModelRetryClasses` then (one upsert, while it ran).
    const upserts: number[] = [];
    const metFailure: boolean[] = [];
    for (const runId of run.history.runIds) {
      const handle = fx.temporal.client.workflow.getHandle(run.handle.workflowId, runId);
      const history = await handle.fetchHistory();
      upserts.push(
        (history.events ?? []).filter((e) => e.upsertWorkflowSearchAttributesEventAttributes).length,
      );
      metFailure.push(readCallHistory(history).attempts.some((a) => a.failure));
      fx.histories.push({ workflowId: run.handle.workflowId, history });
    }
    expect(metFailure.filter(Boolean)).toHaveLength(1);
    const last = run.history.runIds.length - 1;
    expect(upserts).toEqual(metFailure.map((met, i) => (met ? 1 : 0) + (i === last ? 1 : 0)));
    const sa = (await run.handle.describe()).typedSearchAttributes;
    expect([sa.get(STOP_REASON), sa.get(ATTEMPT_COUNT), sa.get(LAST_FAILURE_CLASS)]).toEqual([
      'succeeded',
      9,
      'ServerError',
    ]);
  });

  it('streams every step of a streamed turn to one subscriber across its runs', async () => {
    const steps = [1, 2, 3, 4, 5, 6].map((n) =>
      toolCall('calculator', { expression: `${n} * 10` }, { text: `step ${n}. ` }),
    );
    // The last answer comes 3 s after its request: a subscriber that follows the chain reads that call's attempt
    // event live, in the last run, before the chain closes.
    fx.lp.script('long-stream', [...steps, slow(3000, ok(undefined, { chunks: ['all ', 'done.'] }))]);
    const handle = await startAgentTurn(
      fx.temporal.client,
      {
        model: 'local:long-stream',
        prompt: 'Count in tens, out loud',
        tools: ['calculator'],
        stream: { batchMs: 10 },
        deadlineInMs: 300_000,
        reserveMs: 5000,
      },
      { taskQueue },
    );
    let text = '';
    const calls = new Set<string>();
    const live = new Set<string>();
    const reading = (async () => {
      for await (const item of subscribeCallStream(fx.temporal.client, handle.workflowId)) {
        if (item.kind === 'delta') text += item.delta.text;
        else {
          calls.add(item.event.callId);
          if (item.offset !== undefined) live.add(item.event.callId);
        }
      }
    })();
    const run = await finishTurn(fx, handle);
    await reading;
    expect(run.result?.text).toBe('all done.');
    expect(run.history.runIds.length).toBeGreaterThan(1);
    expect(text).toBe('step 1. step 2. step 3. step 4. step 5. step 6. all done.');
    // Every call's events reached it (live, or rebuilt from the history when it fell behind a run's close) ...
    expect([...calls].sort()).toEqual(['c1', 'c2', 'c3', 'c4', 'c5', 'c6', 'c7']);
    // ... and it followed the chain: the last call, in the last run, reached it live.
    expect(live).toContain('c7');
    expect(run.records.every((r) => r.streamedDeltas !== undefined)).toBe(true);
  });

  /** Starts a six-step streamed turn that runs as a chain of several runs; `id` names its loopback script. */
  async function startStreamedTurn(id: string) {
    const steps = [1, 2, 3, 4, 5, 6].map((n) =>
      toolCall('calculator', { expression: `${n} * 10` }, { text: `step ${n}. ` }),
    );
    fx.lp.script(id, [...steps, ok(undefined, { chunks: ['all ', 'done.'] })]);
    return startAgentTurn(
      fx.temporal.client,
      {
        model: `local:${id}`,
        prompt: 'Count in tens, out loud',
        tools: ['calculator'],
        stream: { batchMs: 10 },
        deadlineInMs: 300_000,
        reserveMs: 5000,
      },
      { taskQueue },
    );
  }
  /** What a subscriber from 0 reads of such a turn, in short (see `streamTrace`). */
  const everyItem = [
    ...[1, 2, 3, 4, 5, 6].flatMap((n) => [`attempt c${n}.1`, `step ${n}. `, `stop c${n} succeeded`]),
    ...['attempt c7.1', 'all done.', 'stop c7 succeeded'],
  ];

  it('ends a subscriber that paused in an early run until the chain closed, with every delta and event once', async () => {
    const handle = await startStreamedTurn('paused-stream');
    const items = subscribeCallStream(fx.temporal.client, handle.workflowId);
    // The first item comes from the first run; the subscriber then stops reading while the turn continues as
    // new and completes, so its next poll goes to a chain whose every run is closed.
    const first = await items.next();
    const run = await finishTurn(fx, handle);
    expect(run.history.runIds.length).toBeGreaterThan(2);
    const read: CallStreamItem[] = [];
    for (let item = first; !item.done; item = await items.next()) read.push(item.value);
    expect(streamTrace(read)).toEqual(everyItem);
  });

  it('gives a subscriber that starts after the chain closed every delta and the events of every call, once, in order', async () => {
    const handle = await startStreamedTurn('late-stream');
    const run = await finishTurn(fx, handle);
    expect(run.history.runIds.length).toBeGreaterThan(2);
    const items = await readWholeStream(fx.temporal.client, handle.workflowId);
    expect(items.every((item) => item.offset === undefined)).toBe(true);
    // The deltas from the runs' publish signals; each call's attempt and stop rebuilt from the attempts, in the
    // order they reached the stream.
    expect(streamTrace(items)).toEqual(everyItem);
  });

  it('carries only the newest part of a long stream log across runs, never into AgentTurnTooLarge', async () => {
    // Six steps of 2,500 one-letter deltas each: about 2 MB of stream log in all, over the 1.5 MB a turn may
    // carry; the text itself (the conversation) stays small.
    const letters = (n: number) =>
      Array.from({ length: 2500 }, (_, i) => String.fromCharCode(97 + ((i + n) % 26)));
    const steps = [1, 2, 3, 4, 5, 6].map((n) =>
      toolCall('calculator', { expression: `${n} + 1` }, { chunks: letters(n) }),
    );
    // The last answer comes 3 s after its request: the subscriber below polls while the chain still runs.
    fx.lp.script('many-deltas', [...steps, slow(3000, ok(undefined, { chunks: ['all ', 'done.'] }))]);
    const handle = await startAgentTurn(
      fx.temporal.client,
      {
        model: 'local:many-deltas',
        prompt: 'Spell it out',
        tools: ['calculator'],
        stream: { batchMs: 10 },
        deadlineInMs: 300_000,
        reserveMs: 5000,
      },
      { taskQueue },
    );
    // A subscriber from 0 that joins after three model requests: the log carried into the run it polls was cut
    // (it resumes from the oldest item carried), or the chain has closed (it reads it all from the histories).
    await fx.lp.waitForRequests(3, 'many-deltas');
    const items: CallStreamItem[] = [];
    const reading = (async () => {
      for await (const item of subscribeCallStream(fx.temporal.client, handle.workflowId)) items.push(item);
    })();
    const run = await finishTurn(fx, handle);
    await reading;
    expect(run.result?.text).toBe('all done.');
    expect(run.history.runIds.length).toBeGreaterThan(1);
    // What it read from the histories to fill the cut is exactly what it had missed: every item read live sits at
    // its own offset among all it read (before the run it polled: the runs' items, then the carried ones live).
    const misplaced = items.flatMap((item, at) =>
      item.offset !== undefined && item.offset !== at ? [`${item.offset} at ${at}`] : [],
    );
    expect(misplaced).toEqual([]);
    // Every delta once, whichever way it came ...
    const textOf = (id: string) =>
      items.flatMap((i) => (i.kind === 'delta' && i.delta.modelCallId === id ? [i.delta.text] : [])).join('');
    for (const n of [1, 2, 3, 4, 5, 6]) expect(textOf(`c${n}.1`), `c${n}.1`).toBe(letters(n).join(''));
    expect(textOf('c7.1')).toBe('all done.');
    // ... and the events in the order they happened: none of an earlier call after a later one's (an event
    // missed in the middle, behind the cut, is not rebuilt after the later ones read live), ending with the last.
    const calls = items.flatMap((i) => (i.kind === 'event' ? [Number(i.event.callId.slice(1))] : []));
    expect(calls).toEqual([...calls].sort((a, b) => a - b));
    expect(streamTrace(items.filter((i) => i.kind === 'event')).slice(-2)).toEqual([
      'attempt c7.1',
      'stop c7 succeeded',
    ]);
  });
});
