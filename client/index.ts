/**
 * model-retry/client: what a host uses to start and await durable model calls and agent turns, follow their
 * streams, read what happened (histories, reports, timelines, listings) and rerun recorded calls.
 * @module model-retry/client
 */
export { startModelCall, checkModelCall, checkOutputSchema } from './model-call-client.js';
export type { StartModelCallOptions } from './model-call-client.js';
export { tenantStartOptions } from './tenant-start.js';
export type { TenantStartOptions } from './tenant-start.js';
export { checkCallSize } from './call-size.js';
export { readCallHistory } from './history-reader.js';
export { decodeHistory, fetchDecodedHistory } from './decode-history.js';
export type { CallHistory } from './history-reader.js';
export { callReport } from './call-report.js';
export type { CallReport } from './call-report.js';
export { formatTimeline } from './timeline.js';
export { fetchRunChain, groupByCall, readCallHistories } from './history-chain.js';
export type { CallAttempts, OrderedRuns, RunLinks } from './history-chain.js';
export { readRunMeta } from './run-meta.js';
export type { RunMeta } from './run-meta.js';
export { renderHtmlTimeline } from './html-timeline.js';
export { rerunHtml, writeRerunHtml } from './rerun-html.js';
export { formatRerunReport } from './rerun-format.js';
export { readToolSpans } from './tool-history.js';
export type { ToolSpan } from './tool-history.js';
export type { HtmlTimelineMeta } from './html-timeline.js';
export { listQuery, listRuns, LISTED_WORKFLOW_TYPES } from './list-runs.js';
export type { RunSummary } from './list-runs.js';
export { startAgentTurn, checkAgentTurn, readTurnHistory, turnOutcome } from './agent-turn-client.js';
export type { StartAgentTurnOptions, TurnHistory, TurnOutcome } from './agent-turn-client.js';
export { subscribeCallStream, StreamedText } from './call-stream.js';
export type { CallStreamItem, SubscribeCallStreamOptions } from './call-stream.js';
export { LARGE_MESSAGE_CHANNEL_ARGS } from './connection-options.js';
export { rerunCalls } from './rerun.js';
export type { RerunCallsOptions } from './rerun.js';
export { RerunRefusedError } from './rerun-requests.js';
export type {
  RerunAnswer,
  RerunModelTotals,
  RerunPair,
  RerunReport,
  RerunSkipped,
  RerunSource,
} from '../common/rerun.js';
export type { BilledAttempt, RerunInput, RerunRequest } from '../common/rerun-input.js';
