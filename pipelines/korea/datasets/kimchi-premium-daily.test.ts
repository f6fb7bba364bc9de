/**
 * The free daily preview (kimchi-premium-daily): its SQL on a small archive made here (which days
 * are old enough, the 365 kept, the exchanges each day names, the 20 largest symbols), and the
 * table the shared demo run published against the warehouse that run kept (read only).
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findDataset } from '../../../catalog/datasets.ts';
import { dailyPreviewThrough, KIMCHI_PREMIUM_DAILY, KOREAN_EXCHANGES } from '../../../catalog/korea.ts';
import { type Database, openDatabase, queryJson, sqlString } from '../../../lib/duckdb.ts';
import { loadLatest, type LoadedSnapshot } from '../../../snapshots/reader.ts';
import { ensureArchive } from '../archive.ts';
import { ensureRawTables } from '../sql.ts';
import { DEMO_NOW } from '../../testing/demo-snapshots.ts';
import { sharedDemo } from '../../testing/shared-demo.ts';
import { dailyPreviewSql } from './kimchi-premium-daily.ts';

interface PreviewRow {
  symbol: string;
  rank: number | null;
  day: string;
  premium_pct: number;
  samples: number;
  exchanges: string[];
}

const DAY_MS = 86_400_000;
const dayText = (ms: number) => new Date(ms).toISOString().slice(0, 10);

async function preview(db: Database, minute: string): Promise<PreviewRow[]> {
  return (await queryJson(
    db.connection,
    `SELECT symbol, rank, strftime(day, '%Y-%m-%d') AS day, premium_pct, samples, exchanges FROM (${dailyPreviewSql(new Date(minute))})`,
  )) as unknown as PreviewRow[];
}

describe('the daily preview SQL', () => {
  let db: Database;
  /** One archived day of a series: t is the day, the premium its day number (so a row says which day it is). */
  const archive = async (exchange: string, symbol: string, day: string) => {
    await db.connection.run(
      `INSERT INTO premium_1d VALUES (TIMESTAMP '${day} 00:00:00', ${sqlString(exchange)}, ${sqlString(symbol)}, 1.5, 1.0, 2.0, 1.7, 1440, 'demo')`,
    );
  };

  beforeAll(async () => {
    db = await openDatabase(':memory:', { threads: '1' });
    await ensureRawTables(db.connection);
    await ensureArchive(db.connection);
  });
  afterAll(() => db.close());

  it('publishes a closed day once it closed at least 24 hours before the run, and the last 365 at most', async () => {
    const last = Date.parse('2026-11-20T00:00:00Z');
    for (let d = 400; d >= 0; d--) await archive('korea', 'ALL', dayText(last - d * DAY_MS));
    for (const [minute, through] of [
      ['2026-11-20T09:00:00Z', '2026-11-18'],
      ['2026-11-20T00:00:00Z', '2026-11-18'], // 2026-11-18 closed at 2026-11-19 00:00, 24 hours before
      ['2026-11-19T23:59:00Z', '2026-11-17'],
    ] as const) {
      expect(dailyPreviewThrough(minute)).toBe(through);
      const days = (await preview(db, minute)).map((r) => r.day);
      expect(days.at(-1), minute).toBe(through);
      expect(days).toHaveLength(KIMCHI_PREMIUM_DAILY.keepDays);
      expect(days[0]).toBe(dayText(Date.parse(`${through}T00:00:00Z`) - (KIMCHI_PREMIUM_DAILY.keepDays - 1) * DAY_MS));
      expect(days).toEqual([...days].sort());
    }
  });

  it("names each day's exchanges: of the symbol, or for the market-wide index of any symbol but the stablecoins", async () => {
    // 2026-11-17: one exchange; 2026-11-18: two, and Korbit with a USDT point only
    await archive('upbit', 'BTC', '2026-11-17');
    for (const e of ['bithumb', 'upbit']) await archive(e, 'BTC', '2026-11-18');
    await archive('korbit', 'USDT', '2026-11-18');
    const rows = await preview(db, '2026-11-20T09:00:00Z');
    const all = (day: string) => rows.find((r) => r.symbol === 'ALL' && r.day === day)!;
    expect(all('2026-11-17').exchanges).toEqual(['upbit']);
    expect(all('2026-11-18').exchanges).toEqual(['upbit', 'bithumb']); // Upbit first, USDT left out
    expect(all('2026-11-16').exchanges).toEqual([]);
    expect(all('2026-11-18').rank).toBeNull();
  });

  it("takes the 20 largest symbols by this run's Korean 24-hour KRW volume that have a day, stablecoins out", async () => {
    const minute = '2026-11-20T09:00:00';
    await db.connection.run(`INSERT INTO fx_rates VALUES ('USDKRW', 1400, 'demo', TIMESTAMP '${minute}', 'demo')`);
    const symbols = Array.from({ length: 24 }, (_, i) => `S${String(i + 1).padStart(2, '0')}`);
    for (const [i, symbol] of [...symbols, 'USDT', 'NOARCHIVE'].entries()) {
      // S01 the largest; USDT and NOARCHIVE larger than all of them
      const volume = symbol.startsWith('S') ? 1e12 - i * 1e9 : 5e12;
      await db.connection.run(
        `INSERT INTO kr_tickers VALUES ('upbit', ${sqlString(symbol)}, 141400, NULL, NULL, NULL, 0, NULL, ${volume}, TIMESTAMP '${minute}', TIMESTAMP '${minute}', 'demo')`,
      );
      await db.connection.run(
        `INSERT INTO global_prices VALUES (${sqlString(symbol)}, 100, 1e9, 'binance', TIMESTAMP '${minute}', 'demo')`,
      );
      if (symbol !== 'NOARCHIVE') {
        await archive('korea', symbol, '2026-11-18');
        await archive('upbit', symbol, '2026-11-18');
      }
    }
    const rows = await preview(db, `${minute}Z`);
    const ranked = [...new Map(rows.filter((r) => r.rank !== null).map((r) => [r.symbol, r.rank])).entries()];
    expect(ranked).toEqual(symbols.slice(0, KIMCHI_PREMIUM_DAILY.symbols).map((s, i) => [s, i + 1]));
    expect(rows.find((r) => r.symbol === 'S01')).toMatchObject({ day: '2026-11-18', exchanges: ['upbit'], samples: 1440 });
    // 'ALL' first, then by rank, each series by day
    expect(rows[0]!.symbol).toBe('ALL');
    const order = rows.map((r) => `${String(r.rank ?? 0).padStart(2, '0')}|${r.day}`);
    expect(order).toEqual([...order].sort());
  });
});

describe('kimchi-premium-daily in the shared demo snapshot', () => {
  let snapshot: LoadedSnapshot;
  let db: Database;
  let rows: Array<PreviewRow & { min_pct: number; max_pct: number; source: string }>;

  beforeAll(async () => {
    const shared = await sharedDemo();
    snapshot = (await loadLatest(shared.snapshotsDir, 'korea'))!;
    db = await openDatabase(':memory:', { threads: '1' });
    // the run's warehouse, read only (the shared publish is never written by a test)
    await db.connection.run(`ATTACH ${sqlString(join(shared.warehouseDir, 'korea.duckdb'))} AS wh (READ_ONLY)`);
    const file = snapshot.datasets.get('kimchi-premium-daily')!.path;
    rows = (await queryJson(
      db.connection,
      `SELECT symbol, rank, strftime(day, '%Y-%m-%d') AS day, premium_pct, min_pct, max_pct, samples, exchanges, source FROM read_parquet(${sqlString(file)})`,
    )) as unknown as typeof rows;
  }, 300_000);
  afterAll(() => db?.close());

  it('is published as a CC0 table of the run, one day delayed', () => {
    const data = snapshot.datasets.get('kimchi-premium-daily')!;
    expect(data.entry).toMatchObject({ license: 'CC0-1.0', source: 'demo', kind: 'table', rows: rows.length });
    expect(findDataset('korea', 'kimchi-premium-daily')).toMatchObject({ license: 'CC0-1.0', publicDownload: true });
    expect(Date.parse(data.entry.as_of)).toBe(Date.parse(DEMO_NOW));
    const through = dailyPreviewThrough(DEMO_NOW);
    expect(through).toBe('2026-11-18');
    // the demo world backfills 90 days: every closed one up to the day before yesterday, for every series
    const series = new Set(rows.map((r) => r.symbol));
    expect(series.size).toBe(1 + KIMCHI_PREMIUM_DAILY.symbols);
    for (const s of series) {
      const days = rows.filter((r) => r.symbol === s).map((r) => r.day);
      expect(days.at(-1), s).toBe(through);
      expect(days).toHaveLength(89);
    }
    expect(rows.every((r) => r.source === 'demo')).toBe(true);
  });

  it("gives the archive's daily index rows as they are, each day with the exchanges the archive has a point of", async () => {
    const [check] = await queryJson(
      db.connection,
      `WITH p AS (SELECT * FROM read_parquet(${sqlString(snapshot.datasets.get('kimchi-premium-daily')!.path)})),
            per AS (SELECT symbol, t::DATE AS day, list(DISTINCT exchange ORDER BY exchange) AS exchanges
                      FROM wh.premium_1d WHERE exchange IN (${KOREAN_EXCHANGES.map(sqlString).join(', ')}) AND symbol NOT IN ('USDT', 'USDC')
                     GROUP BY ALL),
            market AS (SELECT day, list(DISTINCT e ORDER BY e) AS exchanges FROM per, unnest(per.exchanges) u(e) GROUP BY day)
       SELECT count(*)::INTEGER AS n,
              count(*) FILTER (WHERE a.premium_pct IS DISTINCT FROM p.premium_pct OR a.min_pct IS DISTINCT FROM p.min_pct
                                  OR a.max_pct IS DISTINCT FROM p.max_pct OR a.samples IS DISTINCT FROM p.samples)::INTEGER AS other_figures,
              count(*) FILTER (WHERE list_sort(p.exchanges) IS DISTINCT FROM
                                     CASE WHEN p.symbol = 'ALL' THEN m.exchanges ELSE per.exchanges END)::INTEGER AS other_exchanges,
              count(*) FILTER (WHERE len(p.exchanges) = 0)::INTEGER AS none_named
         FROM p
         JOIN wh.premium_1d a ON a.exchange = 'korea' AND a.symbol = p.symbol AND a.t::DATE = p.day
         LEFT JOIN per ON per.symbol = p.symbol AND per.day = p.day
         LEFT JOIN market m ON m.day = p.day`,
    );
    expect(check).toEqual({ n: rows.length, other_figures: 0, other_exchanges: 0, none_named: 0 });
    // Upbit first in every list
    const rank = (e: string) => KOREAN_EXCHANGES.indexOf(e as (typeof KOREAN_EXCHANGES)[number]);
    for (const r of rows) expect(r.exchanges.map(rank)).toEqual([...r.exchanges.map(rank)].sort((a, b) => a - b));
  });

  it("ranks the 20 symbols by the run's Korean 24-hour KRW volume of the exchanges in their index, stablecoins out", async () => {
    const kimchi = snapshot.datasets.get('kimchi-premium')!.document as {
      by_symbol: Record<string, { index: { exchanges: Array<{ exchange: string }> } | null }>;
    };
    const prices = await queryJson(
      db.connection,
      `SELECT symbol, exchange, volume_24h_krw FROM read_parquet(${sqlString(snapshot.datasets.get('kr-prices')!.path)})`,
    );
    const volume = new Map<string, number>();
    for (const [symbol, entry] of Object.entries(kimchi.by_symbol)) {
      if (!entry.index || symbol === 'USDT' || symbol === 'USDC') continue;
      const used = new Set(entry.index.exchanges.map((e) => e.exchange));
      const v = prices.filter((p) => p.symbol === symbol && used.has(String(p.exchange))).reduce((a, p) => a + Number(p.volume_24h_krw), 0);
      volume.set(symbol, v);
    }
    const expected = [...volume.entries()]
      .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
      .slice(0, KIMCHI_PREMIUM_DAILY.symbols)
      .map(([s]) => s);
    const ranked = [...new Map(rows.filter((r) => r.rank !== null).map((r) => [r.rank!, r.symbol])).entries()]
      .sort((a, b) => a[0] - b[0])
      .map(([, s]) => s);
    expect(ranked).toEqual(expected);
  });
});
