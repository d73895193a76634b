import { UsageError, parseCommandArgs } from './args.js';
import { DEMO_HELP, MAIN_HELP, WORKER_HELP } from './help.js';
import { ConfigError, resolveShutdownGraceMs, resolveTaskQueue } from '../../worker/config.js';

const HELP: Record<string, string> = { worker: WORKER_HELP, demo: DEMO_HELP };

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
        const { values } = parseCommandArgs('worker', rest, {
          'task-queue': { type: 'string' },
          'shutdown-grace-ms': { type: 'string' },
        });
        if (values.help) return printHelp(WORKER_HELP);
        const { runWorkerProcess } = await import('../../worker/run.js');
        await runWorkerProcess({
          taskQueue: resolveTaskQueue(values['task-queue']),
          shutdownGraceMs: resolveShutdownGraceMs(values['shutdown-grace-ms']),
        });
        return 0;
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
