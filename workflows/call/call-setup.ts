import type { ResolvedPlan } from '../../policy/index.js';
import type { ModelRequestInput, ModelRequestResult } from '../../common/attempt.js';
import type { AttemptRecord, CallStatus, ModelCallInput } from '../../common/call.js';
import type { WorkerConfig } from '../../common/worker-config.js';
import type { SharedNotBefore } from '../../policy/shared-not-before.js';
import type { AttemptOutcome } from './attempt-outcome.js';
import type { CallStream } from './call-stream.js';
import type { HistoryWatch } from './history-watch.js';
import type { BudgetWatch } from './budget-watch.js';
import type { CheckedOutput } from '../../common/call-input/call-output.js';

/** How an attempt's activity ended, before anything is recorded or decided. */
export type Ended =
  | { kind: 'answered'; result: ModelRequestResult }
  | { kind: 'raised'; error: unknown; outcome: AttemptOutcome };

/** What a call is made of once its input is checked. */
export interface CallSetup {
  callId: string;
  input: ModelCallInput;
  plan: ResolvedPlan;
  backends: string[];
  /** The request every attempt sends (a repair's attempt with its corrections appended to the prompt). */
  request: ModelRequestInput['request'];
  stream: CallStream;
  status: CallStatus;
  records: AttemptRecord[];
  shared: SharedNotBefore | undefined;
  /** The run's history, for the `history-limit` stop. */
  history: HistoryWatch;
  /** The call's structured output, checked (`output.schema`, `output.repairs`). */
  output: CheckedOutput | undefined;
  /** The call's budget, for the `budget` stop; absent for a call without one. */
  budget?: BudgetWatch | undefined;
  /**
   * What the worker said of its limits and fleet health (its `modelRetryConfig` answer): a rate-limited backend's
   * attempts run on its queue, checked first where fleet health watches it (see `routeOf`); its heartbeat
   * cadence sets the attempts' heartbeat timeout; its tenants file, the weight of a tenant's attempts.
   */
  worker: Pick<WorkerConfig, 'limits' | 'healthWatchedLimits' | 'heartbeatMs' | 'tenants'> | undefined;
}
