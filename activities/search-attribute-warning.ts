/**
 * The worker's start-up warning when model-retry's search attributes are not ready, with a remedy the server
 * accepts. A missing attribute is created; a wrongly typed one cannot be: Temporal refuses to create an attribute
 * that exists ("already exists and has different type"), so it is removed first, then created with its type.
 */
import { SEARCH_ATTRIBUTES } from '../common/search-attributes.js';
import { typeName } from './search-attributes.js';
import type { SearchAttributeCheck } from './search-attributes.js';

/**
 * The command that registers model-retry's search attributes, as in docs/operations/observability.md; with `only`, just the named ones
 * (those a namespace lacks: registering one that exists is refused).
 */
export function registerCommand(namespace: string, only?: readonly string[]): string {
  const keys = only ? SEARCH_ATTRIBUTES.filter((k) => only.includes(k.name)) : SEARCH_ATTRIBUTES;
  const pairs = keys.map((k) => `--name ${k.name} --type ${typeName(k.type)}`).join(' ');
  return `temporal operator search-attribute create --namespace ${namespace} ${pairs}`;
}

/**
 * The command that removes the named attributes. Without `--yes`: the CLI asks before it removes, since the
 * attribute's values on existing runs stop being searchable.
 */
export function removeCommand(namespace: string, names: readonly string[]): string {
  return `temporal operator search-attribute remove --namespace ${namespace} ${names.map((n) => `--name ${n}`).join(' ')}`;
}

/** The name part of `Name (Type)` or `Name: registered as X, needs Y`. */
const nameOf = (entry: string): string => entry.replace(/[ :].*$/, '');

/** A worker's warning for a check that did not find everything ready, or undefined when it did. */
export function searchAttributeWarning(check: SearchAttributeCheck, namespace: string): string | undefined {
  if (check.ready) return undefined;
  if (check.error) {
    return (
      `could not check model-retry's search attributes on namespace "${namespace}" (${check.error}). ` +
      'Calls still run, but their runs are not findable by stop reason (`model-retry list`) until someone with ' +
      `operator rights registers them:\n  ${registerCommand(namespace)}`
    );
  }
  const what = [
    `model-retry's search attributes are not ready on namespace "${namespace}"`,
    check.missing.length ? `missing: ${check.missing.join(', ')}` : '',
    check.wrongType.length ? `wrong type: ${check.wrongType.join('; ')}` : '',
  ]
    .filter(Boolean)
    .join('; ');
  const lacking = SEARCH_ATTRIBUTES.filter((k) => !check.registered.includes(k.name)).map((k) => k.name);
  const consequence =
    check.registered.length > 0
      ? `Calls still run and set the others (${check.registered.join(', ')}), but not ${lacking.join(', ')}`
      : 'Calls still run, but their runs are not findable by stop reason (`model-retry list`)';
  const missing = check.missing.map(nameOf);
  const wrong = check.wrongType.map(nameOf);
  if (wrong.length === 0) {
    return (
      `${what}. ${consequence} until someone with operator rights registers ` +
      `${missing.length === 1 ? 'it' : 'them'}:\n  ${registerCommand(namespace, missing)}`
    );
  }
  const them = wrong.length === 1 ? 'it' : 'them';
  return (
    `${what}. ${consequence} until someone with operator rights fixes ${lacking.length === 1 ? 'it' : 'them'}. ` +
    `A search attribute cannot be created again with another type (the server refuses), so remove ${wrong.join(', ')} ` +
    `and create ${them} anew (runs that set ${them} before are no longer found by ${them}):\n` +
    `  ${removeCommand(namespace, wrong)}\n` +
    `  ${registerCommand(namespace, [...missing, ...wrong])}\n` +
    `If another application on this namespace uses ${wrong.length === 1 ? 'that name' : 'those names'}, leave ${them}: ` +
    `model-retry goes on without ${them} (its attribute names are fixed).`
  );
}
