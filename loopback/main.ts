/**
 * Runs the loopback provider as its own process, for manual use and for chaos tests:
 *
 *     tsx loopback/main.ts [--port 8080] [--host 127.0.0.1] [--script scripts.json]
 *
 * The first line on stdout is the base URL (`http://127.0.0.1:PORT`), so a parent process can read it. The
 * script file holds `{ "<model>": [steps...] }` (`"*"` for any model); more can be added through
 * `POST /_loopback/script`. Unexpected requests are reported on stderr. SIGINT/SIGTERM close it and exit 0.
 */
import { readFile } from 'node:fs/promises';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { startLoopbackProvider } from './server.js';
import type { LoopbackProvider } from './server.js';

const USAGE = 'usage: main.ts [--port N] [--host ADDRESS] [--script FILE.json]';

/** Starts the provider from command-line arguments; resolves with it once it listens. */
export async function main(argv: string[]): Promise<LoopbackProvider> {
  const { values } = parseArgs({
    args: argv,
    options: {
      port: { type: 'string', default: '0' },
      host: { type: 'string', default: '127.0.0.1' },
      script: { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  }
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new Error(`--port must be an integer 0-65535 (got ${values.port}); ${USAGE}`);
  }
  const scripts =
    values.script === undefined
      ? {}
      : (JSON.parse(await readFile(values.script, 'utf8')) as Record<string, unknown[]>);
  const provider = await startLoopbackProvider({
    port,
    host: values.host,
    scripts,
    onUnexpected: (u) =>
      process.stderr.write(`loopback provider: unexpected request #${u.seq}: ${u.message}\n`),
  });
  process.stdout.write(`${provider.url}\n`);
  process.stderr.write(
    `loopback provider listening: OpenAI ${provider.openaiBaseURL}/chat/completions, ` +
      `Anthropic ${provider.anthropicBaseURL}/messages, control ${provider.url}/_loopback/\n`,
  );
  return provider;
}

const entry = process.argv[1];
if (entry !== undefined && import.meta.url === pathToFileURL(entry).href) {
  try {
    const provider = await main(process.argv.slice(2));
    const stop = (): void => {
      void provider.close().then(() => process.exit(0));
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  } catch (error) {
    process.stderr.write(`loopback provider: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(2);
  }
}
