/**
 * Whether model-retry's search attributes are registered on a namespace: checked by the worker at start (to
 * warn) and by the `searchAttributesReady` local activity our workflows ask before setting them.
 */
import { Context } from '@temporalio/activity';
import protoPackage from '@temporalio/proto';
import type { temporal } from '@temporalio/proto';
import { SEARCH_ATTRIBUTES } from '../common/search-attributes.js';
import type { SearchAttributesReady } from '../common/search-attributes.js';

const { IndexedValueType } = protoPackage.temporal.api.enums.v1;

/** The part of Temporal's operator service the check needs (a `Connection`'s or `NativeConnection`'s). */
export interface SearchAttributeLister {
  listSearchAttributes(
    request: temporal.api.operatorservice.v1.IListSearchAttributesRequest,
  ): Promise<temporal.api.operatorservice.v1.IListSearchAttributesResponse>;
}

/** What the check found. `ready` only when every attribute is there with its type. */
export interface SearchAttributeCheck {
  ready: boolean;
  /** The names of the attributes registered with their type: the ones a run may set. */
  registered: string[];
  /** `Name (Type)` of each attribute that is not registered. */
  missing: string[];
  /** `Name: registered as X, needs Y`. */
  wrongType: string[];
  /** Why the check itself could not be made (no rights, server unreachable). */
  error?: string;
}

/** `KEYWORD_LIST` -> `KeywordList`, as the Temporal CLI names types. */
export function typeName(upper: string): string {
  return upper.toLowerCase().replace(/(^|_)([a-z])/g, (_m, _s, c: string) => c.toUpperCase());
}

/** Asks the namespace which custom search attributes it has and compares them with model-retry's. */
export async function checkSearchAttributes(
  operator: SearchAttributeLister,
  namespace: string,
): Promise<SearchAttributeCheck> {
  let custom: Record<string, unknown>;
  try {
    custom = (await operator.listSearchAttributes({ namespace })).customAttributes ?? {};
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { ready: false, registered: [], missing: [], wrongType: [], error: message };
  }
  const registered: string[] = [];
  const missing: string[] = [];
  const wrongType: string[] = [];
  for (const key of SEARCH_ATTRIBUTES) {
    const found = custom[key.name];
    const needs = typeName(key.type);
    if (found === undefined) {
      missing.push(`${key.name} (${needs})`);
      continue;
    }
    const raw = typeof found === 'number' ? IndexedValueType[found] : String(found);
    const has = typeName(String(raw).replace(/^INDEXED_VALUE_TYPE_/, ''));
    if (has !== needs) wrongType.push(`${key.name}: registered as ${has}, needs ${needs}`);
    else registered.push(key.name);
  }
  return { ready: missing.length === 0 && wrongType.length === 0, registered, missing, wrongType };
}

/** What a check tells a run: all, none, or the names it may set (see `SearchAttributesReady`). */
export function readinessOf(check: SearchAttributeCheck): SearchAttributesReady {
  if (check.ready) return true;
  return check.registered.length > 0 ? check.registered : false;
}

/** Ready answers are kept for the process; a "no" is asked again after this long (someone may register them). */
const RECHECK_MS = 60_000;
const known = new Map<string, { ready: SearchAttributesReady; at: number }>();

/** Remembers a check made elsewhere (the worker's at start), so the first call needs no second request. */
export function rememberSearchAttributeCheck(
  namespace: string,
  ready: SearchAttributesReady,
  now = Date.now(),
): void {
  known.set(namespace, { ready, at: now });
}

/**
 * What this process already knows about `namespace`'s search attributes, without asking: `true` once a check
 * found them all ready; `false` (none) or the names registered while a recent check found some missing; else
 * `undefined`. Attempts report it, so a call usually knows which it may set, without a local activity (and its
 * marker event).
 */
export function knownSearchAttributesReady(
  namespace: string,
  now = Date.now(),
): SearchAttributesReady | undefined {
  const seen = known.get(namespace);
  if (!seen) return undefined;
  return seen.ready === true || now - seen.at < RECHECK_MS ? seen.ready : undefined;
}

/** Builds the `searchAttributesReady` local activity (see `SearchAttributeActivities`). */
export function createSearchAttributeActivities() {
  return {
    async searchAttributesReady(): Promise<SearchAttributesReady> {
      const ctx = Context.current();
      const namespace = ctx.info.namespace;
      const seen = knownSearchAttributesReady(namespace);
      if (seen !== undefined) return seen;
      const check = await checkSearchAttributes(ctx.client.connection.operatorService, namespace);
      const ready = readinessOf(check);
      rememberSearchAttributeCheck(namespace, ready);
      return ready;
    },
  };
}
