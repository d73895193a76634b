/**
 * Tenants of the scenario suite: a case may run its calls (the main one and its neighbours) for a tenant under a
 * token envelope, drawn tight (room for one or two attempts) or generous. The workers' tenants file is written
 * once, so the tenant names are declared ahead, a name per case (fresh ledgers, as backends are fresh), each
 * named after its envelope. A tenant's calls set `maxOutputTokens`, the bound an attempt reserves.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { estimateInputTokens } from '../../common/token-estimate.js';
import { messagesOf } from '../../common/call-input/call-input.js';
import { IMAGE_TOKENS } from '../../common/token-estimate.js';
import type { TenantsConfig } from '../../common/tenants.js';
import type { AttemptRecord } from '../../common/call.js';
import { requestOf } from './scenario.js';
import type { Scenario } from './scenario.js';

/** The `maxOutputTokens` of a tenant's calls: with the plain prompt an attempt reserves 102 tokens. */
export const TENANT_OUTPUT_BOUND = 100;
/**
 * Envelopes a case may draw: one attempt's room (110), a few attempts' (300), far more than a case spends. A
 * multi-part request counts an image besides, so its envelopes grow by it (as a budget does).
 */
export const TIGHT_ENVELOPES = [110, 300] as const;
export const GENEROUS_ENVELOPE = 100_000;
const PARTS_EXTRA = IMAGE_TOKENS + 20;
const ENVELOPES = [...TIGHT_ENVELOPES, GENEROUS_ENVELOPE].flatMap((e) => [e, e + PARTS_EXTRA]);
/** Names declared per envelope (a case takes one): more than a run's cases. */
const NAMES_PER_ENVELOPE = 300;

/** The envelope a case's tenant has, given what it drew (a multi-part request's grows by the image). */
export function envelopeFor(drawn: number, parts: boolean): number {
  return parts ? drawn + PARTS_EXTRA : drawn;
}

const used = new Map<number, number>();

/** A fresh tenant under `maxTotalTokens` (one of the declared envelopes). */
export function nextTenant(maxTotalTokens: number): string {
  if (!ENVELOPES.includes(maxTotalTokens)) throw new Error(`no tenant is declared with ${maxTotalTokens}`);
  const n = (used.get(maxTotalTokens) ?? 0) + 1;
  if (n > NAMES_PER_ENVELOPE) throw new Error(`every tenant with ${maxTotalTokens} tokens was used`);
  used.set(maxTotalTokens, n);
  return `sc-${maxTotalTokens}-${n}`;
}

/** The workers' tenants file: every declared tenant and its envelope, per day. */
export function scenarioTenants(): TenantsConfig {
  return Object.fromEntries(
    ENVELOPES.flatMap((maxTotalTokens) =>
      Array.from({ length: NAMES_PER_ENVELOPE }, (_, i) => [
        `sc-${maxTotalTokens}-${i + 1}`,
        { maxTotalTokens, period: 'day' as const },
      ]),
    ),
  );
}

/** Writes the tenants file for a `model-retry worker` process; returns its path. */
export function writeScenarioTenantsFile(dir: string): string {
  const path = join(dir, 'scenario-tenants.json');
  writeFileSync(path, JSON.stringify(scenarioTenants()));
  return path;
}

/**
 * The least an attempt of the case reserves: its request's input estimate plus `maxOutputTokens` (a continuation
 * adds its delivered text, which only makes a reservation larger).
 */
export function leastReservation(s: Pick<Scenario, 'parts'>): number {
  return estimateInputTokens({ prompt: messagesOf({ model: 'x:y', ...requestOf(s) }) }) + TENANT_OUTPUT_BOUND;
}

/** Whether an attempt was refused for its tenant's envelope (nothing sent: the call stops `budget`). */
export function refusedForEnvelope(r: Pick<AttemptRecord, 'failure'>): boolean {
  return r.failure?.code === 'tenant-envelope';
}
