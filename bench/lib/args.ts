import type { BenchSize } from '../../test/harness/lab.js';

/** What `npm run bench -- [names...] [flags]` asks for. */
export interface BenchArgs {
  /** The benchmarks to run, in registry order; all of them when none is named. */
  names: string[];
  size: BenchSize;
  /** Where results go. @default bench/results (full size), a temp folder (quick) */
  out?: string;
  /** Rewrite the goals and figures sections of BENCHMARKS.md afterwards (full size into bench/results only). */
  doc: boolean;
  /** More arguments for the dev server the run starts (`--server-arg`, repeatable). */
  serverArgs: string[];
  help: boolean;
  list: boolean;
}

export class BenchArgsError extends Error {
  override name = 'BenchArgsError';
}

export const BENCH_USAGE = `usage: npm run bench -- [NAME ...] [--quick] [--out DIR] [--no-doc] [--server-arg ARG ...] [--list]

  NAME            run only these benchmarks (default: all, in order; --list names them)
  --quick         a smoke-test size that runs in seconds; results go to a temp folder unless --out
  --out DIR       write <name>.json and <name>.md there (default: bench/results)
  --no-doc        do not rewrite the goals and figures sections of BENCHMARKS.md
  --server-arg A  pass A to \`temporal server start-dev\` (e.g. --server-arg=--dynamic-config-value
                  --server-arg=history.timerProcessorMaxTimeShift="1s")`;

/** Parses the bench's arguments; `known` lists the registry's names in order. */
export function parseBenchArgs(argv: readonly string[], known: readonly string[]): BenchArgs {
  const args: BenchArgs = { names: [], size: 'full', doc: true, serverArgs: [], help: false, list: false };
  const wanted = new Set<string>();
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i] as string;
    const [flag, inline] = arg.startsWith('--') && arg.includes('=') ? splitOnce(arg) : [arg, undefined];
    const value = (): string => {
      const v = inline ?? argv[++i];
      if (v === undefined) throw new BenchArgsError(`\`${flag}\` needs a value`);
      return v;
    };
    switch (flag) {
      case '--quick':
        args.size = 'quick';
        break;
      case '--out':
        args.out = value();
        break;
      case '--no-doc':
        args.doc = false;
        break;
      case '--server-arg':
        args.serverArgs.push(value());
        break;
      case '--help':
      case '-h':
        args.help = true;
        break;
      case '--list':
        args.list = true;
        break;
      default:
        if (flag.startsWith('-')) throw new BenchArgsError(`unknown option \`${flag}\`\n${BENCH_USAGE}`);
        if (!known.includes(flag)) {
          throw new BenchArgsError(`unknown benchmark \`${flag}\`: choose from ${known.join(', ')}`);
        }
        wanted.add(flag);
    }
  }
  args.names = wanted.size === 0 ? [...known] : known.filter((k) => wanted.has(k));
  return args;
}

function splitOnce(arg: string): [string, string] {
  const at = arg.indexOf('=');
  return [arg.slice(0, at), arg.slice(at + 1)];
}
