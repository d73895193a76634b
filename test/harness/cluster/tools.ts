import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The Temporal server version the cluster runs: the one the dev server (Temporal CLI v1.5.1) embeds. */
export const TEMPORAL_SERVER_VERSION = '1.29.1';

/** Where the cluster's binaries and schemas are (what `scripts/cluster-build.sh` prints). */
export interface ClusterTools {
  /** The Temporal server binary (`go.temporal.io/server/cmd/server`). */
  server: string;
  /** Temporal's SQL schema tool (`go.temporal.io/server/cmd/tools/sql`). */
  sqlTool: string;
  /** `schema/postgresql/v12` of the server's module source. */
  schemaDir: string;
  /** The Toxiproxy server binary. */
  toxiproxy: string;
  /** PostgreSQL's bin folder (initdb, pg_ctl, psql). */
  pgBin: string;
}

const BUILD_SCRIPT = fileURLToPath(new URL('../../../scripts/cluster-build.sh', import.meta.url));

const VARIABLES = {
  server: 'MODEL_RETRY_TEMPORAL_SERVER',
  sqlTool: 'MODEL_RETRY_TEMPORAL_SQL_TOOL',
  schemaDir: 'MODEL_RETRY_TEMPORAL_SCHEMA',
  toxiproxy: 'MODEL_RETRY_TOXIPROXY',
  pgBin: 'MODEL_RETRY_PG_BIN',
} as const satisfies Record<keyof ClusterTools, string>;

/**
 * The tools, from the environment where `scripts/cluster-build.sh` already ran, else by running it (it builds
 * what is missing into the cache, which takes minutes only the first time).
 */
export function clusterTools(env: NodeJS.ProcessEnv = process.env): ClusterTools {
  const fromEnv = (e: NodeJS.ProcessEnv) =>
    Object.fromEntries(
      Object.entries(VARIABLES).map(([key, name]) => [key, e[name]]),
    ) as Partial<ClusterTools>;
  const given = fromEnv(env);
  if (Object.values(given).every((v) => v)) return given as ClusterTools;
  const out = execFileSync('bash', [BUILD_SCRIPT], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exported: NodeJS.ProcessEnv = {};
  for (const line of out.split('\n')) {
    const m = /^export (\w+)=(.*)$/.exec(line);
    // The script quotes with printf %q; the cache paths it prints have nothing to unquote.
    if (m) exported[m[1] as string] = (m[2] as string).replace(/\\(.)/g, '$1');
  }
  const built = { ...fromEnv(exported), ...Object.fromEntries(Object.entries(given).filter(([, v]) => v)) };
  for (const [key, name] of Object.entries(VARIABLES)) {
    if (!built[key as keyof ClusterTools]) throw new Error(`scripts/cluster-build.sh did not set ${name}`);
  }
  return built as ClusterTools;
}
