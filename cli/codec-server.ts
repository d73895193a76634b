import { ConfigError } from '../common/config-error.js';
import {
  createDataConverter,
  describePayloadSettings,
  payloadSettingsFromEnv,
} from '../payloads/data-converter.js';
import { DEFAULT_UI_ORIGINS, startCodecServer } from '../payloads/codec-server.js';
import { UsageError, parseCommandArgs } from './args.js';
import { CODEC_SERVER_HELP } from './help.js';

/** The variable holding the bearer token the codec endpoint requires (none: no check). */
export const CODEC_SERVER_TOKEN_ENV = 'MODEL_RETRY_CODEC_SERVER_TOKEN';
/** The variable listing the Web UI origins allowed to call it, comma-separated. */
export const CODEC_SERVER_ORIGINS_ENV = 'MODEL_RETRY_CODEC_SERVER_ORIGINS';

export interface CodecServerCommandOptions {
  /** Called once the endpoint listens, with its URL (tests). */
  onListening?: (url: string) => void;
  /** Resolves when the endpoint should stop. @default SIGINT or SIGTERM */
  until?: Promise<unknown>;
  env?: NodeJS.ProcessEnv;
}

/**
 * `model-retry codec-server [--listen HOST:PORT] [--ui-origin URL ...]`: serves Temporal's codec server protocol
 * with the keys and payload store of the environment (the same variables as the worker's), so the Temporal Web UI
 * or `temporal --codec-endpoint` shows payloads decrypted. Refuses to start with no keys and no store.
 */
export async function runCodecServerCommand(
  args: string[],
  options: CodecServerCommandOptions = {},
): Promise<number> {
  const env = options.env ?? process.env;
  const { values, positionals } = parseCommandArgs('codec-server', args, {
    listen: { type: 'string' },
    'ui-origin': { type: 'string', multiple: true },
  });
  if (values.help) {
    process.stdout.write(CODEC_SERVER_HELP);
    return 0;
  }
  if (positionals.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(positionals[0])}.`);
  const { host, port } = parseListen(values.listen ?? '127.0.0.1:8888');
  const origins = values['ui-origin'] ?? splitList(env[CODEC_SERVER_ORIGINS_ENV]) ?? DEFAULT_UI_ORIGINS;
  const settings = payloadSettingsFromEnv(env);
  const description = describePayloadSettings(settings);
  if (!description)
    throw new ConfigError(
      'the codec endpoint has nothing to decode: set MODEL_RETRY_CODEC_KEYS (or MODEL_RETRY_CODEC_KEYS_FILE) ' +
        'and/or MODEL_RETRY_PAYLOAD_STORE as for the workers.',
    );
  const token = env[CODEC_SERVER_TOKEN_ENV] || undefined;
  const codecs = createDataConverter(settings).payloadCodecs ?? [];
  const server = await startCodecServer({ codecs, host, port, origins, ...(token ? { token } : {}) });
  const log = (line: string) => process.stderr.write(`model-retry codec-server: ${line}\n`);
  log(`${description}`);
  log(
    `listening on ${server.url} (POST /decode, /encode) for ${origins.join(', ')}; ` +
      (token ? `Authorization: Bearer <${CODEC_SERVER_TOKEN_ENV}> required` : 'no Authorization check') +
      '. Ctrl-C to stop.',
  );
  options.onListening?.(server.url);
  try {
    await (options.until ?? signalled());
  } finally {
    await server.close();
  }
  return 0;
}

function parseListen(raw: string): { host: string; port: number } {
  const m = /^(\[[0-9a-fA-F:]+\]|[A-Za-z0-9.-]+):(\d{1,5})$/.exec(raw.trim());
  if (!m || Number(m[2]) > 65_535)
    throw new UsageError(`\`--listen\` must be HOST:PORT, e.g. 127.0.0.1:8888 (got "${raw}")`);
  return { host: (m[1] as string).replace(/^\[|\]$/g, ''), port: Number(m[2]) };
}

function splitList(raw: string | undefined): string[] | undefined {
  const items = raw
    ?.split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  return items && items.length > 0 ? items : undefined;
}

function signalled(): Promise<void> {
  return new Promise((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}
