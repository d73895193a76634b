import type { BenchResult } from './report.js';

/** One goal of a benchmark, read from its latest result. */
export interface Goal {
  /** The registry name of the benchmark whose result measures it. */
  bench: string;
  /** The goal in a few words, as a reader checks it. */
  goal: string;
  /** The measured figure (formatted) and whether it meets the goal; undefined when the result lacks the figure. */
  measure: (figures: Record<string, unknown>) => { figure: string; met: boolean } | undefined;
}

type Figures = Record<string, unknown>;

function x(r: number): string {
  return `${r.toFixed(2)}×`;
}

function num(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

function get(figures: Figures, ...path: string[]): unknown {
  let at: unknown = figures;
  for (const key of path) at = at !== null && typeof at === 'object' ? (at as Figures)[key] : undefined;
  return at;
}

function median(values: readonly number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
}

interface Load {
  calls: number;
  callsPerSecondTo90?: number;
  callsPerSecond?: number;
  latencyMs: { p50?: number | null; p99?: number | null };
  cpuSeconds: { worker?: number };
}

const LOAD_PICK: Record<string, (l: Load) => number | undefined> = {
  'throughput to 90 % of results': (l) => num(l.callsPerSecondTo90),
  'throughput to the last result': (l) => num(l.callsPerSecond),
  'worker CPU per call': (l) => num(l.cpuSeconds.worker),
  p50: (l) => num(l.latencyMs.p50),
  p99: (l) => num(l.latencyMs.p99),
};

/**
 * Ours over the floor for the concurrency load with eager execution off, as its table reads them: per failure
 * rate and mode, the median of the rounds' ratios; the goal is met when every cell meets it.
 */
function concurrency(figure: string, goal: number, atLeast: boolean): Goal['measure'] {
  return (figures) => {
    const runs = get(figures, 'runs') as Record<string, Load[]> | undefined;
    const pick = LOAD_PICK[figure];
    if (!runs || !pick) return undefined;
    const cells: string[] = [];
    let met = true;
    for (const mode of ['modelCallWorkflow', 'callModel']) {
      const ratios: string[] = [];
      for (const rate of ['0 %', '20 %', '50 %']) {
        const ours = runs[`off / ${rate} / ${mode}`] ?? [];
        const floor = runs[`off / ${rate} / floor`] ?? [];
        const rounds = ours.flatMap((o, i) => {
          const f = floor[i];
          const a = pick(o);
          const b = f ? pick(f) : undefined;
          return a !== undefined && b !== undefined && b !== 0 ? [a / b] : [];
        });
        if (rounds.length === 0) return undefined;
        const r = median(rounds);
        met &&= atLeast ? r >= goal : r <= goal;
        ratios.push(x(r));
      }
      cells.push(`${mode} ${ratios.join(' / ')}`);
    }
    return { figure: `${cells.join('; ')} (0 / 20 / 50 % failing)`, met };
  };
}

/** A ratio the result records at `path`, held to at most (or at least) `goal`. */
function ratioAt(path: string[], goal: number, atLeast = false): Goal['measure'] {
  return (figures) => {
    const r = num(get(figures, ...path));
    return r === undefined ? undefined : { figure: x(r), met: atLeast ? r >= goal : r <= goal };
  };
}

/**
 * Every goal a benchmark is held to, in registry order. The benchmarks record their figures, not their goals, so
 * the goals live here, beside the code that reads them out of the results.
 */
export const GOALS: readonly Goal[] = [
  {
    bench: 'actions',
    goal: 'a call answered in 10 s, not streamed: at most 6 billable actions',
    measure: (figures) => {
      const rows = get(figures, 'rows') as { name: string; ours: { total: number } }[] | undefined;
      const row = rows?.find((r) => r.name === 'answered after 10 s');
      return row ? { figure: `${row.ours.total} actions`, met: row.ours.total <= 6 } : undefined;
    },
  },
  {
    bench: 'retry-overhead',
    goal: 'a call of three failed attempts and 1 s waits, start to result p50: at most 1.1× the floor',
    measure: ratioAt(['oursOverFloor', 'callP50'], 1.1),
  },
  {
    bench: 'retry-overhead',
    goal: 'the same, p99: at most 1.1× the floor',
    measure: ratioAt(['oursOverFloor', 'callP99'], 1.1),
  },
  ...(
    [
      ['throughput to 90 % of results', 0.95, true],
      ['throughput to the last result', 0.95, true],
      ['worker CPU per call', 1.1, false],
      ['p50', 1.1, false],
      ['p99', 1.1, false],
    ] as const
  ).map(([figure, goal, atLeast]) => ({
    bench: 'concurrency',
    goal: `150 calls at once, ${figure}: ${atLeast ? 'at least' : 'at most'} ${goal}× the floor`,
    measure: concurrency(figure, goal, atLeast),
  })),
  {
    bench: 'replay',
    goal: "a model-call history's replay CPU per event: at most 1.2× the floor and under 0.5 ms",
    measure: (figures) => {
      const calls = Object.values((get(figures, 'vsFloor') as Figures | undefined) ?? {})[0] as
        Figures | undefined;
      const ours = num(get(calls ?? {}, 'ours', 'cpuPerEvent'));
      const floor = num(get(calls ?? {}, 'floor', 'cpuPerEvent'));
      if (ours === undefined || floor === undefined) return undefined;
      const r = ours / floor;
      return { figure: `${x(r)}, ${ours.toFixed(2)} ms per event`, met: r <= 1.2 && ours < 0.5 };
    },
  },
  {
    bench: 'limits',
    goal: 'requestsPerSecond over two workers: every full 5 s window within 10 % of the limit (the first may add the burst)',
    measure: (figures) => {
      const sides = Object.entries(figures) as [string, Figures][];
      if (sides.length === 0) return undefined;
      let met = true;
      const parts = sides.map(([side, f]) => {
        const limit = num(f.limitPerSecond) ?? Number.NaN;
        const rates = (f.fullWindowRates as number[] | undefined) ?? [];
        const partitions = side.startsWith('1 ') ? 1 : 4;
        const burst = (partitions * Math.max(1, Math.ceil(limit / partitions))) / 5;
        rates.forEach((rate, i) => {
          const high = limit * 1.1 + (i === 0 ? burst : 0);
          met &&= rate <= high && (i === 0 || rate >= limit * 0.9);
        });
        return `${side}: ${rates.join(' / ')} per s against ${limit}`;
      });
      return { figure: parts.join('; '), met };
    },
  },
  {
    bench: 'outage',
    goal: 'fleet health on: requests that reach a failing backend at most those in flight at the trip + the threshold + the probes',
    measure: (figures) => {
      const rows = (get(figures, 'rows') as Figures[] | undefined)?.filter((r) => r.health === 'on') ?? [];
      if (rows.length === 0) return undefined;
      const figure = rows
        .map((r) => `${String(r.scenario)}: ${String(r.sentAttemptsOnA)} against ${String(r.goalBound)}`)
        .join('; ');
      return { figure, met: rows.every((r) => r.goalMet === true) };
    },
  },
  {
    bench: 'outage',
    goal: 'a backend that comes back gets its first request within one cool-down',
    measure: (figures) => {
      const back = num(get(figures, 'recovery', 'backToFirstRequestMs'));
      const coolDown = num(get(figures, 'recovery', 'coolDownAtBackMs'));
      const within = get(figures, 'recovery', 'withinOneCoolDown');
      if (back === undefined || coolDown === undefined || typeof within !== 'boolean') return undefined;
      return {
        figure: `${(back / 1000).toFixed(1)} s against ${(coolDown / 1000).toFixed(1)} s`,
        met: within,
      };
    },
  },
  ...(
    [
      ['throughput', 'throughput', 0.95, true],
      ['CPU per turn', 'cpu', 1.1, false],
      ['p50', 'p50', 1.1, false],
      ['p99', 'p99', 1.1, false],
    ] as const
  ).map(([label, key, goal, atLeast]) => ({
    bench: 'turn',
    goal: `agent turns, ${label}: ${atLeast ? 'at least' : 'at most'} ${goal}× the floor (median of the rounds)`,
    measure: ratioAt(['oursOverFloor', key], goal, atLeast),
  })),
  {
    bench: 'stream-cut',
    goal: 'a stream cut mid-answer: no character delivered twice',
    measure: (figures) => {
      const cells = get(figures, 'cells') as { deliveredTwice: number }[] | undefined;
      if (!cells) return undefined;
      const twice = cells.reduce((n, c) => n + c.deliveredTwice, 0);
      return { figure: `${twice} characters in ${cells.length} cells`, met: twice === 0 };
    },
  },
  {
    bench: 'tenants',
    goal: 'tenant envelope: requests sent past it: 0',
    measure: (figures) => {
      const past = num(get(figures, 'envelope', 'within', 'requestsPastEnvelope'));
      const over = num(get(figures, 'envelope', 'overBilling', 'ledger', 'overBilled', 'tokens'));
      if (past === undefined) return undefined;
      const overBilled =
        over === undefined ? '' : `; a provider billing past the reservations: ${over} tokens over-billed`;
      return { figure: `${past} requests${overBilled}`, met: past === 0 };
    },
  },
  {
    bench: 'tenants',
    goal: 'fairness: trickle latency under a burst / alone, p95, fairness on: at most 2×',
    measure: (figures) => {
      const on = num(get(figures, 'fairness', 'on', 'p95Ratio'));
      const off = num(get(figures, 'fairness', 'off', 'p95Ratio'));
      const afterOn = num(get(figures, 'fairness', 'on', 'afterStartP95Ratio'));
      const afterOff = num(get(figures, 'fairness', 'off', 'afterStartP95Ratio'));
      if (on === undefined) return undefined;
      const or = (v: number | undefined) => (v === undefined ? 'n/a' : x(v));
      const after = `; after the start was answered: ${or(afterOn)}, off ${or(afterOff)}`;
      return { figure: `${x(on)} (fairness off: ${or(off)}${after})`, met: on <= 2 };
    },
  },
  {
    bench: 'tenants',
    goal: 'tokens per minute: 429s with the bucket: 0',
    measure: (figures) => {
      const on = num(get(figures, 'tokens', 'on', 'rateLimited'));
      const off = num(get(figures, 'tokens', 'off', 'rateLimited'));
      if (on === undefined) return undefined;
      return { figure: `${on} (without: ${off ?? 'n/a'})`, met: on === 0 };
    },
  },
  {
    bench: 'tenants',
    goal: 'ledger round trips per call: at most 0.2',
    measure: (figures) => {
      const r = num(get(figures, 'ledger', 'roundTripsPerCall'));
      return r === undefined ? undefined : { figure: r.toFixed(3), met: r <= 0.2 };
    },
  },
];

/** The goals table's rows, from each benchmark's latest result (`undefined` when it has none yet). */
export function goalRows(results: ReadonlyMap<string, BenchResult>): string[][] {
  return GOALS.map((g) => {
    const result = results.get(g.bench);
    const m = result ? g.measure(result.figures) : undefined;
    const met = m === undefined ? 'no figure' : m.met ? 'met' : 'not met';
    return [g.goal, m?.figure ?? 'n/a', met, `\`${g.bench}\``];
  });
}
