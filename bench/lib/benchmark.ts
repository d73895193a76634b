import type { BenchContext } from '../../test/harness/lab.js';
import type { BenchResult } from './report.js';

/** One benchmark of `npm run bench`: measured on the run's shared context, results as tables and figures. */
export interface Benchmark {
  /** The name `npm run bench -- <name>` selects it by. */
  name: string;
  title: string;
  run(ctx: BenchContext): Promise<BenchResult>;
}
