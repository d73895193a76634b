export const MAIN_HELP = `model-retry: durable LLM calls on Temporal. Every attempt is an activity, every wait a durable
timer, every failure classified and kept in the workflow's history.

Usage: model-retry <command> [options]

Commands:
  demo      Start an embedded Temporal dev server and an in-process worker, run a real workflow, print its
            history and exit (what \`npm start\` runs). --keep leaves the server and its Web UI up until Ctrl-C.
  worker    Run a worker for an existing Temporal server (TEMPORAL_ADDRESS etc.).
  help      Show this help, or \`model-retry help <command>\`.

Connection settings follow Temporal's conventions: TEMPORAL_ADDRESS (default localhost:7233),
TEMPORAL_NAMESPACE (default "default"), TEMPORAL_API_KEY, TEMPORAL_TLS_*, TEMPORAL_PROFILE and the
Temporal config file. Task queue: --task-queue or MODEL_RETRY_TASK_QUEUE (default "model-retry").

Exit codes: 0 done; 1 failed; 2 refused input (nothing was started); 3 outcome unknown.
`;

export const WORKER_HELP = `Usage: model-retry worker [--task-queue Q] [--shutdown-grace-ms MS]

Runs model-retry's workflows and activities for an existing Temporal server until SIGINT/SIGTERM.

Options:
  --task-queue Q           Task queue to poll (env MODEL_RETRY_TASK_QUEUE, default "model-retry").
  --shutdown-grace-ms MS   On SIGINT/SIGTERM, how long in-flight model requests may finish before they are
                           cancelled (env MODEL_RETRY_SHUTDOWN_GRACE_MS, default 60000). An attempt cut short
                           is recorded as WorkerLost and retried by its plan. A second Ctrl-C exits at once.

Environment: TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TEMPORAL_API_KEY, TEMPORAL_TLS_*, TEMPORAL_PROFILE.
`;

export const DEMO_HELP = `Usage: model-retry demo [--keep]

Starts an embedded Temporal dev server (SQLite under MODEL_RETRY_DATA_DIR, default ./.data) and an
in-process worker, runs a workflow, prints its event history and writes the history export next to the
database. Needs no running server and no API key. The Temporal CLI comes from TEMPORAL_CLI_PATH (set by
scripts/toolchain.sh, which \`npm start\` runs first).

Options:
  --keep   Keep the server and its Web UI running after the run, until Ctrl-C.
`;
