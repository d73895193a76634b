import { describe, expect, it } from 'vitest';
import { ACTIVITY_SLOTS, createSlotController, otherTuning, workerSlots } from '../../../worker/tuning.js';
import type { WorkerTuning } from '../../../worker/tuning.js';

const FIXED = [
  'maxConcurrentActivityTaskExecutions',
  'maxConcurrentWorkflowTaskExecutions',
  'maxConcurrentLocalActivityExecutions',
] as const;

/** Every subset of the fixed slot counts, each given a distinct value. */
const subsets: WorkerTuning[] = Array.from({ length: 1 << FIXED.length }, (_, mask) =>
  Object.fromEntries(FIXED.flatMap((key, i) => (mask & (1 << i) ? [[key, 7 + i]] : []))),
);

describe("a worker's slots", () => {
  it('by default take attempts beyond 100 only while the machine has CPU and memory to spare, up to 500', () => {
    const slots = workerSlots();
    for (const key of FIXED) expect(slots).not.toHaveProperty(key);
    expect(slots.tuner).toMatchObject({
      workflowTaskSlotSupplier: { type: 'fixed-size', numSlots: 40 },
      activityTaskSlotSupplier: { type: 'resource-based', minimumSlots: 100, maximumSlots: 500 },
      localActivityTaskSlotSupplier: { type: 'fixed-size' },
      nexusTaskSlotSupplier: { type: 'fixed-size' },
    });
    expect(ACTIVITY_SLOTS.targetCpuUsage).toBeLessThan(1);
  });

  it('share the one controller they are given, so the workers of a process hold one CPU target', () => {
    const controller = createSlotController();
    const a = workerSlots({}, controller).tuner as { activityTaskSlotSupplier: { controller?: unknown } };
    const b = workerSlots({ maxCachedWorkflows: 10 }, controller).tuner as typeof a;
    expect(a.activityTaskSlotSupplier.controller).toBe(controller);
    expect(b.activityTaskSlotSupplier.controller).toBe(controller);
  });

  it('default to one controller per process: two workers made separately share it', () => {
    const a = workerSlots().tuner as { activityTaskSlotSupplier: { controller?: unknown } };
    const b = workerSlots().tuner as typeof a;
    expect(a.activityTaskSlotSupplier.controller).toBeDefined();
    expect(b.activityTaskSlotSupplier.controller).toBe(a.activityTaskSlotSupplier.controller);
  });

  it('are fixed, and the tuner left out, whenever the user names any slot count (the SDK refuses both)', () => {
    for (const tuning of subsets.slice(1)) {
      const slots = workerSlots(tuning);
      expect(slots.tuner).toBeUndefined();
      for (const key of FIXED) if (tuning[key] !== undefined) expect(slots[key]).toBe(tuning[key]);
      expect(slots.maxConcurrentActivityTaskExecutions).toBe(
        tuning.maxConcurrentActivityTaskExecutions ?? ACTIVITY_SLOTS.maximumSlots,
      );
    }
  });

  it("leave the user's other settings to the worker, without the slot counts", () => {
    for (const tuning of subsets) {
      const rest = otherTuning({ ...tuning, maxCachedWorkflows: 12, workflowThreadPoolSize: 2 });
      expect(rest).toEqual({ maxCachedWorkflows: 12, workflowThreadPoolSize: 2 });
    }
  });
});
