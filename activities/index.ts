/**
 * model-retry/activities: `createActivities(deps)` gives a worker every activity model-retry's workflows call.
 */
import { createHarnessActivities } from './harness.js';

// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface ActivityDeps {}

export function createActivities(_deps: ActivityDeps = {}) {
  return {
    ...createHarnessActivities(),
  };
}

export type Activities = ReturnType<typeof createActivities>;
