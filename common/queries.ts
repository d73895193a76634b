// The define* functions of @temporalio/workflow only build plain `{ type, name }` objects: they are safe outside
// the sandbox, so hosts and workflows share one definition of each name.
import { defineQuery, defineUpdate } from '@temporalio/workflow';
import type { AttemptRecord, CallStatus } from './call.js';
import type { TurnStatus } from './turn.js';

/** Every attempt of every call of this run, in order. */
export const attemptsQuery = defineQuery<AttemptRecord[]>('attempts');
/** The latest call's status (undefined before the first call). */
export const statusQuery = defineQuery<CallStatus | undefined>('status');

/** What a host may pass to `extendDeadline`: a new absolute deadline, or an extension of the current one. */
export type ExtendDeadlineRequest = { deadline: string } | { byMs: number };

/** Moves the turn's deadline later (never earlier); answers the new deadline (ISO). */
export const extendDeadlineUpdate = defineUpdate<{ deadline: string }, [ExtendDeadlineRequest]>(
  'extendDeadline',
);
/** The turn's status: step, phase (model call, waiting, tools), backend, waiting until when, deadline. */
export const turnStatusQuery = defineQuery<TurnStatus>('status');
