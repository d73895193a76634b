/**
 * The loopback provider: a fake OpenAI-compatible and Anthropic provider on a real loopback HTTP server that
 * answers from per-model scripts and injects faults. Used by integration tests and by the demo.
 *
 * ```ts
 * const lp = await startLoopbackProvider();
 * lp.script('fast', [fail(502), rateLimited(1), ok('hello')]);
 * // ... point a provider at lp.openaiBaseURL, make calls ...
 * lp.assertScriptsConsumed();
 * await lp.close();
 * ```
 */
export { LoopbackProvider, startLoopbackProvider } from './server.js';
export type { LoopbackOptions } from './server.js';
export { ANY_MODEL } from './script.js';
export { LOOPBACK_EMBEDDING_DIMENSIONS, loopbackEmbedding } from './embeddings.js';
export { InvalidScriptError, parseStep, parseSteps } from './validate.js';
export type { RecordedRequest, RequestOutcome, UnexpectedRequest } from './record.js';
export { CONTINUE_MODES, CONTINUE_PREAMBLE, CONTINUE_REPEAT_DEFAULTS } from './steps.js';
export type { RequestContinuation } from './continuation.js';
export {
  always,
  continuing,
  contextTooLong,
  cutMidBody,
  describeStep,
  dropBeforeResponse,
  echoAuth,
  fail,
  hang,
  malformed,
  ok,
  overloaded,
  quotaExhausted,
  rateLimited,
  slow,
  streamError,
  toolCall,
} from './step-builders.js';
export type {
  ContinueMode,
  ContinuesSpec,
  CutStep,
  DropStep,
  EchoAuthStep,
  ErrorStep,
  HangStep,
  MalformedShape,
  MalformedStep,
  OkStep,
  ReasoningSpec,
  Step,
  StepBase,
  StepKind,
  StreamErrorStep,
  ToolCallSpec,
} from './steps.js';
