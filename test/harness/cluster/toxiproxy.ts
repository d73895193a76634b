import { spawn } from 'node:child_process';
import { freePort } from '../../../worker/free-port.js';
import { until } from '../until.js';

/** A toxic as Toxiproxy's API takes it (https://github.com/Shopify/toxiproxy#toxics). */
export interface Toxic {
  type: 'latency' | 'timeout' | 'reset_peer' | 'slicer' | 'limit_data' | 'bandwidth' | 'slow_close';
  /** `downstream`: what the upstream sends back; `upstream`: what the client sends. @default 'downstream' */
  stream?: 'upstream' | 'downstream';
  attributes: Record<string, number>;
}

/** One proxy: a listen address in front of an upstream, with toxics to add and remove. */
export interface Proxy {
  name: string;
  /** `127.0.0.1:PORT`: give this to the client instead of the upstream's address. */
  address: string;
  /** Adds a toxic to every connection, present and future; returns its name (for `remove`). */
  add(toxic: Toxic): Promise<string>;
  remove(name: string): Promise<void>;
  /** Removes every toxic. */
  heal(): Promise<void>;
}

/** A Toxiproxy server of its own, driven over its HTTP API. */
export interface Toxiproxy {
  proxy(name: string, upstream: string): Promise<Proxy>;
  stop(): Promise<void>;
}

export async function startToxiproxy(binary: string): Promise<Toxiproxy> {
  const port = await freePort();
  const api = `http://127.0.0.1:${port}`;
  const child = spawn(binary, ['-host', '127.0.0.1', '-port', String(port)], { stdio: 'ignore' });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  await until(
    'toxiproxy to answer',
    async () => ((await fetch(`${api}/version`)).ok ? true : undefined),
    30_000,
  );
  const call = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${api}${path}`, {
      method,
      ...(body === undefined
        ? {}
        : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
    });
    if (!response.ok)
      throw new Error(`toxiproxy ${method} ${path}: ${response.status} ${await response.text()}`);
    return response.status === 204 ? undefined : ((await response.json()) as unknown);
  };
  let toxics = 0;
  return {
    async proxy(name, upstream) {
      const listen = `127.0.0.1:${await freePort()}`;
      await call('POST', '/proxies', { name, listen, upstream, enabled: true });
      const added = new Set<string>();
      const proxy: Proxy = {
        name,
        address: listen,
        async add(toxic) {
          const toxicName = `${toxic.type}-${++toxics}`;
          await call('POST', `/proxies/${name}/toxics`, {
            name: toxicName,
            type: toxic.type,
            stream: toxic.stream ?? 'downstream',
            toxicity: 1,
            attributes: toxic.attributes,
          });
          added.add(toxicName);
          return toxicName;
        },
        async remove(toxicName) {
          await call('DELETE', `/proxies/${name}/toxics/${toxicName}`);
          added.delete(toxicName);
        },
        async heal() {
          for (const t of [...added]) await proxy.remove(t);
        },
      };
      return proxy;
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}
