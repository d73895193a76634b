import { Client, Connection } from '@temporalio/client';
import { afterAll, expect, inject } from 'vitest';
import { leakReport, sweepHistories } from './secret-scan.js';
import { leakNeedles } from './secrets.js';
import { LARGE_MESSAGE_CHANNEL_ARGS } from '../../client/connection-options.js';

/**
 * A setup file of the integration project: after each test file, every workflow run started on the shared dev
 * server since the file began (by the file's harness, its CLI processes or anything else, including runs of
 * files running beside it) has its full history scanned for the run's test credentials. No test has to
 * remember it; the global setup's final sweep covers whatever started too late for this one to see.
 */
const since = new Date(Date.now() - 1000).toISOString();

afterAll(async () => {
  const connection = await Connection.connect({
    address: inject('temporalAddress'),
    channelArgs: LARGE_MESSAGE_CHANNEL_ARGS,
  });
  try {
    const client = new Client({ connection, namespace: inject('temporalNamespace') });
    const needles = leakNeedles(inject('testSecrets'));
    const { leaks } = await sweepHistories(client, needles, `StartTime >= '${since}'`);
    expect(leaks, leakReport(leaks)).toEqual([]);
  } finally {
    await connection.close();
  }
});
