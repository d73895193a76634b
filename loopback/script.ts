import { describeStep } from './step-builders.js';
import type { Step } from './steps.js';
import { InvalidScriptError, parseSteps } from './validate.js';

/** The script key that serves any model whose own script is empty. */
export const ANY_MODEL = '*';

/** The step chosen for a request. */
export interface Served {
  step: Step;
  /** The script it came from: the model's name, or `*`. */
  script: string;
  /** Position of the step in that script (0-based; a repeating step keeps its position). */
  index: number;
}

interface Queue {
  steps: Step[];
  /** Index of the next step. */
  next: number;
}

/**
 * Per-model queues of steps. A request for model M takes the next step of M's script; when M's script is
 * empty, the next step of the `*` script; when both are empty, nothing (the server then fails loudly).
 * A step with `repeat: true` is never used up: it answers every further request.
 */
export class ScriptBook {
  private readonly queues = new Map<string, Queue>();
  private readonly served = new Map<string, number>();

  /** Appends steps (plain JSON is validated) to the script of `model` (`*` for any model). */
  add(model: string, steps: readonly unknown[]): void {
    if (model === '') throw new InvalidScriptError('model must be a non-empty string (or "*" for any model)');
    const parsed = parseSteps(steps, `script("${model}")`);
    const queue = this.queues.get(model) ?? { steps: [], next: 0 };
    const last = queue.steps.at(-1);
    if (last?.repeat === true && parsed.length > 0) {
      throw new InvalidScriptError(
        `script("${model}") already ends with a step that repeats forever (${describeStep(last)}); ` +
          'call reset() first to replace it',
      );
    }
    queue.steps.push(...parsed);
    this.queues.set(model, queue);
  }

  /** Takes the step for the next request to `model`, or undefined when its script ran out. */
  take(model: string): Served | undefined {
    this.served.set(model, this.servedCount(model) + 1);
    return this.takeFrom(model) ?? (model === ANY_MODEL ? undefined : this.takeFrom(ANY_MODEL));
  }

  /** How many requests named `model` so far (including ones that found the script empty). */
  servedCount(model: string): number {
    return this.served.get(model) ?? 0;
  }

  /** Steps not used yet, per script; repeating steps are not counted (they never run out). */
  remaining(): Record<string, Step[]> {
    const out: Record<string, Step[]> = {};
    for (const [model, queue] of this.queues) {
      const left = queue.steps.slice(queue.next).filter((s) => s.repeat !== true);
      if (left.length > 0) out[model] = left;
    }
    return out;
  }

  /** The names of the scripted models (without `*`). */
  models(): string[] {
    return [...this.queues.keys()].filter((m) => m !== ANY_MODEL);
  }

  /** Forgets every script and count. */
  clear(): void {
    this.queues.clear();
    this.served.clear();
  }

  private takeFrom(model: string): Served | undefined {
    const queue = this.queues.get(model);
    const step = queue?.steps[queue.next];
    if (queue === undefined || step === undefined) return undefined;
    const index = queue.next;
    if (step.repeat !== true) queue.next += 1;
    return { step, script: model, index };
  }
}
