import { afterAll, beforeAll } from 'vitest';
import { clusterTools } from '../../scripts/cluster/tools.js';
import { startToxiproxy } from '../../scripts/cluster/toxiproxy.js';
import type { Toxiproxy } from '../../scripts/cluster/toxiproxy.js';

/** A Toxiproxy server for the file's tests (`toxiproxy()` after `beforeAll`), stopped after them. */
export function useToxiproxy(): () => Toxiproxy {
  let server: Toxiproxy | undefined;
  beforeAll(async () => {
    server = await startToxiproxy(clusterTools().toxiproxy);
  });
  afterAll(async () => {
    await server?.stop();
  });
  return () => {
    if (!server) throw new Error('Toxiproxy is not up yet (use it inside a test)');
    return server;
  };
}
