/** The local activity our workflows ask before setting their search attributes (types only cross into the sandbox). */
export interface SearchAttributeActivities {
  /** Whether model-retry's search attributes are registered, with their types, on the workflow's namespace. */
  searchAttributesReady(): Promise<boolean>;
}
