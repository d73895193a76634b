import { execFileSync } from 'node:child_process';
import { Connection } from '@temporalio/client';
import protoPackage from '@temporalio/proto';
import { describe, expect, inject, it } from 'vitest';
import { checkSearchAttributes } from '../../activities/search-attributes.js';
import {
  ATTEMPT_COUNT,
  CLASSES_MET,
  MODELS_TRIED,
  STOP_REASON,
  TENANT,
} from '../../common/search-attributes.js';
import { checkWorkerSearchAttributes } from '../../worker/worker.js';
import { createTestNamespace } from '../harness/namespace.js';
import { until } from '../harness/until.js';

const { INDEXED_VALUE_TYPE_KEYWORD, INDEXED_VALUE_TYPE_KEYWORD_LIST } =
  protoPackage.temporal.api.enums.v1.IndexedValueType;

/** The Temporal CLI the dev server runs (scripts/toolchain.sh sets it). */
function temporalCli(): string {
  const path = process.env.TEMPORAL_CLI_PATH;
  if (!path) throw new Error('TEMPORAL_CLI_PATH is unset: run the tests through scripts/with-toolchain.sh');
  return path;
}

/** Runs one printed `temporal ...` command against `address`, answering `y` to a confirmation. */
function runPrinted(command: string, address: string): void {
  const [program, ...args] = command.trim().split(/\s+/);
  expect(program).toBe('temporal');
  execFileSync(temporalCli(), [...args, '--address', address], { input: 'y\n', stdio: 'pipe' });
}

describe("the worker's search-attribute warning gives a remedy the server accepts", () => {
  it('for an attribute registered with the wrong type: remove, then create, and the namespace is ready', async () => {
    const address = inject('temporalAddress');
    const connection = await Connection.connect({ address });
    try {
      // ModelRetryAttempts taken as a Keyword (needs Int); ModelRetryLastFailure missing.
      const { namespace } = await createTestNamespace(connection, 'wrong-type', {
        [STOP_REASON.name]: INDEXED_VALUE_TYPE_KEYWORD,
        [ATTEMPT_COUNT.name]: INDEXED_VALUE_TYPE_KEYWORD,
        [MODELS_TRIED.name]: INDEXED_VALUE_TYPE_KEYWORD_LIST,
        [CLASSES_MET.name]: INDEXED_VALUE_TYPE_KEYWORD_LIST,
        [TENANT.name]: INDEXED_VALUE_TYPE_KEYWORD,
      });
      const warnings: string[] = [];
      const ready = await checkWorkerSearchAttributes({
        connection: { operatorService: connection.operatorService } as never,
        namespace,
        warn: (m) => warnings.push(m),
      });
      expect(ready).toBe(false);
      expect(warnings).toHaveLength(1);
      const warning = warnings[0] ?? '';
      expect(warning).toContain('wrong type: ModelRetryAttempts: registered as Keyword, needs Int');
      expect(warning).toContain('missing: ModelRetryLastFailure (Keyword)');
      expect(warning).toContain('cannot be created again with another type');
      const commands = warning.split('\n').filter((line) => line.trim().startsWith('temporal '));
      expect(commands.map((c) => c.trim())).toEqual([
        `temporal operator search-attribute remove --namespace ${namespace} --name ModelRetryAttempts`,
        `temporal operator search-attribute create --namespace ${namespace} --name ModelRetryAttempts --type Int --name ModelRetryLastFailure --type Keyword`,
      ]);

      // A create alone (what the warning used to print for all five) is refused while the Keyword one exists.
      expect(() =>
        runPrinted(
          `temporal operator search-attribute create --namespace ${namespace} --name ModelRetryAttempts --type Int`,
          address,
        ),
      ).toThrow(/different type/);
      // The printed remedy, in order, makes every attribute ready.
      for (const command of commands) runPrinted(command, address);
      const after = await until(
        'the attributes ready',
        async () => {
          const check = await checkSearchAttributes(connection.operatorService, namespace);
          return check.ready ? check : undefined;
        },
        30_000,
        200,
      );
      expect(after.wrongType).toEqual([]);
    } finally {
      await connection.close();
    }
  });
});
