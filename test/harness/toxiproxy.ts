import { afterAll, beforeAll } from 'vitest';
import { clusterTools } from './cluster/tools.js';
import { startToxiproxy } from './cluster/toxiproxy.js';
import type { Toxiproxy } from './cluster/toxiproxy.js';

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
