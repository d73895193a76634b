import { UsageError, parseCommandArgs } from './args.js';
import {
  CALL_HELP,
  CANCEL_HELP,
  CODEC_SERVER_HELP,
  DEMO_HELP,
  HISTORY_HELP,
  HEALTH_HELP,
  LIST_HELP,
  MAIN_HELP,
  WORKER_HELP,
  TURN_HELP,
  RERUN_HELP,
  TENANTS_HELP,
} from './help.js';
import { ConfigError } from '../common/config-error.js';

const HELP: Record<string, string> = {
  worker: WORKER_HELP,
  demo: DEMO_HELP,
  call: CALL_HELP,
  turn: TURN_HELP,
  cancel: CANCEL_HELP,
  history: HISTORY_HELP,
  rerun: RERUN_HELP,
  list: LIST_HELP,
  health: HEALTH_HELP,
  tenants: TENANTS_HELP,
  'codec-server': CODEC_SERVER_HELP,
};

/** Runs the command line; resolves to the process exit code. */
export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case undefined:
      case 'help':
      case '--help':
      case '-h': {
        const topic = rest[0];
        process.stdout.write(topic && HELP[topic] ? HELP[topic] : MAIN_HELP);
        return 0;
      }
      case 'worker': {
        const { runWorkerCommand } = await import('./worker-command.js');
        return await runWorkerCommand(rest);
      }
      case 'call': {
        const { runCallCommand } = await import('./call.js');
        return await runCallCommand(rest);
      }
      case 'turn': {
        const { runTurnCommand } = await import('./turn.js');
        return await runTurnCommand(rest);
      }
      case 'cancel': {
        const { runCancelCommand } = await import('./cancel.js');
        return await runCancelCommand(rest);
      }
      case 'history': {
        const { values, positionals } = parseCommandArgs('history', rest, {
          json: { type: 'boolean' },
          file: { type: 'string', multiple: true },
          html: { type: 'string' },
        });
        if (values.help) return printHelp(HISTORY_HELP);
        if (positionals.length > 1) throw new UsageError('`history` takes one workflow id');
        if (values.html?.trim() === '') throw new UsageError('`--html` needs the path of the page to write');
        const { runHistory } = await import('./history.js');
        return await runHistory({
          json: values.json === true,
          ...(positionals[0] ? { workflowId: positionals[0] } : {}),
          ...(values.file ? { files: values.file } : {}),
          ...(values.html ? { html: values.html } : {}),
        });
      }
      case 'rerun': {
        const { runRerunCommand } = await import('./rerun.js');
        return await runRerunCommand(rest);
      }
      case 'health': {
        const { runHealthCommand } = await import('./health.js');
        return await runHealthCommand(rest);
      }
      case 'tenants': {
        const { runTenantsCommand } = await import('./tenants.js');
        return await runTenantsCommand(rest);
      }
      case 'list': {
        const { runListCommand } = await import('./list.js');
        return await runListCommand(rest);
      }
      case 'codec-server': {
        const { runCodecServerCommand } = await import('./codec-server.js');
        return await runCodecServerCommand(rest);
      }
      case 'demo': {
        const { values } = parseCommandArgs('demo', rest, { keep: { type: 'boolean' } });
        if (values.help) return printHelp(DEMO_HELP);
        const { runDemo } = await import('./demo.js');
        return await runDemo({ keep: values.keep === true });
      }
      default:
        throw new UsageError(`unknown command "${command}". Run \`model-retry --help\` for the commands.`);
    }
  } catch (error) {
    if (error instanceof UsageError || error instanceof ConfigError) {
      process.stderr.write(`model-retry: ${error.message}\n`);
      return 2;
    }
    // Temporal could not be reached before anything was asked of it (session.ts): say so without a stack.
    if (error instanceof Error && error.name === 'UnreachableError') {
      process.stderr.write(`model-retry: ${error.message} Nothing was done.\n`);
      return 1;
    }
    process.stderr.write(
      `model-retry: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    return 1;
  }
}

function printHelp(text: string): number {
  process.stdout.write(text);
  return 0;
}
