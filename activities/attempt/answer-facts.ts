/** What an attempt reports of a model's answer or refusal beside its failure class: usage, finish, a 400's class. */
import type { LanguageModelV4GenerateResult } from '@ai-sdk/provider';
import { FailureClass, classify } from '../../policy/index.js';
import type { Observation } from '../../policy/index.js';
import { observeError } from './classify-error.js';
import type { ObservedError } from './classify-error.js';
import type { AttemptFailureDetails } from '../../common/attempt.js';
import type { ResolvedModel } from '../providers/registry.js';
import { usageOf } from './result.js';
import { StreamErrorPart } from './stream-answer.js';

/** What a failed attempt that still answered (a 2xx) reports beside its class: it was billed, and how it ended. */
export type AnswerFacts = Partial<Pick<AttemptFailureDetails, 'usage' | 'finishReason' | 'mismatch'>>;

export function answerFacts(resolved: ResolvedModel, result: LanguageModelV4GenerateResult): AnswerFacts {
  return { usage: usageOf(resolved, result), finishReason: result.finishReason.unified };
}

export function definedOnly(o: AnswerFacts): AnswerFacts {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as AnswerFacts;
}

/** Whether a request was refused as a bad request (a 400 and the like) before any stream began. */
export function refusedRequest(resolved: ResolvedModel, error: unknown): boolean {
  if (error instanceof StreamErrorPart) return false;
  const { observation } = refine(resolved, error, observeError(error));
  return observation.status === 400 && classify(observation) === FailureClass.BadRequest;
}

/** Lets the provider's adapter add what only its documented message patterns say. */
export function refine(resolved: ResolvedModel, error: unknown, observed: ObservedError): ObservedError {
  if (resolved.refineObservation === undefined) return observed;
  const observation: Observation = resolved.refineObservation(error, observed.observation);
  return { observation, message: observed.message };
}
