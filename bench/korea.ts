/**
 * bench korea: the korea pipeline in live mode against the loopback upstream world (recorded
 * payloads, no network), run twice into a temp dir: first with the 2-year macro backfill, then an
 * hour later, when the macro series are re-checked and extended incrementally. Prints wall time,
 * upstream requests (budgeted = all but the backfill, and total) and peak RSS.
 * Targets: a run ≤ 5 s with four Korean exchanges (Upbit, Bithumb, Coinone, Korbit), the premium
 * archive and the Korea index (issue 32; issue 4 set 5 s for two), ≤ 15 budgeted requests, and
 * each exchange asked no more in a whole run than its published limit allows in one second.
 * Returns its figures as rows of the benchmark table (bench/table.ts).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadSettings } from '../lib/config.ts';
import { koreaPipeline } from '../pipelines/korea/index.ts';
import type { ProgressSink, StepReport } from '../pipelines/progress.ts';
import { runPipeline } from '../pipelines/runner.ts';
import { KOREA_FIXTURE_NOW, startKoreaUpstreams } from '../sources/live/testing/korea-upstreams.ts';
import { findEndpoint } from '../catalog/index.ts';
import { koreaHandlers } from '../proxy/data/korea.ts';
import { loadLatest } from '../snapshots/reader.ts';
import { percentile, timedCalls } from './timing.ts';
import type { RowInput } from './table.ts';

/** Each exchange's published public limit (sources/live/korea/README.md, coinone-korbit.md): the smallest per-second group. */
const EXCHANGE_LIMITS = {
  upbit: { perSecond: 10, text: '10 requests/s per IP and group' },
  bithumb: { perSecond: 150, text: '150 requests/s per IP' },
  coinone: { perSecond: 20, text: '1,200 requests/min per IP (20/s replenished)' },
  korbit: { perSecond: 50, text: '50 requests/s per IP' },
} as const;

/**
 * The paid executable premium at sizes the run did not publish: the handler (precheck, then the
 * book walk in DuckDB over the run's order-books file) on the live run's snapshot, 300 requests
 * 2 at a time over its symbols at sizes from 1,000 to 200,000 USD, after 30 of warm-up.
 */
async function benchExecutable(snapshotsDir: string): Promise<RowInput[]> {
  const snap = await loadLatest(snapshotsDir, 'korea');
  const doc = snap?.datasets.get('arbitrage-executable')?.document as { symbols: string[] } | undefined;
  if (!snap || !doc) return [{ figure: 'executable premium at any size: p99 per request', value: null, unit: 'ms' }];
  const endpoint = findEndpoint('korea', 'arbitrage-executable')!;
  const handler = koreaHandlers['arbitrage-executable']!;
  const call = (i: number) => async () => {
    const query = endpoint.query!.parse({ symbol: doc.symbols[i % doc.symbols.length], size_usd: String(1000 + ((i * 7919) % 199_000)) });
    const req = { endpoint, query: query as Record<string, unknown>, params: {}, body: undefined, snapshot: snap, now: new Date() };
    if ((await handler.precheck!(req)) !== null || (await handler.handle(req)).status !== 200) throw new Error('executable: not a 200');
  };
  await timedCalls(Array.from({ length: 30 }, (_, i) => call(i)));
  const times = await timedCalls(Array.from({ length: 300 }, (_, i) => call(i + 30)));
  const p99 = percentile(times, 99);
  console.log(
    `\nexecutable premium at any size (handler on the live run's books, ${doc.symbols.length} symbols, 2 at a time): p50 ${percentile(times, 50).toFixed(2)} ms, p99 ${p99.toFixed(2)} ms`,
  );
  return [
    {
      figure: `executable premium at any size: p99 per request (handler, ${doc.symbols.length} symbols' books, 2 at a time)`,
      value: p99,
      unit: 'ms',
      target: { on: 'value', op: '<=', limit: 30, source: 'as the archive endpoints, issue 32' },
    },
  ];
}

/** The exchanges the published kimchi-premium document's Korea index rests on. */
async function readKimchiIndex(snapshotsDir: string): Promise<string[] | null> {
  const snap = await loadLatest(snapshotsDir, 'korea');
  const doc = snap?.datasets.get('kimchi-premium')?.document as { korea_index?: { exchanges_used: string[] } } | undefined;
  return doc?.korea_index?.exchanges_used ?? null;
}

const quiet: ProgressSink = { start() {}, finish() {}, note() {}, close() {} };

const describeRun = (reports: StepReport[]): string => {
  const bad = reports.filter((r) => r.status !== 'ok');
  const ok = reports.length - bad.length;
  return `${ok}/${reports.length} steps ok${bad.length ? `; not ok: ${bad.map((r) => `${r.name} ${r.status} (${r.detail ?? ''})`).join('; ')}` : ''}`;
};

export async function benchKorea(): Promise<RowInput[]> {
  const rows: RowInput[] = [];
  const target = (limit: number) => ({ on: 'value' as const, op: '<=' as const, limit, source: 'issue 32' });
  console.log(`korea live benchmark on ${process.version}: pipeline in process against loopback upstreams (recorded payloads)`);
  console.log(
    'target: one live run with four exchanges and the archive ≤ 5 s wall and ≤ 15 upstream requests (the first-run macro backfill excluded); ' +
      'each exchange within its published limits\n',
  );
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
        `  ${wall.toFixed(3)} s wall (ingest steps ${ingest.toFixed(3)} s); requests: ${c.budgeted} budgeted, ${c.books} order books and wallets, ${c.backfill} backfill, ${c.total} total`,
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
        { figure: `${run.short}: budgeted upstream requests`, value: c.budgeted, unit: '', target: target(15) },
      );
      rows.push({ figure: `${run.short}: order book and wallet requests (apart from the budget)`, value: c.books, unit: '' });
      // Every exchange is asked less in a whole run (one a minute) than its limit allows in one second.
      for (const [exchange, limit] of Object.entries(EXCHANGE_LIMITS)) {
        const n = c.byUpstream[exchange as keyof typeof c.byUpstream];
        console.log(`  ${exchange}: ${n} requests this run; published limit ${limit.text}`);
        rows.push({
          figure: `${run.short}: ${exchange} requests (limit ${limit.text})`,
          value: n,
          unit: '',
          target: target(limit.perSecond),
        });
      }
      const kimchi = result.manifest ? await readKimchiIndex(settings.snapshotsDir) : null;
      if (kimchi) console.log(`  Korea index over ${kimchi.join(', ')}`);
      rows.push({
        figure: `${run.short}: exchanges in the Korea index`,
        value: kimchi?.length ?? null,
        unit: '',
        target: { on: 'value', op: '>=', limit: 4, source: 'issue 32' },
      });
    }
    rows.push(...(await benchExecutable(settings.snapshotsDir)));
    const rss = Math.round(process.resourceUsage().maxRSS / 1024);
    console.log(`\npeak RSS ${rss} MiB (this process: world, pipeline, DuckDB)`);
    rows.push({ figure: 'live runs: peak RSS (bench process)', value: rss, unit: 'MiB' });
    return rows;
  } finally {
    await world.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
