import { createConnection, createServer } from 'node:net';
import type { Socket } from 'node:net';

/** A TCP proxy to `target` (`host:port`) that a test can cut, to play a lost connection to Temporal. */
export interface TcpProxy {
  /** `127.0.0.1:PORT`, to use instead of the target's address. */
  address: string;
  /** Stops listening and breaks every connection through it. */
  cut(): Promise<void>;
  /**
   * Holds every byte in both directions (kept, not dropped), as a network that stalls: a worker behind it can
   * neither report nor heartbeat, yet its connection stays open. `release` sends what was held and goes on.
   */
  hold(): void;
  release(): void;
}

export async function startTcpProxy(target: string): Promise<TcpProxy> {
  const at = target.lastIndexOf(':');
  const host = target.slice(0, at).replace(/^\[|\]$/g, '') || '127.0.0.1';
  const port = Number(target.slice(at + 1));
  const sockets = new Set<Socket>();
  let held = false;
  const waiting: (() => void)[] = [];
  const forward = (from: Socket, to: Socket) =>
    from.on('data', (chunk: Buffer) => {
      if (held) waiting.push(() => to.write(chunk));
      else to.write(chunk);
    });
  const server = createServer((client) => {
    const upstream = createConnection({ host, port });
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => undefined);
    }
    forward(client, upstream);
    forward(upstream, client);
    client.on('end', () => upstream.end());
    upstream.on('end', () => client.end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port: own } = server.address() as { port: number };
  return {
    address: `127.0.0.1:${own}`,
    async cut() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const s of sockets) s.destroy();
      await closed;
    },
    hold() {
      held = true;
    },
    release() {
      held = false;
      for (const send of waiting.splice(0)) send();
    },
  };
}
