/**
 * What crosses the boundary between the agent turn workflow and its tool activities. Plain JSON only: it is
 * written into the workflow's event history.
 */

/**
 * A tool's Temporal retry policy. Never unlimited: `maximumAttempts` is between 1 and 100.
 * A tool that should not be retried says `maximumAttempts: 1`.
 */
export interface ToolRetry {
  /** @default 3 */
  maximumAttempts?: number;
  /** @default 1000 */
  initialIntervalMs?: number;
  /** @default 2 */
  backoffCoefficient?: number;
  /** @default 10000 */
  maximumIntervalMs?: number;
}

/** A tool as the workflow knows it: what the model is told, and how its activity is run. */
export interface TurnToolDefinition {
  name: string;
  description?: string;
  /** JSON Schema of the tool's input (an object schema). */
  inputSchema: Record<string, unknown>;
  /** The retry policy of the tool's activity, every default filled in. */
  retry: Required<ToolRetry>;
  /** Temporal's start-to-close timeout of one attempt of the tool, in ms. */
  timeoutMs: number;
  /** Whether a failure of this tool (after its retries) stops the turn instead of going back to the model. */
  fatal: boolean;
}

/** The input of one tool call (`runTool` activity). */
export interface ToolCallInput {
  workflowId: string;
  /** The activity id, `<callId>.tool.<n>`: the n-th tool call the model call `callId` asked for. */
  activityId: string;
  /** The model's id of the tool call (answered in the tool result message). */
  toolCallId: string;
  name: string;
  /** The arguments as the model wrote them (JSON text). */
  args: string;
}

/** A tool call's result: what goes back to the model. */
export interface ToolCallResult {
  /** The tool's output as text (JSON for anything but a string). */
  content: string;
  /** The tool refused the input or failed in a way it reports to the model rather than retrying. */
  isError?: boolean;
  /** Temporal's attempt number of the tool activity that produced this result. */
  attempt: number;
  startedAt: string;
  endedAt: string;
}

/** The failure types the tool activity raises (`ApplicationFailure.type`). */
export const ToolFailureType = {
  /** The tool failed; Temporal retries it by the tool's policy, then the failure goes back to the model. */
  Failed: 'ToolFailed',
  /** The tool says the turn cannot go on: not retried, the turn stops (`non-retryable`). */
  Fatal: 'ToolFatal',
  /** A tool name the worker's registry does not have. */
  Unknown: 'UnknownTool',
} as const;

/** The tool activities' signatures, for `proxyActivities` in workflows. */
export interface ToolActivities {
  runTool(input: ToolCallInput): Promise<ToolCallResult>;
  describeTools(names: string[]): Promise<TurnToolDefinition[]>;
}
