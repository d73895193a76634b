/**
 * model-retry/client: what a host uses to start and await durable model calls and to read what happened.
 */
export { startModelCall, checkModelCall, checkOutputSchema } from './model-call-client.js';
export type { StartModelCallOptions } from './model-call-client.js';
export { checkCallSize } from './call-size.js';
export { readCallHistory } from './history-reader.js';
export { decodeHistory, fetchDecodedHistory } from './decode-history.js';
export type { CallHistory } from './history-reader.js';
export { callReport } from './call-report.js';
export type { CallReport } from './call-report.js';
export { formatTimeline } from './timeline.js';
export { fetchRunChain, groupByCall, orderRuns, readCallHistories, runLinks } from './history-chain.js';
export type { CallAttempts, OrderedRuns, RunLinks } from './history-chain.js';
export { readRunMeta } from './run-meta.js';
export type { RunMeta } from './run-meta.js';
export { escapeHtml, renderHtmlTimeline } from './html-timeline.js';
export { rerunHtml, writeRerunHtml } from './rerun-html.js';
export { formatRerunReport } from './rerun-format.js';
export { wordDiff } from './word-diff.js';
export type { DiffRun } from './word-diff.js';
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
export { recordedRequests, RerunRefusedError } from './rerun-requests.js';
export type { RecordedRuns } from './rerun-requests.js';
export { fetchRecordedRuns } from './rerun-fetch.js';
export { rerunTotals } from '../common/rerun-totals.js';
export type {
  RerunAnswer,
  RerunModelTotals,
  RerunPair,
  RerunReport,
  RerunSkipped,
  RerunSource,
} from '../common/rerun.js';
export type { RerunInput, RerunRequest } from '../common/rerun-input.js';
