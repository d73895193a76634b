import { describe, expect, it } from 'vitest';
import {
  checkCallInput,
  InvalidModelCallInputError,
  MAX_TENANT_BYTES,
  tenantProblem,
} from '../../../common/call-input/call-input.js';
import { InvalidAgentTurnInputError, validateTurnInput } from '../../../common/turn-input.js';
import { tenantPriority, tenantWeight } from '../../../common/fairness.js';
import { checkFairnessWeight, checkModelCall } from '../../../client/model-call-client.js';
import { tenantStartOptions } from '../../../client/tenant-start.js';
import { TENANT } from '../../../common/search-attributes.js';

describe("a call's tenant", () => {
  it.each([
    ['acme', undefined],
    ['team-7/eu.west_1', undefined],
    ['ü'.repeat(32), undefined], // 64 bytes of UTF-8
    ['a'.repeat(MAX_TENANT_BYTES), undefined],
    [undefined, undefined],
    ['', /is empty: name the tenant/],
    ['*', /`\*` is the tenants file's entry for every tenant it does not name, not a tenant/],
    [
      'a'.repeat(MAX_TENANT_BYTES + 1),
      /is 65 UTF-8 bytes long \(at most 64, Temporal's limit on a fairness key\)/,
    ],
    ['ü'.repeat(33), /is 66 UTF-8 bytes long/],
    ['ac\nme', /holds a control character/],
    ['ac\tme', /holds a control character/],
    ['acme\u0085', /holds a control character/],
    [42, /must be a string naming the tenant/],
    [null, /must be a string naming the tenant/],
  ])('%j: %s', (tenant, problem) => {
    if (problem === undefined) expect(tenantProblem(tenant)).toBeUndefined();
    else expect(tenantProblem(tenant)).toMatch(problem);
  });

  it('is checked with the rest of the call input, its error naming `tenant` and the fix', () => {
    expect(() => checkCallInput({ model: 'a:x', prompt: 'hi', tenant: '*' })).toThrow(
      InvalidModelCallInputError,
    );
    expect(() => checkCallInput({ model: 'a:x', prompt: 'hi', tenant: '' })).toThrow(
      /^`tenant`: is empty: name the tenant, like "acme"$/,
    );
    expect(() => checkModelCall({ model: 'a:x', embed: { values: ['v'] }, tenant: 7 })).toThrow(/^`tenant`:/);
    expect(checkCallInput({ model: 'a:x', prompt: 'hi', tenant: 'acme' }).backends).toEqual(['a:x']);
  });

  it("is checked with the rest of a turn's input, naming `tenant`", () => {
    const turn = { model: 'a:x', prompt: 'hi', tenant: 'x'.repeat(65) };
    expect(() => validateTurnInput(turn)).toThrow(InvalidAgentTurnInputError);
    expect(() => validateTurnInput(turn)).toThrow(/^`tenant`: is 65 UTF-8 bytes long/);
    expect(() => validateTurnInput({ model: 'a:x', prompt: 'hi', tenant: 'acme' })).not.toThrow();
  });
});

describe("a tenant's fairness", () => {
  const tenants = { acme: { weight: 3 }, globex: { maxTotalTokens: 10 }, '*': { weight: 0.5 } };
  it.each([
    ['its own weight', 'acme', tenants, { fairnessKey: 'acme', fairnessWeight: 3 }],
    [
      "the default entry's weight when its own has none",
      'globex',
      tenants,
      { fairnessKey: 'globex', fairnessWeight: 0.5 },
    ],
    [
      "the default entry's weight when the file does not name it",
      'initech',
      tenants,
      { fairnessKey: 'initech', fairnessWeight: 0.5 },
    ],
    [
      'the key alone when no entry has a weight',
      'acme',
      { acme: { maxCostUsd: 1 } },
      { fairnessKey: 'acme' },
    ],
    ['the key alone without a tenants file', 'acme', undefined, { fairnessKey: 'acme' }],
    ['no priority for a call without a tenant', undefined, tenants, undefined],
  ])('gives %s', (_what, tenant, file, priority) => {
    expect(tenantPriority(tenant, file)).toEqual(priority);
  });

  it('reads the weight the tenants file gives, else the default entry', () => {
    expect(tenantWeight('acme', tenants)).toBe(3);
    expect(tenantWeight('nobody', { acme: { weight: 2 } })).toBeUndefined();
  });
});

describe('a tenant run started by the client helpers', () => {
  it.each([
    ['the search attribute and the key', 'acme', undefined, { fairnessKey: 'acme' }],
    ['the weight given too', 'acme', 2, { fairnessKey: 'acme', fairnessWeight: 2 }],
  ])('carries %s', (_what, tenant, weight, priority) => {
    expect(tenantStartOptions(tenant, weight)).toEqual({
      typedSearchAttributes: [{ key: TENANT, value: tenant }],
      priority,
    });
  });

  it('without a tenant, starts as before', () => {
    expect(tenantStartOptions(undefined)).toEqual({});
  });

  it.each([
    [2, 'acme', undefined],
    [undefined, undefined, undefined],
    [0, 'acme', /`fairnessWeight`: is 0; Temporal takes weights from 0.001 to 1000/],
    [5000, 'acme', /`fairnessWeight`: is 5000/],
    [Number.NaN, 'acme', /`fairnessWeight`: must be a number/],
    ['2', 'acme', /`fairnessWeight`: must be a number/],
    [2, undefined, /`fairnessWeight`: weighs the call's tenant: give `tenant` too/],
  ])('a fairnessWeight of %j with tenant %j: %s', (weight, tenant, problem) => {
    const check = () => checkFairnessWeight(weight, tenant, InvalidModelCallInputError);
    if (problem === undefined) expect(check).not.toThrow();
    else expect(check).toThrow(problem);
  });
});
