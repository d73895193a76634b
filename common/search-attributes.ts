import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import type { SearchAttributeUpdatePair } from '@temporalio/common';
import type { StopReason } from '../policy/index.js';
import type { AttemptRecord } from './call.js';
import type { SearchAttributesReady } from './search-attribute-activity.js';

export type { SearchAttributesReady };

/**
 * Typed search attributes that model-retry's own workflows set when a call or turn stops (and `ModelRetryClasses`
 * also as each new class is met), so runs can be found (`model-retry list --query "ModelRetryStopReason = 'deadline'"`). `callModel` inside a user's workflow
 * never sets them. The embedded dev server registers them; production servers need
 * `temporal operator search-attribute create` (see docs/operations/observability.md).
 */
export const STOP_REASON = defineSearchAttributeKey('ModelRetryStopReason', SearchAttributeType.KEYWORD);
/** How many model attempts the run made. */
export const ATTEMPT_COUNT = defineSearchAttributeKey('ModelRetryAttempts', SearchAttributeType.INT);
/** The models (`provider:model`) the run's attempts went to. */
export const MODELS_TRIED = defineSearchAttributeKey('ModelRetryModels', SearchAttributeType.KEYWORD_LIST);
/** The failure class of the run's last failed attempt (unset when none failed). */
export const LAST_FAILURE_CLASS = defineSearchAttributeKey(
  'ModelRetryLastFailure',
  SearchAttributeType.KEYWORD,
);

/**
 * The failure classes a run met (each once, in the order first met): set as soon as a run meets a class it had
 * not met (one upsert per new class, never per attempt) and again with the others when it stops, so
 * `model-retry list --class CoolingDown` finds the calls that met a class, running ones included.
 */
export const CLASSES_MET = defineSearchAttributeKey('ModelRetryClasses', SearchAttributeType.KEYWORD_LIST);

/**
 * Who the run is for (`ModelCallInput.tenant`, `AgentTurnInput.tenant`): set when `startModelCall`,
 * `startAgentTurn` or the CLI start the run (`model-retry list --query "ModelRetryTenant = 'acme'"`), never
 * upserted by the workflow, so a run started otherwise (a user's own client) has none.
 */
export const TENANT = defineSearchAttributeKey('ModelRetryTenant', SearchAttributeType.KEYWORD);

/** Every search attribute model-retry sets, for registering them on a server. */
export const SEARCH_ATTRIBUTES = [
  STOP_REASON,
  ATTEMPT_COUNT,
  MODELS_TRIED,
  LAST_FAILURE_CLASS,
  CLASSES_MET,
  TENANT,
] as const;

/** The classes of `records`' failures, each once, in the order first met. */
export function classesMet(records: readonly AttemptRecord[]): string[] {
  return [...new Set(records.flatMap((r) => (r.failure ? [r.failure.class] : [])))];
}

/**
 * The search attributes of a run that stopped: its stop reason, how many attempts it made, the models it tried
 * (each once, in the order first tried; absent when none was), the class of its last failed attempt (absent
 * when no attempt failed) and every class met (absent when none).
 */
export function stopSearchAttributes(
  stopReason: StopReason,
  records: readonly AttemptRecord[],
): SearchAttributeUpdatePair[] {
  const models = [...new Set(records.map((r) => r.model))];
  const classes = classesMet(records);
  const lastFailure = records.findLast((r) => r.failure)?.failure?.class;
  return [
    { key: STOP_REASON, value: stopReason },
    { key: ATTEMPT_COUNT, value: records.length },
    ...(models.length > 0 ? [{ key: MODELS_TRIED, value: models }] : []),
    ...(lastFailure ? [{ key: LAST_FAILURE_CLASS, value: lastFailure }] : []),
    ...(classes.length > 0 ? [{ key: CLASSES_MET, value: classes }] : []),
  ];
}

/** Whether `ready` reads as such (the shape attempts report and the local activity answers). */
export function isSearchAttributesReady(ready: unknown): ready is SearchAttributesReady {
  return typeof ready === 'boolean' || (Array.isArray(ready) && ready.every((n) => typeof n === 'string'));
}

/** `pairs` less those whose attribute `ready` says is not registered (all of them when `ready` is false). */
export function registeredOnly(
  pairs: readonly SearchAttributeUpdatePair[],
  ready: SearchAttributesReady,
): SearchAttributeUpdatePair[] {
  if (ready === true) return [...pairs];
  if (ready === false) return [];
  return pairs.filter((p) => ready.includes(p.key.name));
}
