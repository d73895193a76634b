/**
 * The tool activities: `runTool` runs one tool call the model asked for (heartbeating, so it learns of the
 * turn's cancellation), and `describeTools` tells the workflow what the tools it names are.
 */
import { ApplicationFailure, Context } from '@temporalio/activity';
import { ApplicationFailureCategory } from '@temporalio/common';
import { cancellationOutcome } from '../cancellation.js';
import { startHeartbeat } from '../heartbeat.js';
import { boundedMessage } from '../scrub.js';
import { ToolError } from './errors.js';
import type { ToolRegistry } from './registry.js';
import { ToolFailureType } from '../../common/tools.js';
import type { ToolCallInput, ToolCallResult, TurnToolDefinition } from '../../common/tools.js';

/** The longest tool output that goes back to the model, in characters (the rest is cut, and said so). */
export const MAX_TOOL_OUTPUT_CHARS = 100_000;

export interface ToolActivityDeps {
  registry: () => ToolRegistry;
  /** @default Date.now */
  now?: () => number;
  /** How often a running tool heartbeats (the worker's cadence). @default HEARTBEAT_INTERVAL_MS */
  heartbeatIntervalMs?: number;
}

export function createToolActivities(deps: ToolActivityDeps) {
  const now = deps.now ?? Date.now;
  const iso = () => new Date(now()).toISOString();

  /**
   * Runs one tool call. Returns the tool's output, or an error result for arguments that are not JSON and for
   * a `ToolError`. Throws `ToolFatal` (not retried) for a fatal `ToolError`, `ToolFailed` (retried by the
   * tool's policy) for any other error, and the `CancelledFailure` when the turn was cancelled.
   */
  async function runTool(input: ToolCallInput): Promise<ToolCallResult> {
    const ctx = Context.current();
    const startedAt = iso();
    const attempt = ctx.info.attempt;
    // No heartbeat at the start: a tool that ends within one interval (most do) has nothing to say, and each
    // heartbeat is an RPC, a write at the server and a billed action. A longer one heartbeats every interval,
    // which is how it learns of the turn's cancellation and keeps its heartbeat timeout. Its beats carry nothing:
    // no one reads a tool's heartbeat details (its record's times are the workflow's and the result's), and
    // details are encoded (and encrypted) at every beat.
    const stop = startHeartbeat(ctx, undefined, deps.heartbeatIntervalMs);
    const result = (content: string, isError: boolean): ToolCallResult => ({
      content,
      ...(isError ? { isError: true } : {}),
      attempt,
      startedAt,
      endedAt: iso(),
    });
    try {
      const spec = deps.registry().get(input.name);
      if (!spec) return result(`unknown tool \`${input.name}\``, true);
      let args: unknown;
      try {
        args = input.args.trim() === '' ? {} : (JSON.parse(input.args) as unknown);
      } catch {
        return result('the arguments are not valid JSON', true);
      }
      try {
        const value: unknown = await spec.run(args as Record<string, unknown>, {
          signal: ctx.cancellationSignal,
          attempt,
          workflowId: input.workflowId,
          toolCallId: input.toolCallId,
          now,
        });
        if (ctx.cancellationSignal.aborted) throw ctx.cancellationSignal.reason;
        return result(outputText(value), false);
      } catch (error) {
        if (ctx.cancellationSignal.aborted) {
          const outcome = cancellationOutcome(ctx);
          if (outcome.kind === 'cancelled') throw outcome.failure;
          throw toolFailure(ToolFailureType.Failed, 'the worker shut down while the tool ran', false);
        }
        const message =
          boundedMessage(error instanceof Error ? error.message : String(error)) || 'the tool failed';
        if (error instanceof ToolError) {
          if (error.fatal) throw toolFailure(ToolFailureType.Fatal, message, true);
          return result(message, true);
        }
        throw toolFailure(ToolFailureType.Failed, message, false);
      }
    } finally {
      stop();
    }
  }

  /** The definitions of the named tools; a name the registry lacks fails with a non-retryable `UnknownTool`. */
  function describeTools(names: string[]): Promise<TurnToolDefinition[]> {
    const registry = deps.registry();
    const unknown = names.filter((n) => registry.get(n) === undefined);
    if (unknown.length > 0) {
      throw ApplicationFailure.create({
        type: ToolFailureType.Unknown,
        nonRetryable: true,
        message:
          `the worker has no tool ${unknown.map((n) => `\`${n}\``).join(', ')}; its tools are ` +
          `${registry.names().join(', ') || '(none)'}. Add it with createActivities({ tools: { ... } }).`,
      });
    }
    return Promise.resolve(names.map((n) => registry.definition(n) as TurnToolDefinition));
  }

  return { runTool, describeTools };
}

function outputText(value: unknown): string {
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? '');
  if (text.length <= MAX_TOOL_OUTPUT_CHARS) return text;
  return `${text.slice(0, MAX_TOOL_OUTPUT_CHARS)}\n[cut: the output was ${text.length} characters]`;
}

function toolFailure(type: string, message: string, nonRetryable: boolean): ApplicationFailure {
  return ApplicationFailure.create({
    type,
    message,
    nonRetryable,
    category: ApplicationFailureCategory.BENIGN,
  });
}
