/**
 * The korea market formulas with worked numbers: the dataset SQL run in an in-memory DuckDB on
 * tiny hand-made raw tables. Worked example (docs/upstreams-korea.md, "Worked example"): Upbit BTC 91,200,000
 * KRW, official rate 1,387.50, Binance 65,300 USD, Upbit USDT 1,392 KRW.
 */
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RAW_TABLES } from '../../sources/raw-tables.ts';
import { appendRows, queryJson, type Row } from '../../lib/duckdb.ts';
import { arbitrageScannerDocument, SCANNER_ROWS_SQL } from './datasets/arbitrage-scanner.ts';
import { exchangeAlertsDocument } from './datasets/exchange-alerts.ts';
import { kimchiPremiumDocument } from './datasets/kimchi-premium.ts';
import { krwMacroStressDocument, regimeOf } from './datasets/krw-macro-stress.ts';
import { marketMoversDocument } from './datasets/market-movers.ts';
import { PREMIUM_ROWS_SQL } from './premiums.ts';
import { koreaWorld } from '../../sources/demo/korea/world.ts';
import { adviceProblem } from './macro-note.ts';
import { macroStressNote } from './rules-analyst.ts';
import { ensureRawTables, type KoreaRun } from './sql.ts';
import { stablecoinPremiumDocument } from './datasets/stablecoin-premium.ts';

const T0 = new Date('2026-11-20T09:00:00Z');
const run = (now: Date = T0): KoreaRun => ({ now, sourceKind: 'demo' });

let instance: DuckDBInstance;
let c: DuckDBConnection;

beforeEach(async () => {
  instance = await DuckDBInstance.create(':memory:');
  c = await instance.connect();
  await ensureRawTables(c);
});
afterEach(() => {
  c.closeSync();
  instance.closeSync();
});

type Table = keyof typeof RAW_TABLES;
const put = (table: Table, rows: Row[]) => appendRows(c, RAW_TABLES[table], rows);
/** Empties the raw tables, as the runner does before a new run (history tables stay). */
async function newRun(): Promise<void> {
  for (const table of ['kr_markets', 'kr_tickers', 'global_prices', 'fx_rates', 'candles_1m', 'market_flags', 'macro_daily'] as const) {
    await c.run(`DELETE FROM ${table}`);
  }
}

// exchange, symbol, price, 24h KRW volume, price time, last trade time
function ticker(exchange: string, symbol: string, price: number, volume = 1e9, at: Date = T0, lastTrade: Date | null = at): Row {
  return [exchange, symbol, price, price, price, price, 0, volume / price, volume, at, lastTrade, 'demo'];
}
function market(exchange: string, symbol: string, at: Date = T0): Row {
  return [exchange, symbol, `KRW-${symbol}`, `${symbol}-kr`, `${symbol}-en`, at, 'demo'];
}
const globalPrice = (symbol: string, usd: number, venue = 'binance'): Row => [symbol, usd, 1e6, venue, T0, 'demo'];
const fx = (rate: number): Row => ['USDKRW', rate, 'dunamu', T0, 'demo'];

/** The worked example, plus Bithumb at 91,171,000 / USDT 1,393. */
async function workedExample(): Promise<void> {
  await put('fx_rates', [fx(1387.5)]);
  await put('global_prices', [globalPrice('BTC', 65300)]);
  await put('kr_tickers', [
    ticker('upbit', 'BTC', 91_200_000, 300e9),
    ticker('upbit', 'USDT', 1392, 100e9),
    ticker('bithumb', 'BTC', 91_171_000, 60e9),
    ticker('bithumb', 'USDT', 1393, 40e9),
  ]);
  await put(
    'kr_markets',
    ['upbit', 'bithumb'].flatMap((e) => [market(e, 'BTC'), market(e, 'USDT')]),
  );
}

describe('premiums', () => {
  it('kimchi premium and USDT-basis premium of the worked example', async () => {
    await workedExample();
    const doc = await kimchiPremiumDocument(c, run());
    expect(doc).toMatchObject({ source: 'demo', as_of: '2026-11-20T09:00:00Z', fx_rate: 1387.5, fx_source: 'dunamu', symbols_count: 1 });
    const btc = (doc.by_symbol as Record<string, { exchanges: unknown[]; global_price_usd: number; global_source: string }>).BTC!;
    expect(btc).toMatchObject({ global_price_usd: 65300, global_source: 'binance' });
    expect(btc.exchanges).toEqual([
      // (91,200,000 / 1,387.5) / 65,300 - 1 = +0.6581 %;  (91,200,000 / 1,392) / 65,300 - 1 = +0.3327 %
      {
        exchange: 'upbit',
        price_krw: 91_200_000,
        premium_pct: 0.6581,
        last_trade_at: '2026-11-20T09:00:00Z',
        usdt_krw: 1392,
        usdt_premium_pct: 0.3327,
      },
      {
        exchange: 'bithumb',
        price_krw: 91_171_000,
        premium_pct: 0.6261,
        last_trade_at: '2026-11-20T09:00:00Z',
        usdt_krw: 1393,
        usdt_premium_pct: 0.2288,
      },
    ]);
    // USDT has no global reference: not a kimchi-premium symbol, said so for the 404
    expect(doc.no_global_price).toEqual(['USDT']);
    // the worked example has no Coinone or Korbit prices: named, never silently counted
    expect(doc.unavailable_exchanges).toEqual([
      { exchange: 'coinone', reason: 'no coinone data in this run' },
      { exchange: 'korbit', reason: 'no korbit data in this run' },
    ]);
  });

  it('stablecoin premium: 1,392 / 1,387.5 - 1 = +0.3243 %', async () => {
    await workedExample();
    const doc = await stablecoinPremiumDocument(c, run());
    expect(doc.premiums).toEqual([
      { stablecoin: 'USDT', exchange: 'upbit', price_krw: 1392, premium_pct: 0.3243, volume_24h_krw: 100e9 },
      { stablecoin: 'USDT', exchange: 'bithumb', price_krw: 1393, premium_pct: 0.3964, volume_24h_krw: 40e9 },
    ]);
    expect(doc.interpretation).toMatch(/^USDT trades at 1,392 KRW on Upbit, 0\.32 % above the official rate of 1,387\.5 KRW per USD\./);
  });

  it('(1 + kimchi premium) = (1 + USDT-basis premium) x (1 + stablecoin premium) to 1e-9', async () => {
    await put('fx_rates', [fx(1451.37)]);
    await put('global_prices', [globalPrice('BTC', 97_123.45), globalPrice('XRP', 2.3141), globalPrice('PEPE', 0.00001234, 'okx')]);
    await put('kr_tickers', [
      ticker('upbit', 'USDT', 1467.5),
      ticker('bithumb', 'USDT', 1439),
      ticker('upbit', 'BTC', 143_555_000),
      ticker('bithumb', 'BTC', 139_900_000),
      ticker('upbit', 'XRP', 3301),
      ticker('bithumb', 'XRP', 3338),
      ticker('upbit', 'PEPE', 0.01761),
    ]);
    const rows = await queryJson(c, `SELECT kimchi, kimchi_usdt, stablecoin FROM ${PREMIUM_ROWS_SQL}`);
    expect(rows).toHaveLength(5);
    for (const r of rows) {
      const [kp, ku, sp] = [Number(r.kimchi), Number(r.kimchi_usdt), Number(r.stablecoin)];
      expect(Math.abs(1 + kp - (1 + ku) * (1 + sp))).toBeLessThan(1e-9);
    }
  });

  it('one exchange down: kimchi premium publishes the other with the reason; the arbitrage scanner does not', async () => {
    await put('fx_rates', [fx(1387.5)]);
    await put('global_prices', [globalPrice('BTC', 65300)]);
    await put('kr_tickers', [ticker('upbit', 'BTC', 91_200_000), ticker('upbit', 'USDT', 1392)]);
    await c.run(`CREATE TABLE ingest_failures (upstream VARCHAR, error VARCHAR, "at" TIMESTAMP)`);
    await c.run(`INSERT INTO ingest_failures VALUES ('bithumb', 'HTTP 503 from /public/ticker/ALL_KRW', TIMESTAMP '2026-11-20 09:00:00')`);
    const doc = await kimchiPremiumDocument(c, run());
    const btc = (doc.by_symbol as Record<string, { exchanges: { exchange: string }[] }>).BTC!;
    expect(btc.exchanges.map((e) => e.exchange)).toEqual(['upbit']);
    expect(doc.unavailable_exchanges).toEqual([
      { exchange: 'bithumb', reason: 'bithumb: HTTP 503 from /public/ticker/ALL_KRW' },
      { exchange: 'coinone', reason: 'no coinone data in this run' },
      { exchange: 'korbit', reason: 'no korbit data in this run' },
    ]);
    await expect(arbitrageScannerDocument(c, run())).rejects.toThrow(
      /no bithumb prices.*\(bithumb: HTTP 503.*last good version stays live/,
    );
  });

  it('a price whose last trade is more than 60 minutes old is stale: no premium rests on it, the reason says so', async () => {
    await workedExample();
    // Bithumb's BTC price still shows, but its last trade was 3 hours before it; Upbit's does not say when it traded
    await c.run(`DELETE FROM kr_tickers WHERE symbol = 'BTC'`);
    await put('kr_tickers', [
      ticker('upbit', 'BTC', 91_200_000, 300e9, T0, null),
      ticker('bithumb', 'BTC', 91_171_000, 60e9, T0, new Date(T0.getTime() - 3 * 3_600_000)),
    ]);
    const doc = await kimchiPremiumDocument(c, run());
    const btc = (doc.by_symbol as Record<string, { exchanges: { exchange: string; last_trade_at: string | null }[] }>).BTC!;
    expect(btc.exchanges.map((e) => [e.exchange, e.last_trade_at])).toEqual([['upbit', null]]);
    expect(doc.stale).toEqual([
      {
        symbol: 'BTC',
        exchange: 'bithumb',
        reason:
          'the last bithumb trade (2026-11-20T06:00:00Z) is 3.0 hours before its price (2026-11-20T09:00:00Z); a premium uses a price traded within 60 minutes',
      },
    ]);
    expect(doc.input_window).toEqual({ prices_minutes: 10, fx_hours: 96, trade_minutes: 60 });
  });

  it('inputs missing: a clear error naming the upstream failure, so the last good version stays live', async () => {
    await put('kr_tickers', [ticker('upbit', 'BTC', 91_200_000)]);
    await c.run(`CREATE TABLE ingest_failures (upstream VARCHAR, error VARCHAR, "at" TIMESTAMP)`);
    // as the live source records them (sources/korea-upstreams.ts): Dunamu failed, and er-api after it
    await c.run(`INSERT INTO ingest_failures VALUES ('dunamu', 'dunamu: timeout after 10s', TIMESTAMP '2026-11-20 09:00:00'),
                                                     ('er-api', 'er-api: HTTP 503', TIMESTAMP '2026-11-20 09:00:00')`);
    await expect(kimchiPremiumDocument(c, run())).rejects.toThrow(
      'kimchi-premium: no USD/KRW rate (fx_rates has no USDKRW row) in this run (dunamu: timeout after 10s; er-api: HTTP 503); the last good version stays live',
    );
    await newRun();
    await expect(stablecoinPremiumDocument(c, run())).rejects.toThrow(/no Korean exchange prices/);
  });
});

describe('the Korea premium index', () => {
  // Four exchanges quote BTC; the index weights their prices by 24h KRW volume, the global side by venue volume.
  async function fourExchanges(): Promise<void> {
    await put('fx_rates', [fx(1400)]);
    await put('global_prices', [
      [...globalPrice('BTC', 65000, 'binance').slice(0, 2), 3e9, 'binance', T0, 'demo'],
      [...globalPrice('BTC', 65100, 'okx').slice(0, 2), 1e9, 'okx', T0, 'demo'],
      [...globalPrice('ETH', 3000, 'binance').slice(0, 2), 1e9, 'binance', T0, 'demo'],
      // 10 % away from Binance: a bad tick, left out of the global price
      [...globalPrice('ETH', 3300, 'okx').slice(0, 2), 1e9, 'okx', T0, 'demo'],
      [...globalPrice('USDC', 1, 'binance').slice(0, 2), 1e9, 'binance', T0, 'demo'],
    ]);
    await put('kr_tickers', [
      ticker('upbit', 'BTC', 92_000_000, 600e9),
      ticker('bithumb', 'BTC', 92_200_000, 300e9),
      ticker('coinone', 'BTC', 91_800_000, 60e9),
      ticker('korbit', 'BTC', 92_100_000, 40e9),
      ticker('upbit', 'ETH', 4_250_000, 100e9),
      // Korbit's ETH last traded 2 hours ago: stale, so no weight
      ticker('korbit', 'ETH', 4_000_000, 5e9, T0, new Date(T0.getTime() - 2 * 3_600_000)),
      ticker('upbit', 'USDC', 1410, 500e9),
    ]);
  }

  it('per symbol: the volume-weighted Korean price against the volume-weighted global price', async () => {
    await fourExchanges();
    const doc = await kimchiPremiumDocument(c, run());
    const btc = (doc.by_symbol as Record<string, { index: Record<string, unknown> }>).BTC!.index;
    // Korean: (600 x 92.0 + 300 x 92.2 + 60 x 91.8 + 40 x 92.1) / 1000 = 92.052 M KRW; global (3 x 65000 + 65100) / 4 = 65025 USD
    const korean = (600 * 92_000_000 + 300 * 92_200_000 + 60 * 91_800_000 + 40 * 92_100_000) / 1000;
    const global = (3 * 65000 + 65100) / 4;
    expect(btc).toEqual({
      premium_pct: Math.round((korean / 1400 / global - 1) * 1e6) / 1e4,
      price_krw: 92_052_000,
      global_price_usd: 65025,
      global_venues: ['binance', 'okx'],
      exchanges: [
        { exchange: 'upbit', weight_pct: 60 },
        { exchange: 'bithumb', weight_pct: 30 },
        { exchange: 'coinone', weight_pct: 6 },
        { exchange: 'korbit', weight_pct: 4 },
      ],
    });
    const eth = (doc.by_symbol as Record<string, { index: Record<string, unknown> }>).ETH!.index;
    expect(eth).toMatchObject({ global_price_usd: 3000, global_venues: ['binance'], exchanges: [{ exchange: 'upbit', weight_pct: 100 }] });
    expect(eth.premium_pct).toBeCloseTo((4_250_000 / 1400 / 3000 - 1) * 100, 4);
  });

  it('market-wide: the symbols weighted by Korean volume, stablecoins out; the exchanges used and left out are named', async () => {
    await fourExchanges();
    const doc = await kimchiPremiumDocument(c, run());
    const index = doc.korea_index as Record<string, unknown>;
    const korean = (600 * 92_000_000 + 300 * 92_200_000 + 60 * 91_800_000 + 40 * 92_100_000) / 1000;
    const btc = korean / 1400 / ((3 * 65000 + 65100) / 4) - 1;
    const eth = 4_250_000 / 1400 / 3000 - 1;
    expect(index.premium_pct).toBeCloseTo(((1000 * btc + 100 * eth) / 1100) * 100, 4);
    expect(index).toMatchObject({
      symbols: 2,
      volume_24h_krw: 1100e9,
      exchanges_used: ['upbit', 'bithumb', 'coinone', 'korbit'],
      left_out: [],
    });
    expect((index.exchanges as Array<Record<string, unknown>>).map((e) => [e.exchange, e.symbols, e.weight_pct])).toEqual([
      ['upbit', 2, 63.64],
      ['bithumb', 1, 27.27],
      ['coinone', 1, 5.45],
      ['korbit', 1, 3.64],
    ]);
  });

  it('an exchange down or entirely stale has no weight, and the index says which and why: never one exchange shown as four', async () => {
    await put('fx_rates', [fx(1400)]);
    await put('global_prices', [globalPrice('BTC', 65000)]);
    await put('kr_tickers', [
      ticker('upbit', 'BTC', 92_000_000, 600e9),
      ticker('korbit', 'BTC', 92_100_000, 40e9, new Date(T0.getTime() - 3 * 3_600_000)),
    ]);
    await c.run(`CREATE TABLE ingest_failures (upstream VARCHAR, error VARCHAR, "at" TIMESTAMP)`);
    await c.run(
      `INSERT INTO ingest_failures VALUES ('coinone', 'coinone: GET /public/v2/ticker_new/KRW failed with HTTP 503', '2026-11-20 09:00:00')`,
    );
    const doc = await kimchiPremiumDocument(c, run());
    const index = doc.korea_index as {
      exchanges_used: string[];
      left_out: Array<{ exchange: string; reason: string }>;
      premium_pct: number;
    };
    expect(index.exchanges_used).toEqual(['upbit']);
    expect(index.premium_pct).toBeCloseTo((92_000_000 / 1400 / 65000 - 1) * 100, 4);
    expect(index.left_out.map((l) => l.exchange)).toEqual(['bithumb', 'coinone', 'korbit']);
    expect(index.left_out[0]!.reason).toBe('no bithumb prices with 24-hour volume and a global reference in this run');
    expect(index.left_out[1]!.reason).toBe('coinone: GET /public/v2/ticker_new/KRW failed with HTTP 503');
    expect(index.left_out[2]!.reason).toMatch(/^every korbit price is stale: the binance global price .* are 3\.0 hours apart/);
  });
});

describe('arbitrage scanner', () => {
  async function scannerWorld(): Promise<void> {
    await workedExample();
    await put('global_prices', [globalPrice('AAA', 10), globalPrice('BBB', 2), globalPrice('ONLY', 1)]);
    await put('kr_tickers', [
      // AAA: cheaper in Korea on both exchanges (reverse premium); gap 13,600 / 13,300 - 1 = +2.2556 %
      ticker('upbit', 'AAA', 13_600, 30e9),
      ticker('bithumb', 'AAA', 13_300, 10e9),
      // BBB: below global on Upbit only: not a reverse premium token
      ticker('upbit', 'BBB', 2700, 6e9),
      ticker('bithumb', 'BBB', 2800, 4e9),
      // ONLY: listed on Bithumb alone
      ticker('bithumb', 'ONLY', 1450, 5e9),
    ]);
    await put('kr_markets', [
      market('upbit', 'AAA'),
      market('bithumb', 'AAA'),
      market('upbit', 'BBB'),
      market('bithumb', 'BBB'),
      market('bithumb', 'ONLY'),
    ]);
  }

  it('premium on each exchange, reverse premium, Upbit-Bithumb gap and shares per token', async () => {
    await scannerWorld();
    const doc = await arbitrageScannerDocument(c, run());
    type Token = Record<string, unknown>;
    const tokens = new Map((doc.tokens as Token[]).map((t) => [t.symbol, t]));
    expect(tokens.get('BTC')).toMatchObject({
      upbit_premium_pct: 0.6581,
      bithumb_premium_pct: 0.6261,
      reverse_premium: false,
      gap_pct: 0.0318, // 91,200,000 / 91,171,000 - 1
      upbit_share_pct: 83.33, // 300e9 / 360e9
      bithumb_share_pct: 16.67,
    });
    // (13,600 / 1,387.5) / 10 - 1 = -1.9820 %; (13,300 / 1,387.5) / 10 - 1 = -4.1441 %
    expect(tokens.get('AAA')).toMatchObject({
      upbit_premium_pct: -1.982,
      bithumb_premium_pct: -4.1441,
      reverse_premium: true,
      gap_pct: 2.2556,
      upbit_share_pct: 75,
    });
    // (2,700 / 1,387.5) / 2 - 1 = -2.7027 %, (2,800 / 1,387.5) / 2 - 1 = +0.9009 %
    expect(tokens.get('BBB')).toMatchObject({
      upbit_premium_pct: -2.7027,
      bithumb_premium_pct: 0.9009,
      reverse_premium: false,
      upbit_share_pct: 60,
    });
    expect(tokens.get('ONLY')).toMatchObject({
      upbit_krw: null,
      bithumb_krw: 1450,
      upbit_premium_pct: null,
      gap_pct: null,
      upbit_share_pct: 0,
      bithumb_share_pct: 100,
    });
    expect(tokens.get('USDT')).toMatchObject({ global_price_usd: null, upbit_premium_pct: null, reverse_premium: false, gap_pct: -0.0718 });
    // highest premium (the larger of the two) first, tokens without one last
    expect((doc.tokens as Token[]).map((t) => t.symbol)).toEqual(['ONLY', 'BBB', 'BTC', 'AAA', 'USDT']);
    expect(doc.reverse_premiums).toEqual([
      { symbol: 'AAA', exchange: 'bithumb', premium_pct: -4.1441 },
      { symbol: 'BBB', exchange: 'upbit', premium_pct: -2.7027 },
      { symbol: 'AAA', exchange: 'upbit', premium_pct: -1.982 },
    ]);
    // only |gap| > 0.3 %: AAA +2.2556 %, BBB 2,700 / 2,800 - 1 = -3.5714 %
    expect(doc.exchange_gaps).toEqual([
      { symbol: 'BBB', upbit_krw: 2700, bithumb_krw: 2800, gap_pct: -3.5714 },
      { symbol: 'AAA', upbit_krw: 13_600, bithumb_krw: 13_300, gap_pct: 2.2556 },
    ]);
    expect(doc.counts).toEqual({ tokens: 5, on_both_exchanges: 4, with_global_price: 4, reverse_premium: 1 });
  });

  it('overall market share over every KRW market of each exchange', async () => {
    await scannerWorld();
    const doc = await arbitrageScannerDocument(c, run());
    // Upbit 300 + 100 + 30 + 6 = 436e9; Bithumb 60 + 40 + 10 + 4 + 5 = 119e9
    expect(doc.market_share).toEqual({
      upbit_pct: 78.56,
      bithumb_pct: 21.44,
      upbit_volume_krw: 436e9,
      bithumb_volume_krw: 119e9,
    });
    const [row] = await queryJson(c, `SELECT upbit_share + bithumb_share AS total FROM ${SCANNER_ROWS_SQL} WHERE symbol = 'AAA'`);
    expect(Number(row!.total)).toBeCloseTo(1, 12);
  });

  it('a symbol listed on one exchange only has a kimchi premium on that exchange alone', async () => {
    await scannerWorld();
    const doc = await kimchiPremiumDocument(c, run());
    const only = (doc.by_symbol as Record<string, { exchanges: unknown[] }>).ONLY!;
    // (1,450 / 1,387.5) / 1 - 1 = +4.5045 %; USDT basis (1,450 / 1,393) / 1 - 1 = +4.0919 %
    expect(only.exchanges).toEqual([
      {
        exchange: 'bithumb',
        price_krw: 1450,
        premium_pct: 4.5045,
        last_trade_at: '2026-11-20T09:00:00Z',
        usdt_krw: 1393,
        usdt_premium_pct: 4.0919,
      },
    ]);
  });
});

describe('exchange alerts across runs', () => {
  const T1 = new Date('2026-11-20T09:01:00Z');
  const T2 = new Date('2026-11-20T09:02:00Z');
  const flag = (
    exchange: string,
    symbol: string,
    name: string,
    at: Date,
    startedAt: Date | null = null,
    endsAt: Date | null = null,
  ): Row => [exchange, symbol, name, startedAt, endsAt, at, 'demo'];

  it('a token delisted between two runs shows as a delisting; a new one as a listing; the first run is the baseline', async () => {
    await put('kr_markets', [
      market('upbit', 'AAA'),
      market('upbit', 'BBB'),
      market('upbit', 'CCC'),
      market('bithumb', 'AAA'),
      market('bithumb', 'BBB'),
    ]);
    const first = await exchangeAlertsDocument(c, run(T0));
    expect(first.listing_changes).toEqual([]);
    expect((first.tracking as { since: string }[]).map((t) => t.since)).toEqual(['2026-11-20T09:00:00Z', '2026-11-20T09:00:00Z']);

    // next run: Upbit dropped BBB and added DDD; Bithumb's market list failed to load
    await newRun();
    await put('kr_markets', [market('upbit', 'AAA', T1), market('upbit', 'CCC', T1), market('upbit', 'DDD', T1)]);
    const second = await exchangeAlertsDocument(c, run(T1));
    expect(second.as_of).toBe('2026-11-20T09:01:00Z');
    expect(second.listing_changes).toEqual([
      {
        exchange: 'upbit',
        symbol: 'BBB',
        korean_name: 'BBB-kr',
        change: 'delisting',
        detected_at: '2026-11-20T09:01:00Z',
        previous_observed_at: '2026-11-20T09:00:00Z',
      },
      {
        exchange: 'upbit',
        symbol: 'DDD',
        korean_name: 'DDD-kr',
        change: 'new_listing',
        detected_at: '2026-11-20T09:01:00Z',
        previous_observed_at: '2026-11-20T09:00:00Z',
      },
    ]);
    // a missing Bithumb list is not "everything delisted"
    expect(second.tracking).toContainEqual(
      expect.objectContaining({ exchange: 'bithumb', markets_observed: false, last_observed: '2026-11-20T09:00:00Z' }),
    );
    expect(second.unavailable_exchanges).toEqual([{ exchange: 'bithumb', reason: 'no bithumb data in this run' }]);

    // the change stays reported in later runs of the 7-day window
    await newRun();
    await put('kr_markets', [
      market('upbit', 'AAA', T2),
      market('upbit', 'CCC', T2),
      market('upbit', 'DDD', T2),
      market('bithumb', 'AAA', T2),
      market('bithumb', 'BBB', T2),
    ]);
    const third = await exchangeAlertsDocument(c, run(T2));
    expect((third.listing_changes as unknown[]).length).toBe(2);
    expect(third.counts).toMatchObject({ new_listings: 1, delistings: 1 });
  });

  it('a flag keeps its first-seen time across runs and ends when it disappears', async () => {
    const start = new Date('2026-11-19T22:00:00Z');
    const end = new Date('2026-11-21T06:59:59Z');
    await put('kr_markets', [market('upbit', 'AAA'), market('bithumb', 'AAA')]);
    await put('market_flags', [
      flag('upbit', 'AAA', 'caution:PRICE_FLUCTUATIONS', T0),
      flag('upbit', 'AAA', 'investment_warning', T0),
      flag('bithumb', 'AAA', 'alert:TRADING_VOLUME_SUDDEN_FLUCTUATION', T0, start, end),
    ]);
    await exchangeAlertsDocument(c, run(T0));

    await newRun();
    await put('kr_markets', [market('upbit', 'AAA', T1), market('bithumb', 'AAA', T1)]);
    await put('market_flags', [
      flag('upbit', 'AAA', 'caution:PRICE_FLUCTUATIONS', T1),
      flag('bithumb', 'AAA', 'alert:TRADING_VOLUME_SUDDEN_FLUCTUATION', T1, start, end),
    ]);
    const second = await exchangeAlertsDocument(c, run(T1));
    expect(second.caution_flags).toEqual([
      {
        flag: 'PRICE_FLUCTUATIONS',
        system: 'upbit_caution',
        exchange: 'upbit',
        symbol: 'AAA',
        korean_name: 'AAA-kr',
        first_seen: '2026-11-20T09:00:00Z',
        last_seen: '2026-11-20T09:01:00Z',
        started_at: null,
        ends_at: null,
      },
      {
        flag: 'TRADING_VOLUME_SUDDEN_FLUCTUATION',
        system: 'bithumb_alert',
        exchange: 'bithumb',
        symbol: 'AAA',
        korean_name: 'AAA-kr',
        first_seen: '2026-11-20T09:00:00Z',
        last_seen: '2026-11-20T09:01:00Z',
        started_at: '2026-11-19T22:00:00Z',
        ends_at: '2026-11-21T06:59:59Z',
      },
    ]);
    // the investment warning disappeared in this run: ended now, first seen kept
    expect(second.investment_warnings).toEqual([]);
    expect(second.recently_ended).toEqual([
      expect.objectContaining({
        flag: 'INVESTMENT_WARNING',
        system: 'investment_warning',
        exchange: 'upbit',
        first_seen: '2026-11-20T09:00:00Z',
        ended_at: '2026-11-20T09:01:00Z',
      }),
    ]);

    // third run: Bithumb's alert list failed; its flag is neither ended nor extended
    await newRun();
    await c.run(`CREATE TABLE ingest_failures (upstream VARCHAR, error VARCHAR, "at" TIMESTAMP)`);
    await c.run(`INSERT INTO ingest_failures VALUES ('bithumb:alerts', 'HTTP 500', TIMESTAMP '2026-11-20 09:02:00')`);
    await put('kr_markets', [market('upbit', 'AAA', T2), market('bithumb', 'AAA', T2)]);
    const third = await exchangeAlertsDocument(c, run(T2));
    expect(third.caution_flags).toEqual([
      expect.objectContaining({
        flag: 'TRADING_VOLUME_SUDDEN_FLUCTUATION',
        first_seen: '2026-11-20T09:00:00Z',
        last_seen: '2026-11-20T09:01:00Z',
      }),
    ]);
    expect(third.recently_ended).toEqual([
      expect.objectContaining({
        flag: 'PRICE_FLUCTUATIONS',
        first_seen: '2026-11-20T09:00:00Z',
        last_seen: '2026-11-20T09:01:00Z',
        ended_at: '2026-11-20T09:02:00Z',
      }),
      expect.objectContaining({ flag: 'INVESTMENT_WARNING', ended_at: '2026-11-20T09:01:00Z' }),
    ]);
    expect(third.tracking).toContainEqual(expect.objectContaining({ exchange: 'bithumb', markets_observed: true, flags_observed: false }));
  });

  it('an observation older than the last one changes nothing', async () => {
    await put('kr_markets', [market('upbit', 'AAA', T1)]);
    await exchangeAlertsDocument(c, run(T1));
    await newRun();
    await put('kr_markets', [market('upbit', 'BBB', T0)]);
    await expect(exchangeAlertsDocument(c, run(T0))).rejects.toThrow(/no market list newer than the last one recorded/);
  });
});

describe('market movers', () => {
  const AS_OF = new Date('2026-11-20T10:00:00Z');
  const at = (hhmm: string) => new Date(`2026-11-20T${hhmm}:00Z`);
  const candle = (symbol: string, hhmm: string, close: number, volumeKrw: number, exchange = 'upbit'): Row => [
    exchange,
    symbol,
    at(hhmm),
    close,
    close,
    close,
    close,
    volumeKrw / close,
    volumeKrw,
    'demo',
  ];

  it('1-minute move against the last traded price and volume spike ratio with a gap minute', async () => {
    await put('kr_tickers', [
      ticker('upbit', 'AAA', 103, 5e9, AS_OF),
      ticker('upbit', 'BBB', 50, 1e9, AS_OF),
      ticker('upbit', 'CCC', 98, 1e9, AS_OF),
    ]);
    await put('candles_1m', [
      // BBB's candle at 09:49 starts the exchange's candle history: the trailing window is 09:49..09:58 (10 minutes)
      candle('BBB', '09:49', 50, 2_000_000),
      // AAA trades 1,000,000 KRW a minute from 09:50 to 09:58 except 09:55 (no trades: no candle), then
      // 20,000,000 KRW at 09:59: average = 8 x 1,000,000 / 10 minutes = 800,000; ratio = 25
      ...['09:50', '09:51', '09:52', '09:53', '09:54', '09:56', '09:57', '09:58'].map((m) => candle('AAA', m, 100, 1_000_000)),
      candle('AAA', '09:59', 103, 20_000_000),
      // CCC does not trade at 09:58: its price a minute before 09:59 is the 09:57 close, not 0
      candle('CCC', '09:57', 100, 3_000_000),
      candle('CCC', '09:59', 98, 1_500_000),
      // the minute in progress is not closed yet
      candle('AAA', '10:00', 150, 90_000_000),
    ]);
    const doc = await marketMoversDocument(c, run(AS_OF));
    expect(doc.minutes).toEqual([{ exchange: 'upbit', minute: '2026-11-20T09:59:00Z', markets_traded: 2 }]);
    expect(doc.candle_markets).toEqual([
      { exchange: 'upbit', markets: 3 },
      { exchange: 'bithumb', markets: 0 },
    ]);
    expect(doc.unavailable_exchanges).toEqual([{ exchange: 'bithumb', reason: 'no bithumb candles in this run' }]);
    expect(doc.movers_1m).toEqual([
      {
        exchange: 'upbit',
        symbol: 'AAA',
        direction: 'surge',
        minute: '2026-11-20T09:59:00Z',
        prev_minute: '2026-11-20T09:58:00Z',
        prev_price_krw: 100,
        price_krw: 103,
        change_1m_pct: 3,
        volume_1m_krw: 20_000_000,
      },
      {
        exchange: 'upbit',
        symbol: 'CCC',
        direction: 'crash',
        minute: '2026-11-20T09:59:00Z',
        prev_minute: '2026-11-20T09:57:00Z',
        prev_price_krw: 100,
        price_krw: 98,
        change_1m_pct: -2,
        volume_1m_krw: 1_500_000,
      },
    ]);
    expect(doc.volume_spikes).toEqual([
      {
        exchange: 'upbit',
        symbol: 'AAA',
        minute: '2026-11-20T09:59:00Z',
        volume_1m_krw: 20_000_000,
        avg_volume_1m_krw: 800_000,
        trailing_minutes: 10,
        ratio: 25,
        change_1m_pct: 3,
        change_24h_pct: 0,
      },
      // CCC: 1,500,000 / (3,000,000 / 10 minutes) = 5, at the threshold and above the minimum volume
      {
        exchange: 'upbit',
        symbol: 'CCC',
        minute: '2026-11-20T09:59:00Z',
        volume_1m_krw: 1_500_000,
        avg_volume_1m_krw: 300_000,
        trailing_minutes: 10,
        ratio: 5,
        change_1m_pct: -2,
        change_24h_pct: 0,
      },
    ]);
    expect(doc.thresholds).toEqual({ move_1m_pct: 1, volume_spike_ratio: 5, volume_spike_min_krw: 1_000_000, trailing_minutes: 60 });
    expect((doc.top_volume as { symbol: string; rank: number }[]).map((t) => [t.rank, t.symbol])).toEqual([
      [1, 'AAA'],
      [2, 'BBB'],
      [3, 'CCC'],
    ]);
  });
});

describe('krw macro stress', () => {
  const RUN = new Date('2026-11-20T09:00:00Z');
  const day = (offset: number) => new Date(RUN.getTime() + offset * 86_400_000).toISOString().slice(0, 10);

  /**
   * 200 consecutive days ending yesterday: DGS3 rising (its latest value tops the window), VIX
   * falling (the latest is the lowest), USD/KRW flat then +0.5 % over the last 5 days; the KRX
   * series stop 15 days ago, so foreign_flow and semiconductor are degraded (stale).
   */
  async function macroWorld(): Promise<void> {
    const rows: Row[] = [];
    for (let i = 0; i < 200; i++) {
      const offset = i - 200; // -200 .. -1
      rows.push(['DGS3', day(offset), 3 + i * 0.001, 'demo']);
      rows.push(['VIXCLS', day(offset), 40 - i * 0.1, 'demo']);
      rows.push(['DEXKOUS', day(offset), i < 195 ? 1400 : 1400 * (1 + 0.001 * (i - 194)), 'demo']);
      if (offset <= -15) {
        rows.push(['KRX:005930:close', day(offset), 200_000, 'demo']);
        rows.push(['KRX:000660:close', day(offset), 1_500_000, 'demo']);
        rows.push(['KRX:005930:foreign_pct', day(offset), 50, 'demo']);
        rows.push(['KRX:000660:foreign_pct', day(offset), 53, 'demo']);
      }
    }
    await put('macro_daily', rows);
  }

  it('percentiles over the 120-day window, degraded components left out and the weights re-split', async () => {
    await macroWorld();
    const doc = await krwMacroStressDocument(c, run(RUN));
    type Component = {
      name: string;
      percentile: number | null;
      effective_weight: number;
      degraded: boolean;
      degraded_reason: string | null;
      raw_value: number | null;
    };
    const byName = new Map((doc.components as Component[]).map((k) => [k.name, k]));
    // a rising series: 119 of the 120 window values lie strictly below the latest: 100 x 119 / 120
    expect(byName.get('us_rate_stress')).toMatchObject({
      percentile: 99.17,
      effective_weight: 0.357143,
      degraded: false,
      raw_value: 3.199,
    });
    expect(byName.get('risk_sentiment')).toMatchObject({ percentile: 0, effective_weight: 0.357143 });
    expect(byName.get('fx_momentum')).toMatchObject({ percentile: 99.17, effective_weight: 0.285714 });
    expect(byName.get('foreign_flow')).toMatchObject({
      degraded: true,
      effective_weight: 0,
      degraded_reason: 'latest value is 15 days old',
    });
    expect(byName.get('semiconductor')).toMatchObject({ degraded: true, effective_weight: 0 });
    expect(doc.degraded).toEqual(['foreign_flow', 'semiconductor']);
    // (0.25 x 99.1667 + 0.25 x 0 + 0.20 x 99.1667) / 0.70 = 63.75
    expect(doc).toMatchObject({ score: 63.75, regime: 'risk_off', direction: 'krw_weakening', analyst: 'rules', data_date: day(-1) });
    // 1400 x 1.005 / 1400 - 1 = +0.5 % over five days
    expect(doc.usdkrw_change_5d_pct).toBeCloseTo(0.5, 6);
    expect(doc.note).toMatch(/^KRW macro stress is 63\.8 of 100 \(risk-off\)/);
    expect(doc.note).toMatch(
      /Left out of the score, with the other weights renormalised: the foreign-ownership proxy \(latest value is 15 days old\); Korean chip stocks/,
    );
    expect(doc.note).not.toMatch(/\b(buy|sell|should|recommend)\b/i);
    expect((doc.history as unknown[]).length).toBe(20);
  });

  it('an upstream failing in 5 runs without new data degrades its components', async () => {
    await macroWorld();
    await c.run(`CREATE TABLE ingest_failures (upstream VARCHAR, error VARCHAR, "at" TIMESTAMP)`);
    await c.run(`INSERT INTO ingest_failures VALUES ('fred:DGS3', 'HTTP 500', TIMESTAMP '2026-11-20 09:00:00')`);
    for (let i = 1; i <= 4; i++) {
      const doc = await krwMacroStressDocument(c, run(RUN));
      expect(doc.degraded).toEqual(['foreign_flow', 'semiconductor']);
    }
    const fifth = await krwMacroStressDocument(c, run(RUN));
    expect(fifth.degraded).toEqual(['us_rate_stress', 'foreign_flow', 'semiconductor']);
    const us = (fifth.components as { name: string; degraded_reason: string }[]).find((k) => k.name === 'us_rate_stress')!;
    expect(us.degraded_reason).toBe('upstream failed in 5 runs without new data: fred:DGS3: HTTP 500');
    // VIX 0 and USD/KRW 99.1667 re-split over 0.25 + 0.20: 0.20 / 0.45 x 99.1667 = 44.07
    expect(fifth).toMatchObject({ score: 44.07, regime: 'caution' });
    // a run that did not try FRED proves nothing; one that brings a newer DGS3 value resets the count
    await c.run('DELETE FROM ingest_failures');
    expect((await krwMacroStressDocument(c, run(RUN))).degraded).toContain('us_rate_stress');
    await put('macro_daily', [['DGS3', day(0), 3.3, 'demo']]);
    expect((await krwMacroStressDocument(c, run(RUN))).degraded).toEqual(['foreign_flow', 'semiconductor']);
  });

  it('regime bands', () => {
    expect([0, 19.99, 20, 39.99, 40, 59.99, 60, 79.99, 80, 100].map(regimeOf)).toEqual([
      'calm',
      'calm',
      'neutral',
      'neutral',
      'caution',
      'caution',
      'risk_off',
      'risk_off',
      'crisis',
      'crisis',
    ]);
  });

  it('no macro history: a clear error', async () => {
    await expect(krwMacroStressDocument(c, run(RUN))).rejects.toThrow(
      /krw-macro-stress: no macro history \(macro_daily is empty\) in this run/,
    );
  });

  it('the rules note never gives trading advice, over 40 days of the demo world; the advice check catches advice', async () => {
    const world = koreaWorld({ seed: 42, now: T0, scale: 1 });
    await put('macro_daily', world.macro_daily);
    for (let d = 0; d < 40; d++) {
      const doc = await krwMacroStressDocument(c, run(new Date(T0.getTime() - d * 86_400_000)));
      expect(adviceProblem(String(doc.note)), String(doc.note)).toBeNull();
    }
    expect(adviceProblem('Stress is rising, so investors should buy dollars now.')).toMatch(/trading advice/);
    expect(adviceProblem('Sell KRW before the score passes 80.')).toMatch(/trading advice/);
    expect(adviceProblem('Foreign investors were net sellers of chip stocks for five days.')).toBeNull();
  });

  it('the rules analyst states facts only', () => {
    const note = macroStressNote({
      score: 45.44,
      regime: 'caution',
      scoreFiveDaysAgo: 38.2,
      direction: 'stable',
      usdKrwChange5dPct: -0.12,
      components: [
        {
          name: 'us_rate_stress',
          label: 'the US 3-year Treasury yield',
          percentile: 94.17,
          effectiveWeight: 0.25,
          degraded: false,
          degradedReason: null,
          headline: '4.34 %',
        },
        {
          name: 'risk_sentiment',
          label: 'the VIX',
          percentile: 6.67,
          effectiveWeight: 0.25,
          degraded: false,
          degradedReason: null,
          headline: '15.86',
        },
      ],
    });
    expect(note).toBe(
      'KRW macro stress is 45.4 of 100 (caution), up 7.2 points from five trading days earlier. ' +
        'The largest contributions come from the US 3-year Treasury yield (4.34 %; 94th percentile of the last 120 trading days) and the VIX (15.86; 7th percentile of the last 120 trading days). ' +
        'USD/KRW moved -0.12 % over five trading days: the won was broadly stable.',
    );
  });
});
