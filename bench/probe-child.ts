/**
 * The prober side of `npm run bench -- probe`, as the live pipeline runs it: a warehouse whose
 * x402_services lists every target, then the probe step's round (probes.ts: ordering, batches
 * into live_probes, the x402_probes view) with production's defaults but for loopback allowed
 * and the in-flight cap. RSS is sampled every second.
 *
 * usage: node --import tsx bench/probe-child.ts TARGETS_FILE CONCURRENCY
 * (TARGETS_FILE: one URL per line). Prints one JSON line with the round's figures.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { appendRows, createTableSql, openDatabase, queryJson } from '../lib/duckdb.ts';
import { RAW_TABLES } from '../sources/raw-tables.ts';
import { probeIndexedResources } from '../sources/live/analytics/probes.ts';

const [file, concurrencyArg] = process.argv.slice(2);
if (!file) throw new Error('usage: probe-child.ts TARGETS_FILE CONCURRENCY');
const urls = readFileSync(file, 'utf8').split('\n').filter(Boolean);
// a warehouse file, as production keeps it (an in-memory database would hold every probe row in RSS)
const dir = mkdtempSync(join(tmpdir(), 'bench-probe-warehouse-'));
const db = await openDatabase(join(dir, 'analytics.duckdb'), { threads: '1' });
const c = db.connection;
await c.run(createTableSql(RAW_TABLES.x402_services));
const now = new Date();
await appendRows(
  c,
  RAW_TABLES.x402_services,
  urls.map((u, i) => ['base', '0x3333333333333333333333333333333333333333', u, `bench ${i}`, null, null, 0.001, now, 'live']),
);

const samples: { t: number; rss: number; done: number }[] = [];
let done = 0;
const t0 = performance.now();
const sampler = setInterval(() => samples.push({ t: (performance.now() - t0) / 1000, rss: process.memoryUsage().rss, done }), 1000);
const result = await probeIndexedResources(c, now, {
  allowLoopback: true,
  concurrency: Number(concurrencyArg ?? 64),
  deadlineMs: 15 * 60_000,
  onProgress: (n: number) => {
    done = n;
  },
});
clearInterval(sampler);
const [outcomes] = await queryJson(
  c,
  `SELECT count(*)::BIGINT AS n, count(*) FILTER (WHERE outcome = 'offer')::BIGINT AS offers FROM x402_probes`,
);
// RSS saws up and down with each garbage collection: compare medians of the one-second samples,
// the second tenth of the targets (after warm-up) against the last tenth
const median = (xs: number[]): number | null => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? null : (s[Math.floor(s.length / 2)] as number);
};
const between = (lo: number, hi: number) =>
  samples.filter((s) => s.done >= urls.length * lo && s.done < urls.length * hi).map((s) => s.rss);
const warmRss = median(between(0.1, 0.2));
const endRss = median(between(0.9, 1.01));
process.stdout.write(
  `${JSON.stringify({
    targets: urls.length,
    rows: Number(outcomes?.n ?? 0),
    offers: Number(outcomes?.offers ?? 0),
    seconds: result.round?.seconds ?? null,
    maxInFlight: result.round?.maxInFlight ?? null,
    deferred: result.round?.deferred ?? null,
    rssWarmMb: warmRss === null ? null : warmRss / 2 ** 20,
    rssEndMb: endRss === null ? null : endRss / 2 ** 20,
    rssMaxMb: Math.max(...samples.map((s) => s.rss)) / 2 ** 20,
    maxRssMb: process.resourceUsage().maxRSS / 1024,
    // RSS at each tenth of the targets, to tell a leak (growing all along) from caches filling once
    rssByTenth: Array.from({ length: 10 }, (_, i) => {
      const s = samples.find((x) => x.done >= (urls.length * (i + 1)) / 10) ?? samples.at(-1);
      return s ? Math.round(s.rss / 2 ** 20) : null;
    }),
    heapUsedMb: Math.round(process.memoryUsage().heapUsed / 2 ** 20),
  })}\n`,
);
db.close();
rmSync(dir, { recursive: true, force: true });
process.exit(0);
