/** The help texts of the command line; those of `call` and `turn` are in `help-requests.ts`. */
import { MAX_RERUN_CHILDREN } from '../common/rerun-input.js';

export { CALL_HELP, TURN_HELP } from './help-requests.js';

export const MAIN_HELP = `model-retry: durable LLM calls on Temporal. Every attempt is an activity, every wait a durable
timer, every failure classified and kept in the workflow's history.

Usage: model-retry <command> [options]

Commands:
  demo      Start an embedded Temporal dev server, an in-process worker and a flaky provider on loopback; run an
            agent turn that calls a tool, meets a 502 and a 429 and recovers; print its timeline and exit
            (what \`npm start\` runs). --keep leaves the server and its Web UI up until Ctrl-C.
  worker    Run a worker for an existing Temporal server (TEMPORAL_ADDRESS etc.).
  call      Run one durable model call and wait for it (needs a worker on the task queue).
  turn      Run one agent turn (model calls and tool calls under one deadline) and wait for it.
  cancel    Cancel a call by its workflow id and wait until it has closed.
  history   The attempts of a call rebuilt from its event history alone (by workflow id, or --file EXPORT);
            --html FILE draws them as a timeline page.
  rerun     Send recorded calls (by workflow id, or --query) again to other models, as one rerun workflow, and
            compare the answers side by side with the recorded ones.
  list      Model calls and agent turns found by their search attributes
            (--query "ModelRetryStopReason = 'deadline'").
  health    Fleet health: every backend's breaker (closed / open / half-open) on the task queue;
            \`health reset BACKEND\` sets one closed.
  codec-server
            Serve Temporal's codec endpoint (POST /decode, /encode) with the payload keys and store of the
            environment, so the Temporal Web UI shows encrypted payloads decoded.
  help      Show this help, or \`model-retry help <command>\`.

Connection settings follow Temporal's conventions: TEMPORAL_ADDRESS (default localhost:7233),
TEMPORAL_NAMESPACE (default "default"), TEMPORAL_API_KEY, TEMPORAL_TLS_*, TEMPORAL_PROFILE and the
Temporal config file. Task queue: --task-queue or MODEL_RETRY_TASK_QUEUE (default "model-retry").
Payloads: MODEL_RETRY_CODEC_KEYS (or MODEL_RETRY_CODEC_KEYS_FILE) encrypts them (AES-256-GCM) and
MODEL_RETRY_PAYLOAD_STORE keeps large strings out of the history; set them alike for workers and every
command (see docs/operations/security.md).

Exit codes: 0 done; 1 failed or cancelled; 2 refused input (nothing was started); 3 outcome unknown
(the CLI lost the call or was detached from it: the call goes on; run \`model-retry call --workflow-id ID\`
to attach again).
`;

export const WORKER_HELP = `Usage: model-retry worker [--providers FILE] [--tenants FILE] [--task-queue Q]
                          [--shutdown-grace-ms MS] [--heartbeat-ms MS] [--metrics HOST:PORT] [--health]

Runs model-retry's workflows and activities for an existing Temporal server until SIGINT/SIGTERM.

Options:
  --providers FILE         Providers JSON file (env MODEL_RETRY_PROVIDERS), read and checked at start: a bad
                           file is refused with exit 2, naming each problem. Keys stay in the environment:
                           { "local": { "type": "openai-compatible", "baseURL": "http://127.0.0.1:8080/v1",
                                        "apiKeyEnv": "LOCAL_KEY" } }
                           Types: openai-compatible, openai, anthropic, google, openai-responses.
                           An entry (or a model under its "models") may carry "limits": { "requestsPerSecond":
                           5, "maxInFlight": 8 }: the rate for all workers together (the worker also polls
                           Q/limit/<key>), the in-flight cap per worker process. A model's "maxOutputTokens"
                           (its output limit) bounds what its attempts reserve against a tenant's envelope.
  --tenants FILE           Tenants JSON file (env MODEL_RETRY_TENANTS), read and checked at start like the
                           providers file: each tenant's envelope (spend per "day" or "month", UTC, or per
                           rolling "windowMs") and fairness weight, "*" for every tenant it does not name:
                           { "acme": { "maxTotalTokens": 2000000, "period": "day", "weight": 2 },
                             "*": { "maxCostUsd": 5, "period": "month" } }
                           Fields: maxCostUsd, maxTotalTokens, period, windowMs, weight (default 1).
  --task-queue Q           Task queue to poll (env MODEL_RETRY_TASK_QUEUE, default "model-retry").
  --shutdown-grace-ms MS   On SIGINT/SIGTERM, how long in-flight model requests may finish before they are
                           cancelled (env MODEL_RETRY_SHUTDOWN_GRACE_MS, default 60000). An attempt cut short
                           is recorded as WorkerLost and retried by its plan. A second Ctrl-C exits at once.
  --heartbeat-ms MS        How often attempts in flight heartbeat (env MODEL_RETRY_HEARTBEAT_MS, default 5000):
                           a cancel reaches a request within MS plus a round trip, a lost worker is known
                           within 3 x MS, and each heartbeat is a billed action on Temporal Cloud.
  --metrics HOST:PORT      Serve Prometheus metrics on http://HOST:PORT/metrics (env MODEL_RETRY_METRICS_ADDRESS):
                           Temporal's worker metrics (temporal_*) and model-retry's own
                           (model_retry_attempts, _attempt_ms, _calls, _waits, _wait_ms; with --health
                           model_retry_backend_state, _health_trips, _health_probes, _health_cooled_attempts).
  --health                 Fleet health (env MODEL_RETRY_HEALTH=on): a backend failing for some calls is spared
                           by all, across every worker, until a probe finds it back (see \`model-retry health\`).
                           A provider's "health" entry in the providers file sets its own trip and cool-down.

At start the worker checks that model-retry's search attributes are registered on the namespace; if not, it
warns with the \`temporal operator search-attribute create\` command that registers them and runs anyway
(calls and turns then do not set them, and \`model-retry list\` cannot find runs by stop reason).

Environment: TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TEMPORAL_API_KEY, TEMPORAL_TLS_*, TEMPORAL_PROFILE.
`;

export const CODEC_SERVER_HELP = `Usage: model-retry codec-server [--listen HOST:PORT] [--ui-origin URL ...]

Serves Temporal's codec server protocol (POST /decode and /encode, also under /NAMESPACE/...) with the payload
keys and store of the environment, the same variables as the workers': the Temporal Web UI (Settings, "Codec
Server", or the UI server's TEMPORAL_CODEC_ENDPOINT) and \`temporal ... --codec-endpoint URL\` then show
encrypted payloads decoded, to whoever may call it. Runs until Ctrl-C.

Options:
  --listen HOST:PORT   Where to listen (default 127.0.0.1:8888). Bind beyond loopback only behind TLS.
  --ui-origin URL      A Web UI origin allowed by CORS; repeat for more (env MODEL_RETRY_CODEC_SERVER_ORIGINS,
                       comma-separated; default http://localhost:8233, http://127.0.0.1:8233,
                       http://localhost:8080). "*" allows any origin (without credentials).

Environment:
  MODEL_RETRY_CODEC_KEYS / MODEL_RETRY_CODEC_KEYS_FILE   the keys (ID:BASE64KEY, first encrypts)
  MODEL_RETRY_PAYLOAD_STORE (+ AWS_* for s3://)          the payload store, when the workers use one
  MODEL_RETRY_CODEC_SERVER_TOKEN                         when set, every request must carry
                                                         "Authorization: Bearer <token>" (else 401)

Exit codes: 0 stopped; 2 bad options, or no keys and no store (nothing to decode).
`;

export const HISTORY_HELP = `Usage: model-retry history WORKFLOW_ID [--json] [--html FILE]
       model-retry history --file EXPORT.json [--file NEXT-RUN.json ...] [--json] [--html FILE]

The attempts of a model call rebuilt from its event history alone: no worker is needed, and it works after the
workflow has closed and on an exported history (\`temporal workflow show --output json\`, or the demo's export).
By default a readable timeline, one line per attempt: <callId>.<attempt>, [backend] model, outcome (failure class
and HTTP status), how long the request took, and the action and wait that followed.

Options:
  --json        Print { workflowId, status, stopReason, output?, usage?, attempts, billed } instead.
  --file F      Read an exported history instead of asking the server. A file holds one run: for a workflow
                that continued as new, pass one --file per run (any order; missing runs are named).
  --html FILE   Also write a self-contained HTML page: an SVG timeline (attempt bars coloured by outcome,
                waits, the deadline and reserve as lines, class and status on hover) and a table of attempts.

By workflow id, every run of a continue-as-new chain is read, oldest first.

Environment (without --file): TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TEMPORAL_API_KEY, TEMPORAL_TLS_*, TEMPORAL_PROFILE.
`;

export const RERUN_HELP = `Usage: model-retry rerun WORKFLOW_ID [WORKFLOW_ID ...] [--call cN] --model P:M [--model P:M ...]
       model-retry rerun --query "..." [--limit N] --model P:M [--model P:M ...]

What another model would have answered to the requests a call or an agent turn really sent. Each recorded call's
first request (as its first attempt sent it: no repair's corrections, no continuation) is read from the history,
decoded with the payload keys and store of the environment like a worker, and sent again to every --model as a
child call of one rerun workflow (its own history; its memo names the workflows it reran). The recorded runs are
only read. An agent turn is rerun step by step, each step on the conversation recorded up to it: the candidates'
tool calls are compared, never run. Provider-bound reasoning is left out for another provider's backends.

Prints one block per request (the original answer, then each candidate's: outcome, finish reason, tokens, cost,
latency, text and tool calls), the requests skipped and why (a stored payload that is gone, an embedding, a call
still running, the budget), and the totals per model. Exit 0 when the rerun ran, whatever the models answered;
2 when it is refused before it starts (nothing to rerun, with why; more than ${MAX_RERUN_CHILDREN} child calls,
requests × models, for one run's event limit; a --html path that cannot be written).

An original's latency, tokens and cost span its whole recorded call (its retries and waits included); a
candidate's span its own child call: the comparison is of calls, not of single attempts.

Options:
  --model P:M         A candidate model (repeat for more); each gets every request.
  --call cN           Only this call of the workflow (an agent turn's step k is cK).
                      With --query, a run without that call is skipped (named in the report).
  --query Q           Rerun the runs a visibility query finds (as \`list --query\`), newest first.
  --limit N           With --query: the most workflows (default 10); several runs of one id (a continue-as-new
                      chain) count once, and each is read whole.
  --concurrency N     Child calls at once (default 2, at most 100).
  --budget-usd USD    The most the whole rerun may spend, a ceiling even with retries and calls side by side:
                      each call holds its worst case over its whole plan (capped by what is left) until it ends.
                      A request's calls start only while what was spent, what the calls in flight hold and one
                      attempt's worst case of each fit; if not, the rerun waits for a call to end, and stops once
                      one does not fit with none running (the rest are reported as skipped). Needs a pricing for
                      every --model in the providers file.
  --waits, --backoff, --max-attempts, --attempt-timeout, --min-attempt, --deadline, --reserve, --no-retry
                      Each child call's retry plan, as for \`call\` (default: one attempt).
  --json              Print the report as JSON ({ rerunWorkflowId, models, pairs, skipped, totals }).
  --html FILE         Write the report as an HTML page.
  --workflow-id ID    The rerun's workflow id (default rerun-<uuid>).
  --task-queue Q      Task queue of the workers that run it (env MODEL_RETRY_TASK_QUEUE, default "model-retry").
`;

export const DEMO_HELP = `Usage: model-retry demo [--keep]

Starts an embedded Temporal dev server (SQLite under MODEL_RETRY_DATA_DIR, default ./.data), an in-process
worker and a flaky provider on loopback, and runs one agent turn: the model asks for the calculator tool,
then its next model call meets a 502, then a 429 with retry-after, and recovers. Prints the turn's steps and
attempt timeline, writes the history export next to the database
and prints the \`history --file\` command that reads it again. Needs no running server and no API key. The Temporal CLI comes from TEMPORAL_CLI_PATH (set by
scripts/toolchain.sh, which \`npm start\` runs first).

Options:
  --keep   Keep the server and its Web UI running after the run, until Ctrl-C.
`;

export const CANCEL_HELP = `Usage: model-retry cancel WORKFLOW_ID [--timeout MS] [--json]

Asks Temporal to cancel the call: a wait ends at once, a request in flight is aborted, and the workflow
closes as cancelled. Waits until it has closed, then prints its outcome (--json: the same object as
\`call --json\`).

Options:
  --timeout MS   How long to wait for the workflow to close (default 30000).
  --json         Print the outcome as JSON on stdout.

Exit codes: 0 cancelled, or had already closed (said so); 1 it ended otherwise before the cancellation
took effect; 2 no workflow with that id; 3 not closed within the timeout (the cancellation stays requested
and takes effect when a worker picks it up).
`;

export const LIST_HELP = `Usage: model-retry list [--query QUERY] [--class NAME ...] [--limit N] [--json]

Lists model-retry's runs (modelCallWorkflow, agentTurnWorkflow) from Temporal's visibility store, newest first, with the search
attributes they set when they stopped: stop reason, attempts, models tried, last failure class, classes met.

Options:
  --query, -q QUERY   A visibility query, ANDed with the workflow type, e.g.
                        "ModelRetryStopReason = 'deadline'"
                        "ModelRetryStopReason = 'deadline' AND StartTime > '2026-01-01T00:00:00Z'"
                        "ModelRetryModels = 'openai:gpt-4o-mini' AND ModelRetryAttempts > 3"
                        "ModelRetryLastFailure = 'RateLimited'"
                        "ModelRetryTenant = 'acme'"  (runs started with --tenant acme)
  --class NAME        Only runs that met this failure class (ModelRetryClasses = 'NAME'); repeat for
                      runs that met all of them, e.g. --class CoolingDown.
  --limit N           At most N runs (default 20).
  --json              Print a JSON array of { workflowId, runId, workflowType, status, startTime, closeTime?,
                      taskQueue, stopReason?, attempts?, models?, lastFailureClass?, classes? }.

Runs stopped while the search attributes were not registered have none (see \`model-retry worker --help\`).
Exit codes: 0 listed (also when none matched); 1 Temporal unreachable; 2 bad options or a query the server refused.
`;

export const HEALTH_HELP = `Usage: model-retry health [--json] [--task-queue Q]
       model-retry health reset BACKEND [--task-queue Q]

Lists the fleet health of every backend on the task queue (workers run with --health or MODEL_RETRY_HEALTH=on):
its state (closed: requests go; open: nothing is sent, attempts fail at once as CoolingDown; half-open: one
probe fleet-wide), since and until when, why, trips, probes and its recent outcomes. \`reset BACKEND\` (like
local:fast, or local with "scope": "provider") sets it closed by hand.

  --json   A JSON array of { backend, taskQueue, state, since, until?, reason?, trips, probes, recent }.

Exit codes: 0 done; 1 Temporal unreachable; 2 bad options, or no state for that backend.
`;
