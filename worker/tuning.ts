/**
 * How much work one model-retry worker takes on at once: its task slots. An attempt holds its activity slot while
 * it waits for the provider, for seconds to minutes, using next to no CPU, so a worker wants many activity slots;
 * but every attempt it has started must also heartbeat (every c, default 5 s, a heartbeat timeout of 3c), and a worker
 * whose CPU is taken (5,000 workflows queued on two cores, BENCHMARKS.md 11) cannot heartbeat 500 attempts: they
 * timed out as `WorkerLost`. An attempt still in the task queue has no heartbeat to miss (only its deadline runs),
 * so the worker takes a new attempt beyond the first 100 only while the machine has CPU and memory to spare:
 * Temporal's own resource-based slot supplier, up to 500 (see
 * docs/decisions/fleet-health-limits/014-activity-slots-by-resource.md).
 */
import { ResourceBasedController } from '@temporalio/worker';
import type { WorkerOptions, WorkerTuner } from '@temporalio/worker';

/** The worker settings that decide how much work one worker takes on at once. */
export type WorkerTuning = Pick<
  WorkerOptions,
  | 'maxConcurrentActivityTaskExecutions'
  | 'maxConcurrentWorkflowTaskExecutions'
  | 'maxConcurrentLocalActivityExecutions'
  | 'maxCachedWorkflows'
  | 'workflowTaskPollerBehavior'
  | 'activityTaskPollerBehavior'
  | 'nonStickyToStickyPollRatio'
  | 'workflowThreadPoolSize'
>;

/**
 * model-retry's activity slots: resource-based between `minimumSlots` (the SDK's fixed default, which a worker
 * always has) and `maximumSlots` (what `npm run bench -- concurrency` measured as enough for long requests), one
 * more at most every `rampThrottleMs` while the machine's CPU and memory stay under their targets (Temporal's
 * documented example targets).
 */
export const ACTIVITY_SLOTS = {
  minimumSlots: 100,
  maximumSlots: 500,
  rampThrottleMs: 10,
  targetCpuUsage: 0.9,
  targetMemoryUsage: 0.8,
} as const;

/** The SDK's own fixed defaults for the other kinds of slot (a tuner must name every kind). */
const FIXED_SLOTS = { workflow: 40, localActivity: 100, nexus: 100 } as const;

const FIXED_KEYS = [
  'maxConcurrentActivityTaskExecutions',
  'maxConcurrentWorkflowTaskExecutions',
  'maxConcurrentLocalActivityExecutions',
] as const;

/** The slot options of a worker: either `tuner`, or the fixed counts (the SDK refuses both at once). */
export type WorkerSlots = Pick<WorkerOptions, 'tuner' | (typeof FIXED_KEYS)[number]>;

let processController: ResourceBasedController | undefined;

/**
 * The process's resource controller, made on first use: the workers of a process share its CPU, so they share one
 * target (two model-retry workers with a controller each would each ramp up to the maximum against it).
 */
export function createSlotController(): ResourceBasedController {
  const { targetCpuUsage, targetMemoryUsage } = ACTIVITY_SLOTS;
  processController ??= ResourceBasedController.create({ targetCpuUsage, targetMemoryUsage });
  return processController;
}

/**
 * The slots of a worker given the user's `tuning`: a fixed count the user names (any of
 * `maxConcurrent*Executions`) means fixed slots for every kind, as the SDK would give them, with model-retry's 500
 * activity slots unless named too; otherwise model-retry's resource-based activity slots (`ACTIVITY_SLOTS`).
 */
export function workerSlots(
  tuning: WorkerTuning = {},
  controller: ResourceBasedController = createSlotController(),
): WorkerSlots {
  if (FIXED_KEYS.some((key) => tuning[key] !== undefined)) {
    const fixed: WorkerSlots = { maxConcurrentActivityTaskExecutions: ACTIVITY_SLOTS.maximumSlots };
    for (const key of FIXED_KEYS) if (tuning[key] !== undefined) fixed[key] = tuning[key];
    return fixed;
  }
  const { minimumSlots, maximumSlots, rampThrottleMs } = ACTIVITY_SLOTS;
  const tuner: WorkerTuner = {
    workflowTaskSlotSupplier: { type: 'fixed-size', numSlots: FIXED_SLOTS.workflow },
    activityTaskSlotSupplier: {
      type: 'resource-based',
      minimumSlots,
      maximumSlots,
      rampThrottle: rampThrottleMs,
      controller,
    },
    localActivityTaskSlotSupplier: { type: 'fixed-size', numSlots: FIXED_SLOTS.localActivity },
    nexusTaskSlotSupplier: { type: 'fixed-size', numSlots: FIXED_SLOTS.nexus },
  };
  return { tuner };
}

/** `tuning` less its slot counts (`workerSlots` decides those), for the worker's other settings. */
export function otherTuning<T extends WorkerTuning>(tuning?: T): Omit<T, (typeof FIXED_KEYS)[number]> {
  const rest = { ...tuning } as T;
  for (const key of FIXED_KEYS) delete rest[key];
  return rest;
}
