/**
 * The one benchmark table: every benchmark returns its figures as rows (figure, value, baseline,
 * ratio, target, holds), `npm run bench` prints them as one table and keeps them in
 * bench/results.json. A run of one benchmark (`npm run bench -- korea`) replaces that benchmark's
 * rows and leaves the others as they were, each row saying when it was measured.
 *
 * `holds` is never set by hand: it is computed from the target and the measured value (or ratio),
 * so a missed target shows as false however the benchmark words its figure.
 */
import { existsSync, readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { replaceFile } from '../lib/new-file.ts';

export const BENCH_NAMES = ['analytics', 'live', 'korea', 'proxy', 'site', 'probe', 'soak'] as const;
/** `foundation` is not in the full run: the snapshot publish and demo pipeline figures it gives have no target. */
export type BenchName = (typeof BENCH_NAMES)[number] | 'foundation';

export const Target = z.object({
  /** What the limit applies to: the figure's value, or its ratio to the baseline. */
  on: z.enum(['value', 'ratio']),
  op: z.enum(['<=', '>=', '=', '<']),
  limit: z.number(),
  /** Where the target comes from, e.g. "issue 13". */
  source: z.string(),
});
export type Target = z.infer<typeof Target>;

export const BenchRow = z.object({
  bench: z.string(),
  figure: z.string(),
  value: z.number().nullable(),
  unit: z.string(),
  /** The same-run baseline the ratio is taken against (same unit), when the figure has one. */
  baseline: z.number().nullable(),
  ratio: z.number().nullable(),
  target: Target.nullable(),
  /** Computed by row(): null when there is no target or nothing was measured. */
  holds: z.boolean().nullable(),
  /** When the benchmark that produced the row ran (ISO). */
  measuredAt: z.string(),
});
export type BenchRow = z.infer<typeof BenchRow>;

export const BenchResults = z.object({
  updatedAt: z.string(),
  rows: z.array(BenchRow),
  /** Where each benchmark last ran: node version and cores, and its own notes (e.g. run length). */
  runs: z.record(z.string(), z.object({ at: z.string(), node: z.string(), cores: z.number(), note: z.string().optional() })),
});
export type BenchResults = z.infer<typeof BenchResults>;

export interface RowInput {
  figure: string;
  value: number | null;
  unit: string;
  baseline?: number | null;
  /** Defaults to value / baseline when both are there. */
  ratio?: number | null;
  target?: Target | null;
}

export function meets(target: Target, measured: number | null): boolean | null {
  if (measured === null || !Number.isFinite(measured)) return null;
  switch (target.op) {
    case '<=':
      return measured <= target.limit;
    case '<':
      return measured < target.limit;
    case '>=':
      return measured >= target.limit;
    case '=':
      return measured === target.limit;
  }
}

/** A row of `bench`, its ratio and `holds` computed from the figures. */
export function row(bench: string, input: RowInput, measuredAt: string): BenchRow {
  // a NaN (e.g. a percentile of no answers) was not measured: null, never a number in the table
  const finite = (n: number | null | undefined) => (n !== null && n !== undefined && Number.isFinite(n) ? n : null);
  const value = finite(input.value);
  const baseline = finite(input.baseline);
  const ratio =
    input.ratio !== undefined ? finite(input.ratio) : value !== null && baseline !== null && baseline !== 0 ? value / baseline : null;
  const target = input.target ?? null;
  const holds = target ? meets(target, target.on === 'ratio' ? ratio : value) : null;
  return { bench, figure: input.figure, value, unit: input.unit, baseline, ratio, target, holds, measuredAt };
}

/**
 * The results after a run of `bench`: its rows replace every row it had before, the other
 * benchmarks' rows stay, in the order of BENCH_NAMES (then any other), each benchmark's rows in the
 * order the run gave them.
 */
export function mergeResults(
  previous: BenchResults | null,
  bench: string,
  rows: readonly BenchRow[],
  run: { at: string; node: string; cores: number; note?: string },
): BenchResults {
  const kept = (previous?.rows ?? []).filter((r) => r.bench !== bench);
  const all = [...kept, ...rows];
  const order = (name: string) => {
    const i = (BENCH_NAMES as readonly string[]).indexOf(name);
    return i < 0 ? BENCH_NAMES.length : i;
  };
  const indexed = all.map((r, i) => ({ r, i }));
  indexed.sort((a, b) => order(a.r.bench) - order(b.r.bench) || a.i - b.i);
  return {
    updatedAt: run.at,
    rows: indexed.map((x) => x.r),
    runs: { ...(previous?.runs ?? {}), [bench]: run },
  };
}

export function readResults(file: string): BenchResults | null {
  if (!existsSync(file)) return null;
  return BenchResults.parse(JSON.parse(readFileSync(file, 'utf8')));
}

/** Writes results.json whole or not at all (a temp file renamed over it). */
export function writeResults(file: string, results: BenchResults): void {
  replaceFile(file, `${JSON.stringify(BenchResults.parse(results), null, 2)}\n`);
}

/** A number as the table shows it: integers grouped, others with three significant digits or two decimals. */
export function formatNumber(n: number | null): string {
  if (n === null || !Number.isFinite(n)) return '–';
  if (Number.isInteger(n)) return n.toLocaleString('en-US');
  const abs = Math.abs(n);
  if (abs >= 100) return Math.round(n).toLocaleString('en-US');
  if (abs >= 1) return n.toFixed(2);
  return n.toPrecision(3);
}

export function formatTarget(target: Target | null, unit: string): string {
  if (!target) return '';
  const op = target.op === '<=' ? '≤' : target.op === '>=' ? '≥' : target.op;
  const limit = target.on === 'ratio' ? `${formatNumber(target.limit)}×` : `${formatNumber(target.limit)}${unit ? ` ${unit}` : ''}`;
  return `${target.on === 'ratio' ? 'ratio ' : ''}${op} ${limit} (${target.source})`;
}

/** The table as plain text: one line per row, columns padded, `holds` as yes / NO / blank. */
export function formatTable(rows: readonly BenchRow[]): string {
  const header = ['bench', 'figure', 'value', 'baseline', 'ratio', 'target', 'holds', 'measured'];
  const lines = rows.map((r) => [
    r.bench,
    r.figure,
    `${formatNumber(r.value)}${r.unit && r.value !== null ? ` ${r.unit}` : ''}`,
    r.baseline === null ? '' : `${formatNumber(r.baseline)}${r.unit ? ` ${r.unit}` : ''}`,
    r.ratio === null ? '' : `${formatNumber(r.ratio)}×`,
    formatTarget(r.target, r.unit),
    r.holds === null ? '' : r.holds ? 'yes' : 'NO',
    r.measuredAt.slice(0, 16).replace('T', ' '),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  const right = new Set([2, 3, 4]);
  const fmt = (cells: string[]) =>
    cells
      .map((c, i) => (right.has(i) ? c.padStart(widths[i]!) : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [fmt(header), widths.map((w) => '-'.repeat(w)).join('  '), ...lines.map(fmt)].join('\n');
}

/** bench/results.json, next to this file. */
export const RESULTS_FILE = fileURLToPath(new URL('./results.json', import.meta.url));

/**
 * Keeps one benchmark's run: its rows (holds computed) replace its earlier rows in `file`, and the
 * merged results are written back and returned.
 */
export function recordRun(file: string, bench: string, inputs: readonly RowInput[], note?: string, at = new Date()): BenchResults {
  const measuredAt = at.toISOString();
  const rows = inputs.map((input) => row(bench, input, measuredAt));
  const run = { at: measuredAt, node: process.version, cores: cpus().length, ...(note ? { note } : {}) };
  const results = mergeResults(readResults(file), bench, rows, run);
  writeResults(file, results);
  return results;
}
