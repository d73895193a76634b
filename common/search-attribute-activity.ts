/**
 * What a worker knows of model-retry's search attributes on its namespace: `true` every one is registered with
 * its type, `false` none is (or it could not tell), else the names of those that are. An attribute the namespace
 * lacks would fail the workflow task over and over, so a run sets only the registered ones.
 */
export type SearchAttributesReady = boolean | readonly string[];

/** The local activity our workflows ask before setting their search attributes (types only cross into the sandbox). */
export interface SearchAttributeActivities {
  /**
   * Which of model-retry's search attributes are registered, with their types, on the workflow's namespace
   * (`true` all, `false` none, else their names; workers before per-attribute checks answered a boolean).
   */
  searchAttributesReady(): Promise<SearchAttributesReady>;
}
