/** The help texts of the commands that send a model request: `call` and `turn`. */
import { SETTINGS_HELP } from './settings-flags.js';
import { BUDGET_HELP } from './budget-flags.js';
import { PART_HELP } from './part-flags.js';
import { REQUEST_HELP, TOOL_CHOICE_HELP } from './request-flags.js';

export const CALL_HELP = `Usage: model-retry call --model P:M [--model P:M ...] --prompt TEXT | --prompt-file FILE [--system TEXT]
                         [--image FILE ...] [--file FILE ...] [--provider-options JSON] [--header NAME:VALUE ...]
                         [--tenant NAME]
                         [--tool-choice auto|none|required|tool:NAME]
                         [--waits MS,MS,... | --backoff K=V,... | --no-retry] [--max-attempts N]
                         [--deadline MS] [--reserve MS] [--attempt-timeout MS] [--min-attempt MS]
                         [--max-output-tokens N] [--temperature X] [--top-p X] [--top-k N] [--stop TEXT ...]
                         [--seed N] [--presence-penalty X] [--frequency-penalty X] [--reasoning EFFORT]
                         [--budget-usd N] [--budget-tokens N]
                         [--stream [--stream-batch-ms MS] [--on-cut stop|continue] | --schema FILE]
                         [--workflow-id ID] [--task-queue Q] [--json]
       model-retry call --workflow-id ID [--stream] [--json]      (attach to an existing call)

Runs one durable model call (a modelCallWorkflow) and waits for it. A worker must poll the task queue
(model-retry worker); with none, the call waits and the CLI says so after a few seconds.

Call:
  --model P:M          A backend as provider:model; repeat for a fallback chain, tried in order.
  --prompt TEXT        The user message.
  --prompt-file FILE   The user message from a file (- for standard input), for prompts too long to type.
                       An input over Temporal's 2 MB payload limit is refused (exit 2) unless the payload
                       store is on (MODEL_RETRY_PAYLOAD_STORE).
  --system TEXT        A system message.
  --stream             Stream the answer: its text is printed on stdout as it arrives. A stream that
                       failed after part of it reached you is never sent again: by default the call stops
                       stream-interrupted with the partial text (printed) and exit 1.
  --on-cut continue    A cut stream is classified by what cut it and the plan decides; the next attempt
                       (same backend or the next) continues the text from its last delivered character,
                       each character printed once. --on-cut stop is the default. Implies --stream.
  --stream-batch-ms MS How long deltas collect before they are published as one batch (default 500,
                       10 to 60000): lower is snappier, higher writes fewer history events. Implies --stream.
  --schema FILE        Structured output: the answer must be JSON valid against the JSON Schema in FILE
                       (asked of the provider natively; validated by the worker). An answer that does not
                       validate is SchemaMismatch: the same backend is asked again at once with the
                       validator's errors (2 repairs, then the next backend). The parsed JSON is printed.
                       Not with --stream.

${PART_HELP}
${REQUEST_HELP}${TOOL_CHOICE_HELP}
Retry plan (checked before anything starts; a refusal names the flag and the fix, exit 2). Without any
of these flags exactly ONE attempt is made (a hint says so); any of them turns retry on:
  --waits 10,30        Explicit waits in ms between attempts. With --deadline the last wait repeats.
  --backoff K=V,...    Exponential backoff; keys initialMs (1000), factor (2), maxMs (30000), jitterMs (500),
                       e.g. --backoff initialMs=500,factor=3. \`--backoff default\` for all defaults.
                       Retry flags without --waits or --backoff use the default backoff.
  --no-retry           Exactly one attempt, said explicitly (silences the hint); not with other plan flags.
  --max-attempts N     Most attempts across all backends (default 100, at most 1000).
  --deadline MS        Deadline in ms from the workflow's start (RetryPlan.deadlineInMs).
  --reserve MS         Time before the deadline the call never spends (default 60000).
  --attempt-timeout MS Longest single attempt (default 300000).
  --min-attempt MS     Shortest time worth starting an attempt for (default 1000).

${SETTINGS_HELP}
${BUDGET_HELP}
Run:
  --workflow-id ID     The call's id (default model-call-<uuid>). One id is one call: running the command
                       again with the same id attaches to that call if it runs, or prints its recorded
                       outcome if it has ended (nothing new starts, nothing is paid twice). For a new call,
                       use a new id.
  --task-queue Q       Task queue (env MODEL_RETRY_TASK_QUEUE, default "model-retry").
  --json               Print one JSON object on stdout when the call ends:
                       { workflowId, status: "succeeded"|"failed"|"cancelled", stopReason, output?, model?,
                         usage?, partialText?, attempts, billed }. On exit 3: { workflowId, status:
                         "unknown", reason }. With --json, streamed text is not printed as it arrives.

Output without --json: progress on stderr (each attempt as it starts and ends, each wait with its cause;
a live countdown on a terminal, one line per event when piped), the answer on stdout, a summary line
on stderr. With --json, stderr carries only hints and warnings.

Ctrl-C detaches: the call goes on (exit 3); attach again with --workflow-id, stop it with model-retry cancel.

Exit codes: 0 succeeded; 1 failed or cancelled (or Temporal unreachable: nothing started); 2 refused input,
nothing started; 3 outcome unknown (detached, or the connection was lost): the workflow id is printed and
the call goes on.
`;

export const TURN_HELP = `Usage: model-retry turn --model P:M [--model P:M ...] --prompt TEXT [--system TEXT] [--tool NAME ...]
                         [--image FILE ...] [--file FILE ...] [--provider-options JSON] [--header NAME:VALUE ...]
                         [--tenant NAME]
                         [--max-steps N] [--waits MS,MS,... | --backoff K=V,... | --no-retry] [--max-attempts N]
                         [--deadline MS] [--reserve MS] [--attempt-timeout MS] [--min-attempt MS]
                         [--max-output-tokens N] [--temperature X] [--top-p X] [--top-k N] [--stop TEXT ...]
                         [--seed N] [--presence-penalty X] [--frequency-penalty X] [--reasoning EFFORT]
                         [--budget-usd N] [--budget-tokens N]
                         [--stream [--on-cut stop|continue]] [--workflow-id ID] [--task-queue Q] [--json]
       model-retry turn --workflow-id ID [--stream] [--json]      (attach to an existing turn)

Runs one agent turn (an agentTurnWorkflow) and waits for it: the model is called, the tools it asks for run
as activities (in parallel when it asks for several), their results go back to the model, and so on until a
final answer, --max-steps model calls, or the deadline (with the reserve left). Every model call retries by
the plan flags; the deadline, the reserve and providers' retry-after times are the turn's, shared by all its
calls. A worker must poll the task queue (model-retry worker).

Turn:
  --model P:M          A backend as provider:model; repeat for a fallback chain.
  --prompt TEXT        The user message.     --system TEXT   A system message.
  --tool NAME          A tool of the worker the model may call; repeat for more. Built in: get_time,
                       calculator, sleep_ms, fail_tool (see docs/guide/turns.md for adding your own).
  --max-steps N        Most model calls of the turn (default 50, at most 10000).
  --deadline MS        The turn's deadline in ms from its start.  --reserve MS  Time left to the host (60000).
  --stream             Stream every model call: text is printed on stdout as it arrives (batches of 500 ms).
  --on-cut continue    A model call whose stream is cut continues its text on the next attempt (see
                       \`model-retry call --help\`). Implies --stream.

${PART_HELP}
${REQUEST_HELP}
Retry plan of each model call: --waits, --backoff, --no-retry, --max-attempts, --attempt-timeout,
--min-attempt, as for \`model-retry call\` (without them, one attempt per model call; a hint says so).

${SETTINGS_HELP}
${BUDGET_HELP}(A turn's budget spans all its model calls; a turn stopped by it ends like one at its deadline.)

Run: --workflow-id ID (one id is one turn: a re-run attaches or prints its recorded outcome), --task-queue Q,
--json: one object on stdout when the turn ends: { workflowId, status: "succeeded"|"stopped"|"failed"|
"cancelled", stopReason, text?, messages?, steps?, usage?, attempts, billed, runs } ("stopped": ended at the
deadline, by its budget or after --max-steps without a final answer, with what it had). On exit 3: { workflowId, status:
"unknown", reason }.

Ctrl-C detaches: the turn goes on (exit 3); stop it with model-retry cancel ID.

Exit codes: 0 final answer; 1 stopped without one (deadline, budget, max-steps), failed or cancelled; 2 refused input,
nothing started; 3 outcome unknown (detached, or the connection was lost).
`;
