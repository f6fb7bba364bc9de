import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadSettings } from '../../lib/config.ts';
import { openDatabase, queryJson, type Database } from '../../lib/duckdb.ts';
import { healthDocument } from '../../proxy/health.ts';
import { SnapshotReader } from '../../snapshots/reader.ts';
import {
  KOREA_FIXTURE_NOW,
  koreaFixture,
  startKoreaUpstreams,
  type KoreaUpstreamWorld,
} from '../../sources/live/testing/korea-upstreams.ts';
import { parseArgs, runCli } from '../cli.ts';
import { LineProgress } from '../progress.ts';
import { checkKoreaInputs, deviation } from './plausibility.ts';

const roots: string[] = [];

/** The premium archive's warehouse tables, every row (the run has closed the warehouse). */
async function archiveTables(warehouseDir: string): Promise<Record<string, Array<Record<string, unknown>>>> {
  const db = await openDatabase(join(warehouseDir, 'korea.duckdb'), { access_mode: 'READ_ONLY' });
  try {
    const out: Record<string, Array<Record<string, unknown>>> = {};
    for (const t of ['premium_1m', 'premium_1h', 'premium_1d']) {
      out[t] = await queryJson(db.connection, `SELECT * FROM ${t} ORDER BY ALL`);
    }
    return out;
  } finally {
    db.close();
  }
}
afterAll(() => {
  for (const r of roots) rmSync(r, { recursive: true, force: true });
});

describe('fault 4: an absurd FX rate and an absurd Upbit price between two live runs', () => {
  let world: KoreaUpstreamWorld;
  beforeEach(async () => {
    world = await startKoreaUpstreams();
  });
  afterEach(async () => {
    await world.close();
  });

  it('refuses them: the datasets they feed keep the last good version, the run says why and exits 1, /health names them', async () => {
    const root = mkdtempSync(join(tmpdir(), 'korea-plausibility-'));
    roots.push(root);
    const settings = loadSettings({
      ...world.env,
      SITE_BUILD: 'off',
      SNAPSHOTS_DIR: join(root, 'snapshots'),
      WAREHOUSE_DIR: join(root, 'warehouse'),
    });
    const run = async (now: Date) => {
      const out: string[] = [];
      const progress: string[] = [];
      const r = await runCli(parseArgs(['korea', '--source', 'live', '--now', now.toISOString()]), settings, {
        progress: new LineProgress((l) => progress.push(l)),
        out: (t) => out.push(t),
      });
      return { ...r, out: out.join(''), progress };
    };
    type Kimchi = { fx_rate: number; by_symbol: Record<string, { exchanges: Array<{ exchange: string; premium_pct: number }> }> };
    const premiums = (doc: Kimchi) => Object.values(doc.by_symbol).flatMap((s) => s.exchanges.map((e) => e.premium_pct));

    const first = await run(KOREA_FIXTURE_NOW);
    expect(first.exitCode).toBe(0);
    const good = first.results[0]!.manifest!;
    const archiveBefore = await archiveTables(settings.warehouseDir);
    expect(archiveBefore.premium_1m!.length).toBeGreaterThan(0);

    // one minute later Dunamu says 1 KRW per USD and Upbit quotes BTC a thousand times too high
    world.reset();
    const [dunamu] = koreaFixture<Array<Record<string, unknown>>>('dunamu-forex-recent-krwusd.json');
    world.fault('fx', '/v1/forex/recent', { json: [{ ...dunamu, basePrice: 1 }] });
    const tickers = koreaFixture<Array<Record<string, unknown>>>('upbit-ticker-all-krw.json');
    world.fault('upbit', '/v1/ticker/all', {
      json: tickers.map((t) => (t.market === 'KRW-BTC' ? { ...t, trade_price: Number(t.trade_price) * 1000 } : t)),
      headers: { 'remaining-req': 'group=ticker; min=1800; sec=9' },
    });
    const later = new Date(KOREA_FIXTURE_NOW.getTime() + 60_000);
    const second = await run(later);

    // A refused input fails the datasets it feeds like any failed step: published, exit 1.
    expect(second.exitCode).toBe(1);
    const manifest = second.results[0]!.manifest!;
    expect(manifest).not.toBeNull();
    const entry = (name: string) => manifest.datasets.find((d) => d.name === name)!;
    const fxReason =
      'FX 1.0 KRW/USD (dunamu) is outside 500 to 5,000, 99.9 % below the last good 1,387.5 and 99.9 % below the other source 1,343.1 (FRED DEXKOUS 2026-07-24)';
    expect(entry('fx-rate').carried_over?.reason).toBe(`implausible input: ${fxReason}`);
    expect(entry('fx-rate').produced_in).toBe(good.version);
    expect(entry('kr-prices').carried_over?.reason).toMatch(
      /^implausible input: upbit BTC 91,200,000,000 KRW is 99,900\.0 % above the last good 91,200,000, 99,931\.8 % above the median of bithumb, coinone and korbit 91,171,000 and 100,558\.1 % above the global price at the official rate [\d,]+$/,
    );
    expect(entry('kimchi-premium').carried_over?.reason).toBe(`implausible input: ${fxReason}; also refused: upbit prices (BTC)`);
    for (const name of ['stablecoin-premium', 'arbitrage-scanner', 'market-movers']) {
      expect(entry(name).carried_over, name).toBeDefined();
    }
    // inputs that were plausible still feed fresh datasets
    for (const name of ['exchange-alerts', 'symbols', 'stats']) expect(entry(name).carried_over, name).toBeUndefined();

    // Issue 47: nothing refused reaches the archive. Its three datasets, the free daily preview and
    // the order books keep their last good files; the warehouse archive records nothing of this run
    // (its minute is missing, as when an exchange is down: the fixtures' prices carry the same
    // minute, so a write would have replaced the good points with a premium of millions of percent).
    const unchanged = ['kimchi-premium-1m', 'kimchi-premium-1h', 'kimchi-premium-1d', 'kimchi-premium-daily', 'order-books'];
    for (const name of unchanged) {
      const { carried_over: carried, ...files } = entry(name);
      expect(carried?.reason, name).toMatch(/^implausible input: FX 1\.0 KRW\/USD \(dunamu\) is outside 500 to 5,000/);
      expect(files, name).toEqual(good.datasets.find((d) => d.name === name));
    }
    expect(await archiveTables(settings.warehouseDir)).toEqual(archiveBefore);

    // the run table says why, in words, on the dataset's line
    expect(second.out).toMatch(/^korea\/fx-rate .* carried-over: kept \S+: implausible input: FX 1\.0 KRW\/USD \(dunamu\) is outside/m);
    for (const name of unchanged) {
      expect(second.out).toMatch(
        new RegExp(`^korea/${name} .* carried-over: kept ${good.version}: implausible input: FX 1\\.0 KRW/USD`, 'm'),
      );
    }
    expect(second.progress.join('\n')).toMatch(/refused price input: upbit BTC 91,200,000,000 KRW/);

    // no absurd premium is served: the kimchi premium is the last good one
    const reader = new SnapshotReader(settings.snapshotsDir, 'korea');
    await reader.refresh();
    const snap = reader.current()!;
    expect(snap.version).toBe(manifest.version);
    const kimchi = snap.datasets.get('kimchi-premium')!.document as Kimchi;
    expect(kimchi.fx_rate).toBe(1387.5);
    expect(Math.max(...premiums(kimchi).map(Math.abs))).toBeLessThan(100);
    expect((snap.datasets.get('fx-rate')!.document as { rate: number }).rate).toBe(1387.5);

    const health = healthDocument('korea', reader, settings, new Date(later.getTime() + 5_000));
    reader.close();
    expect(health.status).toBe('degraded');
    expect(health.degraded).toContainEqual(
      expect.objectContaining({ dataset: 'fx-rate', state: 'carried_over', reason: `implausible input: ${fxReason}` }),
    );
    expect(health.problems.join('\n')).toMatch(/kimchi-premium: last run failed \(implausible input: FX 1\.0 KRW\/USD/);

    // once the upstreams are sane again, everything is fresh and the run exits 0
    world.heal();
    world.reset();
    const third = await run(new Date(later.getTime() + 60_000));
    expect(third.exitCode).toBe(0);
    expect(third.results[0]!.manifest!.datasets.filter((d) => d.carried_over)).toEqual([]);

    // Korbit quotes every price a thousand times too high and Coinone is down: neither holds back a
    // dataset; both are left out of the Korea index with the reason, which rests on Upbit and Bithumb
    world.reset();
    const korbit = koreaFixture<{ data: Array<Record<string, unknown>> }>('korbit/tickers.json');
    world.fault('korbit', '/v2/tickers', {
      json: { ...korbit, data: korbit.data.map((t) => ({ ...t, close: String(Number(t.close) * 1000) })) },
    });
    world.fault('coinone', '/public/v2/ticker_new/KRW', { status: 503, text: 'Service Unavailable' });
    const fourth = await run(new Date(later.getTime() + 120_000));
    const fourthManifest = fourth.results[0]!.manifest!;
    expect(fourthManifest.datasets.filter((d) => d.carried_over).map((d) => d.name)).toEqual([]);
    const after = new SnapshotReader(settings.snapshotsDir, 'korea');
    await after.refresh();
    const index = after.current()!.datasets.get('kimchi-premium')!.document as {
      korea_index: { exchanges_used: string[]; left_out: Array<{ exchange: string; reason: string }> };
      by_symbol: Record<string, { exchanges: Array<{ exchange: string }> }>;
    };
    expect(index.korea_index.exchanges_used).toEqual(['upbit', 'bithumb']);
    expect(index.korea_index.left_out.map((l) => l.exchange)).toEqual(['coinone', 'korbit']);
    expect(index.korea_index.left_out[0]!.reason).toMatch(/^coinone: GET .*ticker_new\/KRW failed after 3 attempts: HTTP 503/);
    expect(index.korea_index.left_out[1]!.reason).toMatch(
      /^korbit: 7 of its 7 prices are implausible, so none is used \(korbit [A-Z]+ [\d,.]+ KRW is [\d,.]+ % above the last good/,
    );
    expect(index.by_symbol.BTC!.exchanges.map((e) => e.exchange)).toEqual(['upbit', 'bithumb']);
    expect(fourth.progress.join('\n')).toMatch(/set aside korbit prices: korbit: 7 of its 7 prices are implausible/);
    after.close();
  });
});

describe('checkKoreaInputs on hand-made raw tables', () => {
  let db: Database;
  beforeEach(async () => {
    db = await openDatabase(':memory:', { threads: '1' });
  });
  afterEach(() => db.close());
  const sql = (s: string) => db.connection.run(s);
  const run = (minute: number) => ({ now: new Date(Date.UTC(2026, 6, 30, 7, minute)), sourceKind: 'live' as const });
  const at = (minute: number) => `TIMESTAMP '2026-07-30 07:${String(minute).padStart(2, '0')}:00'`;

  async function market(minute: number, prices: { upbit: Record<string, number>; bithumb: Record<string, number> }, fx: number) {
    for (const t of ['kr_tickers', 'fx_rates', 'global_prices', 'macro_daily']) await sql(`DROP TABLE IF EXISTS ${t}`);
    const { ensureRawTables } = await import('./sql.ts');
    await ensureRawTables(db.connection);
    for (const [exchange, bySymbol] of Object.entries(prices)) {
      for (const [symbol, price] of Object.entries(bySymbol)) {
        await sql(
          `INSERT INTO kr_tickers (exchange, symbol, price_krw, as_of, source) VALUES ('${exchange}', '${symbol}', ${price}, ${at(minute)}, 'live')`,
        );
      }
    }
    await sql(`INSERT INTO fx_rates VALUES ('USDKRW', ${fx}, 'dunamu', ${at(minute)}, 'live')`);
    await sql(`INSERT INTO global_prices VALUES ('BTC', 65300, 0, 'binance', ${at(minute)}, 'live')`);
  }

  it('accepts a move that another reference confirms, refuses one that none does', async () => {
    await market(0, { upbit: { BTC: 91_000_000, DOGE: 300 }, bithumb: { BTC: 91_100_000, DOGE: 301 } }, 1390);
    expect(await checkKoreaInputs(db.connection, run(0))).toEqual([]);
    // DOGE quadruples on both exchanges: the last good disagrees, the other exchange agrees: published
    await market(1, { upbit: { BTC: 91_000_000, DOGE: 1200 }, bithumb: { BTC: 91_100_000, DOGE: 1190 } }, 1391);
    expect(await checkKoreaInputs(db.connection, run(1))).toEqual([]);
    // BTC a thousandth on Bithumb only: the last good, Upbit and the global price disagree
    await market(2, { upbit: { BTC: 91_000_000, DOGE: 1200 }, bithumb: { BTC: 91_100, DOGE: 1190 } }, 1391);
    const refusals = await checkKoreaInputs(db.connection, run(2));
    expect(refusals.map((r) => [r.input, r.subject, r.short])).toEqual([['krPrices', 'bithumb', 'bithumb prices (BTC)']]);
    expect(refusals[0]!.reason).toMatch(
      /^bithumb BTC 91,100 KRW is 99\.9 % below the last good 91,100,000, 99\.9 % below upbit 91,000,000/,
    );
    // the refused price did not become the last good one
    const [kept] = await queryJson(db.connection, `SELECT value FROM korea_input_last_good WHERE key = 'bithumb:BTC'`);
    expect(kept!.value).toBe(91_100_000);
  });

  it('refuses an FX rate outside its range even without any reference, and a stablecoin far from the official rate', async () => {
    await market(0, { upbit: { USDT: 1400 }, bithumb: { USDT: 1401 } }, 13_900);
    const refusals = await checkKoreaInputs(db.connection, run(0));
    expect(refusals.map((r) => r.reason)).toEqual(['FX 13,900 KRW/USD (dunamu) is outside 500 to 5,000']);
    await market(1, { upbit: { USDT: 1400 }, bithumb: { USDT: 1401 } }, 1390);
    expect(await checkKoreaInputs(db.connection, run(1))).toEqual([]);
    // USDT at twice the official rate on Upbit: the last good, Bithumb and the official rate disagree
    await market(2, { upbit: { USDT: 2800 }, bithumb: { USDT: 1401 } }, 1390);
    expect((await checkKoreaInputs(db.connection, run(2))).map((r) => r.reason)).toEqual([
      'upbit USDT 2,800 KRW is 100.0 % above the last good 1,400, 99.9 % above bithumb 1,401 and 101.4 % above the official rate 1,390',
    ]);
  });

  it('refuses a macro observation that jumps beyond its daily bound, until the history is mended', async () => {
    await market(0, { upbit: { BTC: 91_000_000 }, bithumb: { BTC: 91_100_000 } }, 1390);
    await sql(`INSERT INTO macro_daily VALUES ('DGS3', DATE '2026-07-27', 3.91, 'live'), ('DGS3', DATE '2026-07-28', 3.95, 'live')`);
    expect(await checkKoreaInputs(db.connection, run(0))).toEqual([]);
    await sql(`INSERT INTO macro_daily VALUES ('DGS3', DATE '2026-07-29', 39.5, 'live')`);
    const refusals = await checkKoreaInputs(db.connection, run(1));
    expect(refusals.map((r) => [r.subject, r.reason])).toEqual([['DGS3', 'DGS3 39.5 on 2026-07-29 is outside -2.0 to 25.0']]);
    expect((await checkKoreaInputs(db.connection, run(2))).map((r) => r.subject)).toEqual(['DGS3']);
    await sql(`UPDATE macro_daily SET value = 3.95 WHERE date = DATE '2026-07-29'`);
    expect(await checkKoreaInputs(db.connection, run(3))).toEqual([]);
  });
});

describe('deviation', () => {
  it('says how far a value is from its reference, in percent of the reference', () => {
    expect(deviation(1, 1387.5)).toBe('99.9 % below');
    expect(deviation(91_200_000_000, 91_200_000)).toBe('99,900.0 % above');
    expect(deviation(100, 100)).toBe('0.0 % above');
  });
});
