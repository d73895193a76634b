import { ApplicationFailure } from '@temporalio/workflow';
import { TEMPORAL_LIMITS } from '../../policy/index.js';
import { DEFAULT_PAYLOAD_STORE_THRESHOLD_BYTES } from '../../common/worker-config.js';
import type { WorkerConfig } from '../../common/worker-config.js';
import { inlineBytes } from '../../common/inline-bytes.js';
import type { ModelCallFailedDetails } from '../../common/call.js';
import type { AgentTurnPartial, TurnOmitted, TurnStep } from '../../common/turn.js';
import { workerConfigAnswered } from '../call/worker-config.js';
import { jsonBytes } from '../../common/turn-input.js';

/**
 * The most UTF-8 JSON a turn's outcome may be, its result or its failure (message and details): Temporal's
 * payload limit, less room for its encoding. Past it the server terminates the run, and its stop reason is lost.
 */
export const MAX_OUTCOME_BYTES = TEMPORAL_LIMITS.payloadBytes - 16 * 1024;

/**
 * The one size rule of a turn's outcome (`value`, of `bytes` UTF-8 JSON): over {@link MAX_OUTCOME_BYTES}; with a
 * payload store on the worker, what stays inline once the store takes the long strings (many short ones stay).
 * A result over it fails the turn `AgentTurnTooLarge`; a failure over it leaves out its bulky parts.
 */
export function outcomeTooLarge(bytes: number, config: WorkerConfig | undefined, value: unknown): boolean {
  if (bytes <= MAX_OUTCOME_BYTES) return false;
  if (config?.payloadStore !== true) return true;
  const threshold = config.payloadStoreThresholdBytes ?? DEFAULT_PAYLOAD_STORE_THRESHOLD_BYTES;
  return inlineBytes(value, threshold) > MAX_OUTCOME_BYTES;
}

/** Where the parts a failure left out can be read. */
const READ_FROM =
  "the turn's event history: each model attempt's input (activity `<callId>.<attempt>`) carries the whole " +
  'conversation it sent, each answered attempt its answer, each tool activity (`<callId>.tool.<n>`) its result ' +
  '(`temporal workflow show --workflow-id <id>`, or `fetchHistory()` on its handle)';

/**
 * A turn's failure (`ModelCallFailed` with the call's details and `turn`, or `details[0]` the partial turn
 * itself), bounded like its result: when message and details would pass the size rule, it leaves out the bulky
 * parts, step by step until it fits: the conversation the turn added and each step's text (which repeats the
 * assistant messages), then the last assistant text and the call's partial text, then all but the last steps.
 * It keeps the stop reason, the last decision, the counts and totals and the last attempts, and says in
 * `turn.omitted` what it left out and where to read it. A turn that fails is never terminated for its size.
 */
export function turnFailure(
  type: string,
  message: string,
  partial: AgentTurnPartial,
  call?: ModelCallFailedDetails,
): ApplicationFailure {
  const detailsOf = (turn: AgentTurnPartial) => (call ? { ...call, turn } : turn);
  const bytes = jsonBytes(message) + jsonBytes([detailsOf(partial)]);
  // Asked at the run's first model call, which every failure with a partial turn follows; not known: no store.
  const config = workerConfigAnswered()?.config;
  if (!outcomeTooLarge(bytes, config, [message, detailsOf(partial)]))
    return ApplicationFailure.create({ type, nonRetryable: true, message, details: [detailsOf(partial)] });
  const fields: string[] = [];
  let turn: AgentTurnPartial = partial;
  let callDetails = call;
  let cut = message;
  const fits = () => {
    const details = callDetails ? { ...callDetails, turn } : turn;
    return !outcomeTooLarge(jsonBytes(cut) + jsonBytes([details]), config, [cut, details]);
  };
  const leaveOut = (names: string[], next: AgentTurnPartial) => {
    fields.push(...names);
    turn = next;
  };
  leaveOut(['messages', 'steps[].text'], { ...turn, messages: [], steps: turn.steps.map(withoutText) });
  if (!fits()) {
    leaveOut(['text'], { ...turn, text: '' });
    if (callDetails?.partialText !== undefined) {
      const { partialText: _, ...rest } = callDetails;
      callDetails = rest;
      fields.push('partialText');
    }
  }
  if (!fits() && turn.steps.length > LAST_STEPS) {
    leaveOut([`steps before the last ${LAST_STEPS}`], { ...turn, steps: turn.steps.slice(-LAST_STEPS) });
  }
  const omitted: TurnOmitted = { fields, bytes, readFrom: READ_FROM };
  turn = { ...turn, omitted };
  if (!fits()) {
    // What is left is the call's own message (a line per attempt): its head and the last lines are enough.
    cut = `${message.slice(0, MESSAGE_HEAD)}\n… (cut: ${message.length} characters; ${READ_FROM})`;
    omitted.fields.push('message');
  }
  // Still over (steps of many attempts each): the steps' attempt records, then the steps themselves; what remains
  // (stop reason, counts, totals, the call's last attempts) is small and bounded.
  if (!fits()) {
    omitted.fields.push('steps[].attempts');
    turn = { ...turn, steps: turn.steps.map((step) => ({ ...step, attempts: [] })) };
  }
  if (!fits()) {
    omitted.fields.push('steps');
    turn = { ...turn, steps: [] };
  }
  return ApplicationFailure.create({
    type,
    nonRetryable: true,
    message: cut,
    details: [callDetails ? { ...callDetails, turn } : turn],
  });
}

/** The steps a failure keeps when even without texts they would not fit. */
const LAST_STEPS = 20;
/** The characters of a failure's message kept when nothing else is left to leave out. */
const MESSAGE_HEAD = 16_000;

function withoutText(step: TurnStep): TurnStep {
  if (step.text === undefined) return step;
  const { text: _, ...rest } = step;
  return rest;
}
