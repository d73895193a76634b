/**
 * Slow local activities: the moments before an attempt (the worker config ask, the cooling check, the search
 * attributes check) made long enough that a scenario can cancel its call, or kill its worker, while one runs.
 *
 * A worker plugin with an activity interceptor, on every in-process worker of the suite: a local activity of a
 * watched workflow first sleeps `ms` on the activity's own clock (so a cancel or a worker shutdown ends the sleep
 * as it would end a slow check), then runs as usual. A `model-retry worker` process has no such plugin: with a
 * second worker, only the checks that land on an in-process worker are slow.
 */
import { Context } from '@temporalio/activity';
import { SimplePlugin } from '@temporalio/plugin';

/** One watched call: how long its local activities take, and how many have begun. */
export interface CheckWatch {
  ms: number;
  /** Local activities of the call begun so far (retries after a worker loss count again). */
  started: number;
}

const watched = new Map<string, CheckWatch>();

/** Makes every local activity of `workflowId` take `ms` longer; `started` counts them. */
export function watchChecks(workflowId: string, ms: number): CheckWatch {
  const watch: CheckWatch = { ms, started: 0 };
  watched.set(workflowId, watch);
  return watch;
}

export function unwatchChecks(workflowId: string): void {
  watched.delete(workflowId);
}

/** The plugin every in-process scenario worker carries. */
export const slowChecksPlugin = new SimplePlugin({
  name: 'model-retry-scenario-slow-checks',
  workerInterceptors: {
    activity: [
      () => ({
        inbound: {
          async execute(input, next) {
            const ctx = Context.current();
            const watch = ctx.info.isLocal
              ? watched.get(ctx.info.workflowExecution?.workflowId ?? '')
              : undefined;
            if (watch !== undefined) {
              watch.started++;
              await ctx.sleep(watch.ms);
            }
            return next(input);
          },
        },
      }),
    ],
  },
});
