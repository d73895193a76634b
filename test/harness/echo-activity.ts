import { activityInfo } from '@temporalio/activity';

/** The harness workflow's one activity: returns its input, marked with the attempt that ran it. */
export function createHarnessActivities() {
  return {
    async echo(message: string): Promise<string> {
      return `echo: ${message} [activity ${activityInfo().activityId}, attempt ${activityInfo().attempt}]`;
    },
  };
}

export type HarnessActivities = ReturnType<typeof createHarnessActivities>;
