/**
 * The kimchi premium archive at the size issue 32 names: 250 symbols on 4 Korean exchanges, two
 * years of hours, 7 days of minutes and two years of days, generated in DuckDB into the archive's
 * warehouse tables (pipelines/korea/archive.ts) and published as the pipeline publishes them
 * (partitioned by symbol, PREMIUM_ARCHIVE's buckets and row groups). Then the paid endpoints'
 * handlers (proxy/data/korea.ts, as the app calls them after payment), 2 at a time:
 *   - history: 90 days of hours for one symbol (8,640 points: 5 pages of 2,000, each a request,
 *     cursor to cursor), p99 per request (target <= 30 ms);
 *   - stats: the 365-day window of one symbol, p99 (target <= 30 ms);
 * and the archive's size: Parquet bytes and the warehouse's DuckDB file per year of hours and days,
 * plus the 7 days of minutes it always holds (target <= 2 GB a year).
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PREMIUM_ARCHIVE } from '../catalog/korea.ts';
import { findEndpoint } from '../catalog/index.ts';
import { openDatabase } from '../lib/duckdb.ts';
import { ARCHIVE_WRITE_OPTIONS, archiveRowsSql, ensureArchive } from '../pipelines/korea/archive.ts';
import { closeSnapshotDuck } from '../proxy/data/duck.ts';
import { koreaHandlers } from '../proxy/data/korea.ts';
import type { DataRequest } from '../proxy/data/types.ts';
import { loadLatest } from '../snapshots/reader.ts';
import { SnapshotWriter } from '../snapshots/writer.ts';
import type { RowInput } from './table.ts';
import { percentile, timedCalls } from './timing.ts';

const SYMBOLS = 250;
const EXCHANGES = ['upbit', 'bithumb', 'coinone', 'korbit'];
const NOW = '2026-11-20 09:00:00';
const YEARS = 2;
const CALLS = 400;

export async function benchPremiumArchive(): Promise<RowInput[]> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-premium-archive-'));
  try {
    const db = await openDatabase(join(dir, 'korea.duckdb'));
    const c = db.connection;
    let t0 = performance.now();
    await ensureArchive(c);
    // a premium per (symbol, exchange) that wanders slowly (a daily and a weekly wave) with noise per point
    const pairs = `(SELECT 'T' || lpad(s::VARCHAR, 3, '0') AS symbol, ${JSON.stringify(EXCHANGES).replaceAll('"', "'")}[ei + 1] AS exchange, s, ei
                      FROM range(${SYMBOLS}) r(s), range(${EXCHANGES.length}) x(ei))`;
    const wave = (k: string) =>
      `round(1.5 + (s % 7) * 0.3 + ei * 0.05 + sin(${k} / 24.0 + s) * 0.8 + sin(${k} / 168.0) * 0.5 + ((hash(s, ei, ${k}) % 1000) / 1000.0 - 0.5) * 0.2, 4)`;
    const fill = async (interval: '1m' | '1h' | '1d', points: number, step: string, perHour: number, samples: number) => {
      await c.run(`INSERT INTO premium_${interval}
        SELECT TIMESTAMP '${NOW}' - (${points} - k) * INTERVAL ${step} AS t, exchange, symbol,
               ${wave(`k * ${perHour}`)} AS p, ${wave(`k * ${perHour}`)} - 0.1, ${wave(`k * ${perHour}`)} + 0.1, ${wave(`k * ${perHour}`)}, ${samples}, 'bench'
          FROM range(${points}) r(k), ${pairs}
         ORDER BY t, exchange, symbol`);
    };
    const hours = YEARS * 365 * 24;
    await fill('1h', hours, '1 HOUR', 1, 60);
    await fill('1m', 7 * 24 * 60, '1 MINUTE', 1 / 60, 1);
    await fill('1d', YEARS * 365, '1 DAY', 24, 1440);
    await c.run('CHECKPOINT');
    const generated = (performance.now() - t0) / 1000;
    const warehouseBytes = statSync(join(dir, 'korea.duckdb')).size;

    t0 = performance.now();
    const writer = await SnapshotWriter.begin({ root: join(dir, 'snapshots'), service: 'bench', codeVersion: 'bench' });
    const bytes: Record<string, number> = {};
    for (const interval of PREMIUM_ARCHIVE.intervals) {
      const entry = await writer.writeTable(
        c,
        `kimchi-premium-${interval}`,
        archiveRowsSql(interval),
        { source: 'demo', asOf: new Date(`${NOW.replace(' ', 'T')}Z`), license: 'proprietary', description: 'bench' },
        ARCHIVE_WRITE_OPTIONS,
      );
      bytes[interval] = entry.bytes;
    }
    await writer.publish({ nextExpectedUpdate: new Date() });
    const published = (performance.now() - t0) / 1000;
    db.close();
    const rows = { '1h': hours * SYMBOLS * EXCHANGES.length, '1m': 7 * 1440 * SYMBOLS * EXCHANGES.length };
    console.log(
      `\npremium archive: ${SYMBOLS} symbols x ${EXCHANGES.length} exchanges, ${YEARS} years of hours (${rows['1h'].toLocaleString('en-US')} rows), 7 days of minutes (${rows['1m'].toLocaleString('en-US')}); generated in ${generated.toFixed(0)} s, published in ${published.toFixed(0)} s (neither timed)`,
    );

    const snapshot = (await loadLatest(join(dir, 'snapshots'), 'bench'))!;
    const now = new Date(`${NOW.replace(' ', 'T')}Z`);
    const history = findEndpoint('korea', 'kimchi-premium-history')!;
    const stats = findEndpoint('korea', 'kimchi-premium-stats')!;
    const symbol = (i: number) => `T${String((i * 37) % SYMBOLS).padStart(3, '0')}`;
    const call = async (req: Omit<DataRequest, 'params' | 'body' | 'snapshot' | 'now'>) => {
      const res = await koreaHandlers[req.endpoint.id]!.handle({ ...req, params: {}, body: undefined, snapshot, now });
      if (res.status !== 200) throw new Error(`${req.endpoint.id} ${JSON.stringify(req.query)}: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body as Record<string, unknown>;
    };
    // history: 90 days of hours, page after page (the cursor of one page is the next request)
    const from = new Date(now.getTime() - 90 * 86_400_000).toISOString();
    const historyQuery = (i: number, cursor?: string) => ({
      symbol: symbol(i),
      interval: '1h',
      from,
      to: now.toISOString(),
      limit: PREMIUM_ARCHIVE.pageMax,
      ...(cursor ? { cursor } : {}),
    });
    const cursors: Array<{ i: number; cursor?: string }> = [];
    let points = 0;
    for (let i = 0; i < 3; i++) await call({ endpoint: history, query: historyQuery(i) }); // warm-up
    for (let i = 0; cursors.length < CALLS; i++) {
      let cursor: string | undefined;
      do {
        cursors.push({ i, ...(cursor ? { cursor } : {}) });
        const body = await call({ endpoint: history, query: historyQuery(i, cursor) });
        if (i === 0) points += Number(body.count);
        cursor = (body.next_cursor as string | null) ?? undefined;
      } while (cursor);
    }
    const historyTimes = await timedCalls(
      cursors.map(
        ({ i, cursor }) =>
          () =>
            call({ endpoint: history, query: historyQuery(i, cursor) }).then(() => {}),
      ),
    );
    const statsTimes = await timedCalls(
      Array.from({ length: CALLS }, (_, i) => () => call({ endpoint: stats, query: { symbol: symbol(i), window: '365d' } }).then(() => {})),
    );
    await closeSnapshotDuck();
    const hp99 = percentile(historyTimes, 99);
    const sp99 = percentile(statsTimes, 99);
    const perYear = (bytes['1h']! + bytes['1d']!) / YEARS + bytes['1m']!;
    const warehousePerYear = warehouseBytes / YEARS; // the 7 days of minutes counted in full for each year: an upper bound
    console.log(
      `  history, 90 days of hours (${points} points, ${Math.ceil(points / PREMIUM_ARCHIVE.pageMax)} pages): p50 ${percentile(historyTimes, 50).toFixed(2)} ms, p99 ${hp99.toFixed(2)} ms per page request (target <= 30)`,
    );
    console.log(`  stats, 365-day window: p50 ${percentile(statsTimes, 50).toFixed(2)} ms, p99 ${sp99.toFixed(2)} ms (target <= 30)`);
    console.log(
      `  size: Parquet ${(bytes['1h']! / 2 ** 20).toFixed(0)} MiB of hours, ${(bytes['1d']! / 2 ** 20).toFixed(1)} MiB of days (${YEARS} years), ${(bytes['1m']! / 2 ** 20).toFixed(0)} MiB of minutes (7 days): ${(perYear / 2 ** 20).toFixed(0)} MiB a year; warehouse ${(warehouseBytes / 2 ** 20).toFixed(0)} MiB for all of it`,
    );
    const at = `${SYMBOLS} symbols x ${EXCHANGES.length} exchanges, 2 at a time`;
    const target = (limit: number) => ({ on: 'value' as const, op: '<=' as const, limit, source: 'issue 32' });
    return [
      {
        figure: `premium history, 90 days of hours for one symbol: p99 per page request (${at})`,
        value: hp99,
        unit: 'ms',
        target: target(30),
      },
      { figure: `premium stats, 365-day window: p99 (${at})`, value: sp99, unit: 'ms', target: target(30) },
      {
        figure: `premium archive published per year (Parquet: a year of hours and days, 7 days of minutes; ${SYMBOLS} symbols x ${EXCHANGES.length} exchanges)`,
        value: perYear / 2 ** 20,
        unit: 'MiB',
        target: { on: 'value', op: '<=', limit: 2048, source: 'issue 32' },
      },
      {
        figure: `premium archive in the warehouse per year (DuckDB; same archive)`,
        value: warehousePerYear / 2 ** 20,
        unit: 'MiB',
        target: target(2048),
      },
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
