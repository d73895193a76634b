import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';

/** A table of formatted cells, as printed and as written to Markdown. */
export interface Table {
  title: string;
  columns: string[];
  rows: string[][];
  notes?: string[];
}

/** What one benchmark measured. */
export interface BenchResult {
  /** The registry name (`history-events`). */
  name: string;
  title: string;
  /** The size and repetitions it ran with. */
  params: Record<string, unknown>;
  tables: Table[];
  /** The raw figures behind the tables (numbers, not formatted), for the JSON. */
  figures: Record<string, unknown>;
  /** Findings in a sentence each. */
  notes: string[];
}

/** The machine a run measured on: figures are only comparable on the same one. */
export interface MachineInfo {
  cpus: number;
  cpuModel: string;
  totalMemoryGiB: number;
  /** 1, 5 and 15 minute load averages at the start of the run: how busy the shared machine was. */
  loadAverage: number[];
  node: string;
  platform: string;
  temporalSdk: string;
  temporalCli: string;
}

export interface RunMeta {
  startedAt: string;
  finishedAt: string;
  durationMs: number;
  size: 'quick' | 'full';
  machine: MachineInfo;
}

/** What `bench/results/<name>.json` holds. */
export interface ResultFile {
  meta: RunMeta;
  result: BenchResult;
}

export function describeMachine(env: NodeJS.ProcessEnv = process.env): MachineInfo {
  const cpu = cpus();
  return {
    cpus: cpu.length,
    cpuModel: cpu[0]?.model.trim() ?? 'unknown',
    totalMemoryGiB: Math.round((totalmem() / 1024 ** 3) * 10) / 10,
    loadAverage: loadavg().map((l) => Math.round(l * 100) / 100),
    node: process.version,
    platform: `${process.platform}-${process.arch}`,
    temporalSdk: packageVersion('@temporalio/worker'),
    temporalCli: cliVersion(env.TEMPORAL_CLI_PATH),
  };
}

function packageVersion(name: string): string {
  try {
    const path = join(process.cwd(), 'node_modules', name, 'package.json');
    return (JSON.parse(readFileSync(path, 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown';
  }
}

function cliVersion(path: string | undefined): string {
  if (!path) return 'SDK download';
  try {
    return execFileSync(path, ['--version'], { encoding: 'utf8', timeout: 10_000 }).trim();
  } catch {
    return 'unknown';
  }
}

/** A table as aligned plain text, for the terminal. */
export function textTable(table: Table): string {
  const widths = table.columns.map((c, i) =>
    Math.max(c.length, ...table.rows.map((r) => (r[i] ?? '').length)),
  );
  const line = (cells: readonly string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join('  ');
  return [
    table.title,
    line(table.columns),
    widths.map((w) => '-'.repeat(w)).join('  '),
    ...table.rows.map(line),
    ...(table.notes ?? []).map((n) => `  ${n}`),
  ].join('\n');
}

function escapeCell(cell: string): string {
  return cell.replaceAll('|', '\\|');
}

/** A table as GitHub Markdown. */
export function markdownTable(table: Table): string {
  const head = `| ${table.columns.map(escapeCell).join(' | ')} |`;
  const rule = `| ${table.columns.map((_, i) => (i === 0 ? '---' : '---:')).join(' | ')} |`;
  const rows = table.rows.map((r) => `| ${r.map(escapeCell).join(' | ')} |`);
  const notes = (table.notes ?? []).map((n) => `\n${n}`);
  return [`**${table.title}**`, '', head, rule, ...rows, ...notes].join('\n');
}

/** One line saying when, where and at which size a result was measured. */
export function metaLine(meta: RunMeta): string {
  const m = meta.machine;
  return (
    `Run ${meta.startedAt} (${meta.size} size, ${(meta.durationMs / 1000).toFixed(0)} s) on ${m.cpus} × ` +
    `${m.cpuModel}, ${m.totalMemoryGiB} GiB, load ${m.loadAverage.join(' / ')}; Node ${m.node}, ` +
    `Temporal SDK ${m.temporalSdk}, ${m.temporalCli}.`
  );
}

/** The body of a result in Markdown (tables and findings), without a heading. */
export function resultMarkdown(file: ResultFile): string {
  const { meta, result } = file;
  const parts = [`_${metaLine(meta)}_`, ...result.tables.map(markdownTable)];
  if (result.notes.length > 0) parts.push(result.notes.map((n) => `- ${n}`).join('\n'));
  return parts.join('\n\n');
}

/** Writes `<dir>/<name>.json` and `<dir>/<name>.md` (the latest result of each benchmark replaces the last). */
export function writeResult(dir: string, file: ResultFile): { json: string; markdown: string } {
  mkdirSync(dir, { recursive: true });
  const json = join(dir, `${file.result.name}.json`);
  const markdown = join(dir, `${file.result.name}.md`);
  writeFileSync(json, `${JSON.stringify(file, null, 2)}\n`);
  writeFileSync(markdown, `## ${file.result.title}\n\n${resultMarkdown(file)}\n`);
  return { json, markdown };
}

/** Prints a result's tables and findings to the terminal. */
export function printResult(file: ResultFile, out: (line: string) => void = console.log): void {
  out(`\n== ${file.result.title} ==`);
  for (const table of file.result.tables) out(`\n${textTable(table)}`);
  for (const note of file.result.notes) out(`\n* ${note}`);
}
