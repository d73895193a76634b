import { describe, expect, it } from 'vitest';
import { searchAttributeWarning } from '../../../activities/search-attribute-warning.js';

const commandsOf = (warning: string | undefined) =>
  (warning ?? '')
    .split('\n')
    .filter((line) => line.trim().startsWith('temporal '))
    .map((line) => line.trim());

describe("the worker's search-attribute warning", () => {
  it('says nothing when every attribute is ready', () => {
    const check = { ready: true, registered: [], missing: [], wrongType: [] };
    expect(searchAttributeWarning(check, 'default')).toBeUndefined();
  });

  it('for missing attributes only, prints one create of just those', () => {
    const check = {
      ready: false,
      registered: ['ModelRetryStopReason', 'ModelRetryAttempts', 'ModelRetryModels', 'ModelRetryLastFailure'],
      missing: ['ModelRetryClasses (KeywordList)'],
      wrongType: [],
    };
    expect(commandsOf(searchAttributeWarning(check, 'default'))).toEqual([
      'temporal operator search-attribute create --namespace default --name ModelRetryClasses --type KeywordList',
    ]);
  });

  it('for a wrongly typed attribute alone, prints remove then create of it, never a create of the ready ones', () => {
    const check = {
      ready: false,
      registered: ['ModelRetryStopReason', 'ModelRetryModels', 'ModelRetryLastFailure', 'ModelRetryClasses'],
      missing: [],
      wrongType: ['ModelRetryAttempts: registered as Keyword, needs Int'],
    };
    const warning = searchAttributeWarning(check, 'prod');
    expect(commandsOf(warning)).toEqual([
      'temporal operator search-attribute remove --namespace prod --name ModelRetryAttempts',
      'temporal operator search-attribute create --namespace prod --name ModelRetryAttempts --type Int',
    ]);
    expect(warning).toContain('cannot be created again with another type');
    expect(warning).toContain('If another application on this namespace uses that name, leave it');
  });

  it('when the check could not be made, prints the create of all of them', () => {
    const check = { ready: false, registered: [], missing: [], wrongType: [], error: 'permission denied' };
    const warning = searchAttributeWarning(check, 'default');
    expect(warning).toContain('(permission denied)');
    expect(commandsOf(warning)).toHaveLength(1);
    expect(commandsOf(warning)[0]).toContain('--name ModelRetryStopReason --type Keyword');
  });
});
