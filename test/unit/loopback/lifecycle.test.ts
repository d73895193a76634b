import { describe, expect, it } from 'vitest';
import { hang, ok, slow, startLoopbackProvider } from '../../../loopback/index.js';
import { causes, chat } from './helpers.js';

/** Counts of the handle kinds a server leaves behind: listening sockets, connections and timers. */
function handles(): Record<string, number> {
  const counts: Record<string, number> = { TCPServerWrap: 0, TCPSocketWrap: 0, Timeout: 0 };
  for (const kind of process.getActiveResourcesInfo())
    if (kind in counts) counts[kind] = (counts[kind] ?? 0) + 1;
  return counts;
}

async function eventually(check: () => boolean, ms = 2000): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return check();
}

describe('close()', () => {
  it('ends requests in flight, destroys open sockets and leaves no handle behind', async () => {
    const before = handles();
    const lp = await startLoopbackProvider();
    lp.script('m', [ok(), slow(60_000, ok('never')), hang()]);
    await (await chat(lp, 'm')).text(); // leaves a keep-alive connection open
    const slowCall = chat(lp, 'm').catch((e: unknown) => e);
    const hangingCall = chat(lp, 'm').catch((e: unknown) => e);
    await lp.waitForRequests(3, 'm');
    expect(handles().TCPServerWrap).toBe((before.TCPServerWrap ?? 0) + 1);

    // A close that waited for them would outlast the test (a minute's slow step, a step that never answers).
    await lp.close();
    expect(handles().TCPServerWrap).toBe(before.TCPServerWrap); // released by the time close() resolves
    for (const error of [await slowCall, await hangingCall]) {
      expect(causes(error).join(' | ')).toMatch(/fetch failed/);
    }
    expect(lp.requests().map((r) => r.outcome)).toEqual(['completed', 'server-closed', 'server-closed']);

    const settled = await eventually(() => {
      const now = handles();
      return Object.entries(before).every(([kind, n]) => (now[kind] ?? 0) <= n);
    });
    expect(settled ? before : handles()).toEqual(before);
  });

  it('is safe to call twice, and the port refuses connections afterwards', async () => {
    const lp = await startLoopbackProvider();
    await Promise.all([lp.close(), lp.close()]);
    await lp.close();
    const error = await fetch(lp.url).catch((e: unknown) => e);
    expect(causes(error).join(' | ')).toMatch(/ECONNREFUSED/);
  });

  it('rejects a port that is taken, leaving no listening socket behind', async () => {
    const before = handles().TCPServerWrap ?? 0;
    const lp = await startLoopbackProvider();
    try {
      await expect(startLoopbackProvider({ port: lp.port })).rejects.toThrow(/EADDRINUSE/);
      expect(handles().TCPServerWrap).toBe(before + 1);
    } finally {
      await lp.close();
    }
    expect(handles().TCPServerWrap).toBe(before);
  });

  it('ends a wait for requests that will never come', async () => {
    const lp = await startLoopbackProvider();
    const waiting = lp.waitForRequests(1, 'm').catch((e: unknown) => e);
    await lp.close();
    expect(await waiting).toEqual(
      new Error('loopback provider: closed after 0 of the 1 request(s) for model "m" waited for'),
    );
    await expect(lp.waitForRequests(1)).rejects.toThrow(/closed/);
  });
});
