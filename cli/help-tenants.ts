/** The help text of `model-retry tenants`. */
export const TENANTS_HELP = `Usage: model-retry tenants [--json]
       model-retry tenants show NAME [--json]
       model-retry tenants set NAME (--max-total-tokens N | --max-cost-usd USD) [--period day|month | --window-ms MS]
                               [--weight W] [--task-queue Q]
       model-retry tenants reset NAME

A tenant's envelope (what its calls may spend per period, across every worker) is kept by one ledger workflow per
tenant in the namespace (model-retry-tenant:NAME), started by the first attempt that reserves against it. Lists
each running ledger: its envelope and where it came from (a worker's tenants file, or \`tenants set\`), what was
spent, what workers' leases hold, what is left, when it renews, the over-billing (billed beyond reservations) and
any worker whose file disagrees. A ledger no worker answers for is shown with why.

  set NAME     Sets the tenant's envelope by hand (starting its ledger on the task queue if need be): it replaces
               the whole envelope and holds over every worker's file until the next \`set\`.
    --max-total-tokens N   Input + output tokens per period.
    --max-cost-usd USD     USD per period (models need a \`pricing\` in the providers file).
    --period day|month     The UTC calendar period the limits hold for (default day).
    --window-ms MS         A rolling window instead of a calendar period (1000 or more).
    --weight W             The tenant's fairness weight (above 0, at most 1000; default 1).
    --task-queue Q         Where a new ledger runs (env MODEL_RETRY_TASK_QUEUE, default "model-retry").
  reset NAME   Forgets the period's spend, over-billing and every lease; the envelope stays.
  --json       Print JSON: an array of { tenant, workflowId, envelope, source, spent, held, left, renewsAt?,
               leaseCount, leases, overBilled, disagreements, asOf } (each amount { tokens, costUsd }), or
               { tenant, workflowId, unreadable } for a ledger that could not be read; \`show\` prints one.

Exit codes: 0 done; 1 Temporal unreachable, or the tenant shown could not be read; 2 bad options, or no ledger for
that tenant.
`;
