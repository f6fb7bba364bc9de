/**
 * bench korea: the korea pipeline in live mode against the loopback upstream world (recorded
 * payloads, no network), run twice into a temp dir: first with the 2-year macro backfill, then an
 * hour later, when the macro series are re-checked and extended incrementally. Prints wall time,
 * upstream requests (budgeted = all but the backfill, and total) and peak RSS.
 * Target (issue 4): a run ≤ 5 s and ≤ 12 budgeted requests. Returns its figures as rows of the
 * benchmark table (bench/table.ts).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadSettings } from '../lib/config.ts';
import { koreaPipeline } from '../pipelines/korea/index.ts';
import type { ProgressSink, StepReport } from '../pipelines/progress.ts';
import { runPipeline } from '../pipelines/runner.ts';
import { KOREA_FIXTURE_NOW, startKoreaUpstreams } from '../sources/live/testing/korea-upstreams.ts';
import type { RowInput } from './table.ts';

const quiet: ProgressSink = { start() {}, finish() {}, note() {}, close() {} };

const describeRun = (reports: StepReport[]): string => {
  const bad = reports.filter((r) => r.status !== 'ok');
  const ok = reports.length - bad.length;
  return `${ok}/${reports.length} steps ok${bad.length ? `; not ok: ${bad.map((r) => `${r.name} ${r.status} (${r.detail ?? ''})`).join('; ')}` : ''}`;
};

export async function benchKorea(): Promise<RowInput[]> {
  const rows: RowInput[] = [];
  const target = (limit: number) => ({ on: 'value' as const, op: '<=' as const, limit, source: 'issue 4' });
  console.log(`korea live benchmark on ${process.version}: pipeline in process against loopback upstreams (recorded payloads)`);
  console.log('target: one live run ≤ 5 s wall and ≤ 12 upstream requests, the first-run macro backfill excluded\n');
  const world = await startKoreaUpstreams();
  const dir = mkdtempSync(join(tmpdir(), 'bench-korea-'));
  try {
    const settings = loadSettings({ ...world.env, SNAPSHOTS_DIR: join(dir, 'snapshots'), WAREHOUSE_DIR: join(dir, 'warehouse') });
    const runs = [
      {
        label: 'run 1 (first: 2-year macro backfill)',
        short: 'live run 1 (macro backfill)',
        now: KOREA_FIXTURE_NOW,
        macroThrough: world.macroThrough,
      },
      {
        label: 'run 2 (1 h later: incremental macro)',
        short: 'live run 2 (1 h later)',
        now: new Date(KOREA_FIXTURE_NOW.getTime() + 3_600_000),
        macroThrough: '2026-07-30',
      },
    ];
    for (const run of runs) {
      world.reset();
      world.macroThrough = run.macroThrough;
      const t0 = performance.now();
      const result = await runPipeline(koreaPipeline, { source: { kind: 'live' }, now: run.now, seed: 0, scale: 1 }, settings, quiet);
      const wall = (performance.now() - t0) / 1000;
      const c = world.counts();
      const ingest = result.reports.filter((r) => r.name.startsWith('ingest:')).reduce((s, r) => s + (r.seconds ?? 0), 0);
      console.log(`${run.label}`);
      console.log(
        `  ${wall.toFixed(3)} s wall (ingest steps ${ingest.toFixed(3)} s); requests: ${c.budgeted} budgeted, ${c.backfill} backfill, ${c.total} total`,
      );
      console.log(
        `  by upstream: ${Object.entries(c.byUpstream)
          .map(([k, n]) => `${k} ${n}`)
          .join(', ')}`,
      );
      console.log(
        `  ${result.manifest ? `published ${result.manifest.version}` : `nothing published: ${result.error}`}; ${describeRun(result.reports)}`,
      );
      // a run that published nothing has no wall time worth a target
      rows.push(
        { figure: `${run.short}: wall`, value: result.manifest ? wall : null, unit: 's', target: target(5) },
        { figure: `${run.short}: budgeted upstream requests`, value: c.budgeted, unit: '', target: target(12) },
      );
    }
    const rss = Math.round(process.resourceUsage().maxRSS / 1024);
    console.log(`\npeak RSS ${rss} MiB (this process: world, pipeline, DuckDB)`);
    rows.push({ figure: 'live runs: peak RSS (bench process)', value: rss, unit: 'MiB' });
    return rows;
  } finally {
    await world.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
