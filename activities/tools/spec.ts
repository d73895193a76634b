/** What a worker's tool is: the shape users write (`createActivities({ tools })`). */
import type { ToolRetry } from '../../common/tools.js';

/** What a tool's `run` gets besides its input. */
export interface ToolContext {
  /** Aborts when the turn is cancelled (or the worker shuts down): stop work and let the error through. */
  signal: AbortSignal;
  /** Temporal's attempt number of this tool call (1, 2, ... as the tool's retry policy retries it). */
  attempt: number;
  workflowId: string;
  toolCallId: string;
  /** The activity's clock, in ms since the epoch. */
  now(): number;
}

/** A tool: its description and input schema (told to the model), its function, its retry policy and timeout. */
export interface ToolSpec<Input = Record<string, unknown>> {
  description?: string;
  /** JSON Schema of the input, an object schema. The model's arguments are parsed, not validated against it. */
  inputSchema: Record<string, unknown>;
  /**
   * Runs the tool. Its value goes back to the model (a string as is, anything else as JSON). A thrown
   * `ToolError` goes back to the model at once (or stops the turn when `fatal`); any other error is retried by
   * `retry`, and after the last attempt goes back to the model as an error result.
   */
  run(input: Input, ctx: ToolContext): unknown;
  /** @default { maximumAttempts: 3, initialIntervalMs: 1000, backoffCoefficient: 2, maximumIntervalMs: 10000 } */
  retry?: ToolRetry;
  /** The longest one attempt may take, in ms (Temporal's start-to-close timeout). @default 60000 */
  timeoutMs?: number;
  /** A failure of this tool (after its retries) stops the turn instead of going back to the model. @default false */
  fatal?: boolean;
}
