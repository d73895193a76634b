import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startLoopbackProvider } from '../../../loopback/index.js';
import type { LoopbackProvider, RecordedRequest } from '../../../loopback/index.js';
import { chat, post } from './helpers.js';

describe('the control endpoint', () => {
  let lp: LoopbackProvider;
  beforeEach(async () => {
    lp = await startLoopbackProvider();
  });
  afterEach(async () => {
    await lp.close();
  });

  it('takes a script, serves it, and reports requests and what is left', async () => {
    const scripted = await post(lp, '/_loopback/script', {
      model: 'remote',
      steps: [{ kind: 'error', status: 503 }, { kind: 'ok', text: 'back' }, { kind: 'ok' }],
    });
    expect(scripted.status).toBe(200);
    expect(await scripted.json()).toMatchObject({ ok: true, remaining: { remote: [{}, {}, {}] } });
    expect((await chat(lp, 'remote', {}, { 'x-request-id': 'r1' })).status).toBe(503);
    expect((await chat(lp, 'remote')).status).toBe(200);

    const { requests } = (await (await fetch(`${lp.url}/_loopback/requests?model=remote`)).json()) as {
      requests: RecordedRequest[];
    };
    expect(requests.map((r) => [r.status, r.outcome])).toEqual([
      [503, 'completed'],
      [200, 'completed'],
    ]);
    expect(requests[0]?.headers['x-request-id']).toBe('r1');
    const { remaining } = (await (await fetch(`${lp.url}/_loopback/remaining`)).json()) as {
      remaining: Record<string, unknown[]>;
    };
    expect(remaining).toEqual({ remote: [{ kind: 'ok' }] });
  });

  it('takes several scripts at once and refuses a bad one without changing anything', async () => {
    const bad = await post(lp, '/_loopback/script', {
      scripts: { a: [{ kind: 'ok' }], b: [{ kind: 'nope' }] },
    });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: string }).error).toMatch(/^b\[0\]\.kind must be one of/);
    expect(lp.remaining()).toEqual({});
    const good = await post(lp, '/_loopback/script', {
      scripts: { a: [{ kind: 'ok' }], b: [{ kind: 'drop' }] },
    });
    expect(good.status).toBe(200);
    expect(Object.keys(lp.remaining())).toEqual(['a', 'b']);
  });

  it('reports unexpected requests, resets, and answers health checks', async () => {
    await chat(lp, 'ghost');
    const { unexpected } = (await (await fetch(`${lp.url}/_loopback/unexpected`)).json()) as {
      unexpected: Array<{ message: string }>;
    };
    expect(unexpected[0]?.message).toMatch(/script for model "ghost" ran out/);
    expect((await post(lp, '/_loopback/reset', {})).status).toBe(200);
    expect(lp.unexpected()).toEqual([]);
    expect(await (await fetch(`${lp.url}/_loopback/health`)).json()).toEqual({ ok: true, url: lp.url });
    expect((await fetch(`${lp.url}/_loopback/nothing`)).status).toBe(404);
    expect(lp.requestCount()).toBe(0); // control requests are not recorded
  });
});

describe('the command line entry', () => {
  it('prints its URL, serves a script given through the control endpoint, and exits 0 on SIGTERM', async () => {
    const main = fileURLToPath(new URL('../../../loopback/main.ts', import.meta.url));
    const child = spawn(process.execPath, ['--import', 'tsx', main, '--port', '0'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      const url = await firstLine(child.stdout);
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const script = { model: 'm', steps: [{ kind: 'error', status: 502 }] };
      await fetch(`${url}/_loopback/script`, { method: 'POST', body: JSON.stringify(script) });
      const res = await fetch(`${url}/v1/chat/completions`, {
        method: 'POST',
        body: JSON.stringify({ model: 'm' }),
      });
      expect(res.status).toBe(502);
      await res.text();
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      expect(await exited).toEqual([0, null]);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  }, 20_000);
});

function firstLine(stream: NodeJS.ReadableStream): Promise<string> {
  return new Promise((resolve, reject) => {
    let buffer = '';
    const onData = (chunk: Buffer | string): void => {
      buffer += chunk.toString();
      const end = buffer.indexOf('\n');
      if (end === -1) return;
      stream.off('data', onData);
      resolve(buffer.slice(0, end));
    };
    stream.on('data', onData);
    stream.once('end', () => reject(new Error(`no line on stdout (got ${JSON.stringify(buffer)})`)));
  });
}
