import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

/**
 * Typed search attributes that model-retry's own workflows set once, when a call or turn stops, so runs can be
 * found (`model-retry list --query "ModelRetryStopReason = 'deadline'"`). `callModel` inside a user's workflow
 * never sets them. The embedded dev server registers them; production servers need
 * `temporal operator search-attribute create` (see the README).
 */
export const STOP_REASON = defineSearchAttributeKey('ModelRetryStopReason', SearchAttributeType.KEYWORD);
export const ATTEMPT_COUNT = defineSearchAttributeKey('ModelRetryAttempts', SearchAttributeType.INT);
export const MODELS_TRIED = defineSearchAttributeKey('ModelRetryModels', SearchAttributeType.KEYWORD_LIST);
export const LAST_FAILURE_CLASS = defineSearchAttributeKey(
  'ModelRetryLastFailure',
  SearchAttributeType.KEYWORD,
);

export const SEARCH_ATTRIBUTES = [STOP_REASON, ATTEMPT_COUNT, MODELS_TRIED, LAST_FAILURE_CLASS] as const;
