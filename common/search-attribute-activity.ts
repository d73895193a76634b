import type { SearchAttributesReady } from './search-attributes.js';

/** The local activity our workflows ask before setting their search attributes (types only cross into the sandbox). */
export interface SearchAttributeActivities {
  /**
   * Which of model-retry's search attributes are registered, with their types, on the workflow's namespace
   * (`true` all, `false` none, else their names; workers before per-attribute checks answered a boolean).
   */
  searchAttributesReady(): Promise<SearchAttributesReady>;
}
