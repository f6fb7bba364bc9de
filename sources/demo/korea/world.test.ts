import { describe, it, expect } from 'vitest';
import { RAW_TABLES } from '../../raw-tables.ts';
import type { Row } from '../../../lib/duckdb.ts';
import { DIVERGENCE_SYMBOLS, KOREA_TOKENS, koreaNews, koreaWorld, type KoreaRawTable } from './world.ts';
import { roundKrw } from './prices.ts';
import { withParticle, type NewsArticle, type NewsMention } from './news.ts';
import { ListingCalendar } from './listings.ts';

const NOW = new Date('2026-11-20T06:37:25Z');
const MINUTE = 60_000;
const DAY = 86_400_000;

const worldCache = new Map<string, Record<KoreaRawTable, Row[]>>();
function world(now: Date = NOW, seed = 42): Record<KoreaRawTable, Row[]> {
  const key = `${seed}|${now.toISOString()}`;
  let cached = worldCache.get(key);
  if (!cached) {
    cached = koreaWorld({ seed, now, scale: 1 });
    worldCache.set(key, cached);
  }
  return cached;
}

const TABLES: readonly KoreaRawTable[] = [
  'kr_markets',
  'kr_tickers',
  'global_prices',
  'fx_rates',
  'candles_1m',
  'market_flags',
  'macro_daily',
  'news_articles',
];
const NULLABLE: Readonly<Record<string, readonly string[]>> = {
  market_flags: ['started_at', 'ends_at'],
  macro_daily: ['value'],
  // Coinone does not say when it last traded (the demo follows the live source)
  kr_tickers: ['last_trade_at'],
};

function column(table: KoreaRawTable, name: string): number {
  const index = RAW_TABLES[table].columns.findIndex(([c]) => c === name);
  if (index < 0) throw new Error(`no column ${table}.${name}`);
  return index;
}

const cell = <T>(row: Row, table: KoreaRawTable, name: string): T => row[column(table, name)] as T;
const num = (row: Row, table: KoreaRawTable, name: string): number => cell<number>(row, table, name);
const str = (row: Row, table: KoreaRawTable, name: string): string => cell<string>(row, table, name);
const time = (row: Row, table: KoreaRawTable, name: string): number => cell<Date>(row, table, name).getTime();

function symbolsOn(w: Record<KoreaRawTable, Row[]>, exchange: string): Set<string> {
  return new Set(w.kr_markets.filter((r) => r[0] === exchange).map((r) => str(r, 'kr_markets', 'symbol')));
}

/** 'exchange:symbol' of every listed market. */
function marketsOf(w: Record<KoreaRawTable, Row[]>): Set<string> {
  return new Set(w.kr_markets.map((r) => `${String(r[0])}:${String(r[1])}`));
}

function ticker(w: Record<KoreaRawTable, Row[]>, exchange: string, symbol: string): Row {
  const row = w.kr_tickers.find((r) => r[0] === exchange && r[1] === symbol);
  if (!row) throw new Error(`no ${exchange} ticker for ${symbol}`);
  return row;
}

function globalPrice(w: Record<KoreaRawTable, Row[]>, symbol: string): number {
  const row = w.global_prices.find((r) => r[0] === symbol);
  if (!row) throw new Error(`no global price for ${symbol}`);
  return num(row, 'global_prices', 'price_usd');
}

const fxRate = (w: Record<KoreaRawTable, Row[]>): number => num(w.fx_rates[0]!, 'fx_rates', 'rate');

describe('koreaWorld determinism', () => {
  it('gives identical rows for the same seed, now and scale', () => {
    const a = koreaWorld({ seed: 7, now: NOW, scale: 1 });
    const b = koreaWorld({ seed: 7, now: NOW, scale: 1 });
    expect(a).toEqual(b);
  });

  it('gives a different world for a different seed', () => {
    const a = world(NOW, 42);
    const b = world(NOW, 43);
    expect(num(ticker(a, 'upbit', 'BTC'), 'kr_tickers', 'price_krw')).not.toBe(num(ticker(b, 'upbit', 'BTC'), 'kr_tickers', 'price_krw'));
    const titles = (w: Record<KoreaRawTable, Row[]>): string[] => w.news_articles.map((r) => str(r, 'news_articles', 'title_kr'));
    expect(titles(a)).not.toEqual(titles(b));
    expect(a.macro_daily).not.toEqual(b.macro_daily);
  });

  it('runs well under 1.5 s at scale 1', () => {
    world(); // warm up
    const started = performance.now();
    koreaWorld({ seed: 99, now: new Date('2026-06-02T11:00:00Z'), scale: 1 });
    expect(performance.now() - started).toBeLessThan(1500);
  });

  it('refuses a `now` too early for its history', () => {
    expect(() => koreaWorld({ seed: 1, now: new Date('2019-06-01T00:00:00Z'), scale: 1 })).toThrow(/now/);
  });
});

describe('koreaWorld row shapes', () => {
  it('writes every table in its column order with the right cell types', () => {
    const w = world();
    // Collect problems instead of asserting per cell: tens of thousands of cells.
    const problems: string[] = [];
    for (const table of TABLES) {
      const columns = RAW_TABLES[table].columns;
      if (w[table].length === 0) problems.push(`${table}: no rows`);
      w[table].forEach((row, r) => {
        if (row.length !== columns.length) problems.push(`${table}[${r}]: ${row.length} cells for ${columns.length} columns`);
        columns.forEach(([name, type], i) => {
          const value = row[i];
          const at = `${table}[${r}].${name}=${String(value)}`;
          if (value === null || value === undefined) {
            if (value === undefined || !(NULLABLE[table] ?? []).includes(name)) problems.push(`${at}: missing`);
          } else if (type === 'VARCHAR' && typeof value !== 'string') problems.push(`${at}: not a string`);
          else if (type === 'DOUBLE' && !(typeof value === 'number' && Number.isFinite(value))) problems.push(`${at}: not a finite number`);
          else if (type === 'TIMESTAMP' && !(value instanceof Date && Number.isFinite(value.getTime()))) problems.push(`${at}: not a Date`);
          else if (type === 'DATE' && !(typeof value === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(value)))
            problems.push(`${at}: not YYYY-MM-DD`);
        });
        if (cell(row, table, 'source') !== 'demo') problems.push(`${table}[${r}]: source is not demo`);
      });
    }
    expect(problems.slice(0, 10)).toEqual([]);
  });

  it('prices every KRW value on the exchange tick', () => {
    const w = world();
    for (const row of w.kr_tickers) {
      const stable = row[1] === 'USDT' || row[1] === 'USDC';
      for (const name of ['price_krw', 'prev_close_krw', 'high_24h_krw', 'low_24h_krw']) {
        const price = num(row, 'kr_tickers', name);
        expect(roundKrw(price, stable), `${String(row[1])} ${name}`).toBe(price);
      }
    }
  });
});

describe('koreaWorld token universe', () => {
  it('lists about 180 tokens on Upbit, 190 on Bithumb and about 200 overall', () => {
    const w = world();
    const upbit = symbolsOn(w, 'upbit');
    const bithumb = symbolsOn(w, 'bithumb');
    const union = new Set([...upbit, ...bithumb]);
    expect(upbit.size).toBeGreaterThanOrEqual(170);
    expect(upbit.size).toBeLessThanOrEqual(195);
    expect(bithumb.size).toBeGreaterThanOrEqual(178);
    expect(bithumb.size).toBeLessThanOrEqual(205);
    expect(union.size).toBeGreaterThanOrEqual(195);
    expect(union.size).toBeLessThanOrEqual(225);
    const shared = [...upbit].filter((s) => bithumb.has(s)).length;
    expect(shared).toBeGreaterThan(140);
    expect(union.size - shared).toBeGreaterThan(10); // some tokens trade on one exchange only
  });

  it('keeps the 25 divergence symbols, in spec order, on both exchanges', () => {
    expect([...DIVERGENCE_SYMBOLS]).toEqual([
      'BTC',
      'ETH',
      'XRP',
      'SOL',
      'ADA',
      'DOGE',
      'DOT',
      'MATIC',
      'LINK',
      'AVAX',
      'ATOM',
      'UNI',
      'LTC',
      'NEAR',
      'OP',
      'ARB',
      'APT',
      'ALGO',
      'FTM',
      'SUI',
      'TRX',
      'BCH',
      'ETC',
      'HBAR',
      'SHIB',
    ]);
    for (const now of [NOW, new Date(NOW.getTime() + 40 * DAY), new Date('2025-03-14T00:00:00Z')]) {
      const w = world(now);
      for (const exchange of ['upbit', 'bithumb']) {
        const listed = symbolsOn(w, exchange);
        for (const symbol of DIVERGENCE_SYMBOLS) expect(listed.has(symbol), `${symbol} on ${exchange}`).toBe(true);
        for (const symbol of DIVERGENCE_SYMBOLS) expect(() => globalPrice(w, symbol)).not.toThrow();
      }
      expect(symbolsOn(w, 'upbit').has('USDT') && symbolsOn(w, 'bithumb').has('USDT') && symbolsOn(w, 'upbit').has('USDC')).toBe(true);
    }
  });

  it('uses the real Korean names and KRW market codes', () => {
    const w = world();
    const btc = w.kr_markets.find((r) => r[0] === 'upbit' && r[1] === 'BTC')!;
    expect(btc.slice(0, 5)).toEqual(['upbit', 'BTC', 'KRW-BTC', '비트코인', 'Bitcoin']);
    const eth = w.kr_markets.find((r) => r[1] === 'ETH')!;
    expect(eth[3]).toBe('이더리움');
    expect(w.kr_markets.every((r) => r[2] === `KRW-${String(r[1])}`)).toBe(true);
  });

  it('has Korean-only tokens without a Binance price, some priced on OKX', () => {
    const w = world();
    const venues = new Map(w.global_prices.map((r) => [r[0], r[3]]));
    const listed = new Set(w.kr_markets.map((r) => r[1]));
    const withoutGlobal = [...listed].filter((s) => !venues.has(s));
    expect(withoutGlobal.length).toBeGreaterThanOrEqual(3);
    expect([...venues.values()].filter((v) => v === 'okx').length).toBeGreaterThanOrEqual(3);
    expect(KOREA_TOKENS.filter((t) => t.globalVenue === null && t.exchanges.length > 0).length).toBeGreaterThanOrEqual(3);
  });

  it('gives every listed market exactly one ticker and only listed markets candles', () => {
    const w = world();
    const markets = w.kr_markets.map((r) => `${String(r[0])}:${String(r[1])}`).sort();
    const tickers = w.kr_tickers.map((r) => `${String(r[0])}:${String(r[1])}`).sort();
    const listing = (key: string) => key.startsWith('upbit:') || key.startsWith('bithumb:');
    expect(tickers.filter(listing)).toEqual(markets);
    const marketSet = new Set(markets);
    for (const row of w.candles_1m) expect(marketSet.has(`${String(row[0])}:${String(row[1])}`)).toBe(true);
  });

  it('Coinone and Korbit quote part of what Upbit or Bithumb list (prices only), Korbit fewer, within a few percent of Upbit', () => {
    const w = world();
    const listed = new Set(w.kr_markets.map((r) => String(r[1])));
    const on = (exchange: string) => w.kr_tickers.filter((r) => r[0] === exchange);
    const coinone = on('coinone');
    const korbit = on('korbit');
    expect(coinone.length).toBeGreaterThan(40);
    expect(korbit.length).toBeGreaterThan(20);
    expect(korbit.length).toBeLessThan(coinone.length);
    for (const row of [...coinone, ...korbit]) expect(listed.has(String(row[1]))).toBe(true);
    const upbit = new Map(on('upbit').map((r) => [String(r[1]), Number(r[2])]));
    for (const row of [...coinone, ...korbit]) {
      const u = upbit.get(String(row[1]));
      if (u !== undefined) expect(Math.abs(Number(row[2]) / u - 1), `${String(row[0])} ${String(row[1])}`).toBeLessThan(0.06);
    }
    // smaller books than Upbit's: their KRW volume of BTC is a few percent of Upbit's
    const btc = (rows: Row[]) => Number(rows.find((r) => r[1] === 'BTC')![8]);
    expect(btc(coinone) / btc(on('upbit'))).toBeLessThan(0.2);
    expect(coinone.every((r) => r[10] === null)).toBe(true);
    expect(korbit.every((r) => r[10] instanceof Date)).toBe(true);
  });
});

describe('koreaWorld time consistency', () => {
  it('gives a minute the same candle whatever `now` covers it', () => {
    const later = new Date(NOW.getTime() + 25 * MINUTE + 13_000);
    const key = (r: Row): string => `${String(r[0])}:${String(r[1])}:${(r[2] as Date).toISOString()}`;
    // Markets listed at both times (one listed or delisted in between shows candles at one time only).
    const both = new Set([...marketsOf(world(NOW))].filter((m) => marketsOf(world(later)).has(m)));
    const inBoth = (r: Row): boolean => both.has(`${String(r[0])}:${String(r[1])}`);
    const early = new Map(
      world(NOW)
        .candles_1m.filter(inBoth)
        .map((r) => [key(r), r]),
    );
    const overlap = world(later)
      .candles_1m.filter(inBoth)
      .filter((r) => early.has(key(r)));
    expect(overlap.length).toBeGreaterThan(3000);
    for (const row of overlap) expect(row).toEqual(early.get(key(row)));
    // And the overlapping window holds the same set of candles (gaps included).
    const firstLater = later.getTime() - (later.getTime() % MINUTE) - 60 * MINUTE;
    const earlyInOverlap = [...early.values()].filter((r) => (r[2] as Date).getTime() >= firstLater);
    expect(overlap.length).toBe(earlyInOverlap.length);
  });

  it('keeps daily macro values and published articles when `now` moves on', () => {
    const later = new Date(NOW.getTime() + 10 * DAY);
    const macroKey = (r: Row): string => `${String(r[0])}:${String(r[1])}`;
    const laterMacro = new Map(world(later).macro_daily.map((r) => [macroKey(r), r[2]]));
    const shared = world(NOW).macro_daily.filter((r) => laterMacro.has(macroKey(r)));
    expect(shared.length).toBeGreaterThan(3000);
    for (const row of shared) expect(laterMacro.get(macroKey(row))).toBe(row[2]);

    const soon = new Date(NOW.getTime() + 5 * 3_600_000);
    const soonArticles = new Map(world(soon).news_articles.map((r) => [r[0], r]));
    for (const row of world(NOW).news_articles) {
      const again = soonArticles.get(row[0]);
      if (again) expect(again).toEqual(row);
    }
    expect(world(soon).news_articles.length).toBeGreaterThanOrEqual(world(NOW).news_articles.length - 30);
  });

  it('shows listings and delistings between two runs 10 days apart', () => {
    const before = world(NOW);
    const after = world(new Date(NOW.getTime() + 10 * DAY));
    let changes = 0;
    for (const exchange of ['upbit', 'bithumb']) {
      const a = symbolsOn(before, exchange);
      const b = symbolsOn(after, exchange);
      changes += [...a].filter((s) => !b.has(s)).length + [...b].filter((s) => !a.has(s)).length;
      // A delisted market is gone from tickers and candles too.
      for (const gone of [...a].filter((s) => !b.has(s))) {
        expect(after.kr_tickers.some((r) => r[0] === exchange && r[1] === gone)).toBe(false);
        expect(after.candles_1m.some((r) => r[0] === exchange && r[1] === gone)).toBe(false);
      }
    }
    expect(changes).toBeGreaterThanOrEqual(2);
  });

  it('raises and clears flags over time', () => {
    const flagKey = (r: Row): string => `${String(r[0])}:${String(r[1])}:${String(r[2])}`;
    const a = new Set(world(NOW).market_flags.map(flagKey));
    const b = new Set(world(new Date(NOW.getTime() + DAY)).market_flags.map(flagKey));
    expect([...a].some((k) => !b.has(k))).toBe(true); // cleared
    expect([...b].some((k) => !a.has(k))).toBe(true); // raised
  });
});

describe('koreaWorld prices', () => {
  it('puts the BTC kimchi premium in a realistic range on both exchanges', () => {
    for (const now of [NOW, new Date('2025-08-03T17:05:00Z'), new Date('2026-02-11T00:00:30Z')]) {
      const w = world(now);
      const fx = fxRate(w);
      for (const exchange of ['upbit', 'bithumb']) {
        const premium = num(ticker(w, exchange, 'BTC'), 'kr_tickers', 'price_krw') / fx / globalPrice(w, 'BTC') - 1;
        expect(premium, `${exchange} ${now.toISOString()}`).toBeGreaterThan(-0.02);
        expect(premium, `${exchange} ${now.toISOString()}`).toBeLessThan(0.06);
      }
      const gap =
        num(ticker(w, 'upbit', 'BTC'), 'kr_tickers', 'price_krw') / num(ticker(w, 'bithumb', 'BTC'), 'kr_tickers', 'price_krw') - 1;
      expect(Math.abs(gap)).toBeLessThan(0.01);
    }
  });

  it('prices stablecoins at the FX rate plus a small premium', () => {
    const w = world();
    const fx = fxRate(w);
    for (const [exchange, symbol] of [
      ['upbit', 'USDT'],
      ['bithumb', 'USDT'],
      ['upbit', 'USDC'],
    ] as const) {
      const premium = num(ticker(w, exchange, symbol), 'kr_tickers', 'price_krw') / fx - 1;
      expect(premium, `${exchange} ${symbol}`).toBeGreaterThan(-0.002);
      expect(premium, `${exchange} ${symbol}`).toBeLessThan(0.01);
    }
  });

  it('has a few reverse premiums and most premiums between 0 and 3 %', () => {
    const w = world();
    const fx = fxRate(w);
    const global = new Map(w.global_prices.map((r) => [r[0], r[1] as number]));
    const premiums = w.kr_tickers
      .filter((r) => global.has(r[1] as string) && r[1] !== 'USDC')
      .map((r) => num(r, 'kr_tickers', 'price_krw') / fx / global.get(r[1] as string)! - 1);
    const negative = premiums.filter((p) => p < -0.003).length;
    expect(negative).toBeGreaterThanOrEqual(2);
    expect(negative).toBeLessThan(premiums.length * 0.15);
    const usual = premiums.filter((p) => p > -0.005 && p < 0.035).length;
    expect(usual / premiums.length).toBeGreaterThan(0.75);
  });

  it('keeps the FX rate in range and close to the latest DEXKOUS', () => {
    const w = world();
    const fx = fxRate(w);
    expect(fx).toBeGreaterThan(1300);
    expect(fx).toBeLessThan(1500);
    const dexkous = w.macro_daily.filter((r) => r[0] === 'DEXKOUS' && r[2] !== null);
    const latest = dexkous[dexkous.length - 1]![2] as number;
    expect(Math.abs(fx / latest - 1)).toBeLessThan(0.02);
    expect(w.fx_rates[0]!.slice(0, 1)).toEqual(['USDKRW']);
    expect(w.fx_rates[0]![2]).toBe('demo');
  });

  it('makes 24h ticker figures consistent with prices and volumes Zipf-like', () => {
    const w = world();
    for (const row of w.kr_tickers) {
      const price = num(row, 'kr_tickers', 'price_krw');
      expect(num(row, 'kr_tickers', 'high_24h_krw')).toBeGreaterThanOrEqual(price);
      expect(num(row, 'kr_tickers', 'low_24h_krw')).toBeLessThanOrEqual(price);
      expect(time(row, 'kr_tickers', 'as_of')).toBe(NOW.getTime());
    }
    const upbit = w.kr_tickers.filter((r) => r[0] === 'upbit').sort((a, b) => (b[8] as number) - (a[8] as number));
    const top = upbit.slice(0, 8).map((r) => r[1]);
    for (const symbol of ['BTC', 'XRP', 'ETH', 'USDT']) expect(top).toContain(symbol);
    expect(num(upbit[upbit.length - 1]!, 'kr_tickers', 'volume_24h_krw')).toBeLessThan(2e8);
    const total = (exchange: string): number =>
      w.kr_tickers.filter((r) => r[0] === exchange).reduce((sum, r) => sum + num(r, 'kr_tickers', 'volume_24h_krw'), 0);
    expect(total('upbit')).toBeGreaterThan(total('bithumb'));
  });

  it('uses Upbit 00:00 UTC and Bithumb 00:00 KST as the previous close', () => {
    // At 16:00 UTC Bithumb's day (from 15:00 UTC) is one hour old; Upbit's is 16 hours old.
    const w = world(new Date('2026-11-20T16:00:00Z'));
    const key = (r: Row): string => String(r[1]);
    const up = new Map(w.kr_tickers.filter((r) => r[0] === 'upbit').map((r) => [key(r), r]));
    let differ = 0;
    for (const row of w.kr_tickers.filter((r) => r[0] === 'bithumb')) {
      const u = up.get(key(row));
      if (u && Math.abs(num(u, 'kr_tickers', 'prev_close_krw') / num(row, 'kr_tickers', 'prev_close_krw') - 1) > 0.01) differ++;
    }
    expect(differ).toBeGreaterThan(20);
  });
});

describe('koreaWorld candles', () => {
  it('returns the last 60 closed minutes with consistent OHLC and gaps on thin markets', () => {
    const w = world();
    const lastStart = NOW.getTime() - (NOW.getTime() % MINUTE) - MINUTE;
    const perMarket = new Map<string, number>();
    const problems: string[] = [];
    for (const row of w.candles_1m) {
      const minute = time(row, 'candles_1m', 'minute');
      const [open, high, low, close] = ['open_krw', 'high_krw', 'low_krw', 'close_krw'].map((c) => num(row, 'candles_1m', c)) as [
        number,
        number,
        number,
        number,
      ];
      const at = `${String(row[0])}:${String(row[1])}@${new Date(minute).toISOString()}`;
      if (minute % MINUTE !== 0 || minute > lastStart || minute <= lastStart - 60 * MINUTE) problems.push(`${at}: outside the window`);
      if (high < Math.max(open, close) || low > Math.min(open, close)) problems.push(`${at}: OHLC ${open} ${high} ${low} ${close}`);
      if (!(num(row, 'candles_1m', 'volume_base') > 0)) problems.push(`${at}: no volume`);
      const key = `${String(row[0])}:${String(row[1])}`;
      perMarket.set(key, (perMarket.get(key) ?? 0) + 1);
    }
    expect(problems.slice(0, 10)).toEqual([]);
    expect(perMarket.get('upbit:BTC')).toBe(60);
    expect([...perMarket.values()].filter((n) => n < 40).length).toBeGreaterThan(30);
  });

  it('plants 1-minute surges or crashes and volume spikes in the last 10 minutes', () => {
    for (const now of [NOW, new Date('2026-11-20T07:11:00Z'), new Date('2025-12-31T23:59:59Z'), new Date('2026-04-01T12:00:00Z')]) {
      const w = world(now);
      const since = now.getTime() - (now.getTime() % MINUTE) - 10 * MINUTE;
      const byMarket = new Map<string, Row[]>();
      for (const row of w.candles_1m) {
        const key = `${String(row[0])}:${String(row[1])}`;
        const list = byMarket.get(key) ?? [];
        list.push(row);
        byMarket.set(key, list);
      }
      let moves = 0;
      let spikes = 0;
      for (const rows of byMarket.values()) {
        rows.forEach((row, i) => {
          if (time(row, 'candles_1m', 'minute') < since) return;
          const change = num(row, 'candles_1m', 'close_krw') / num(row, 'candles_1m', 'open_krw') - 1;
          if (Math.abs(change) >= 0.02) moves++;
          const before = rows.slice(Math.max(0, i - 30), i);
          if (before.length >= 5) {
            const average = before.reduce((s, r) => s + num(r, 'candles_1m', 'volume_krw'), 0) / before.length;
            if (num(row, 'candles_1m', 'volume_krw') >= 5 * average) spikes++;
          }
        });
      }
      expect(moves, now.toISOString()).toBeGreaterThanOrEqual(1);
      expect(spikes, now.toISOString()).toBeGreaterThanOrEqual(1);
    }
  });

  it('multiplies the candle window with scale', () => {
    const w = koreaWorld({ seed: 42, now: NOW, scale: 3 });
    const btc = w.candles_1m.filter((r) => r[0] === 'upbit' && r[1] === 'BTC');
    expect(btc.length).toBe(180);
  });
});

describe('koreaWorld flags', () => {
  it('raises realistic counts of warnings, cautions and alerts on listed markets only', () => {
    const w = world();
    const count = (exchange: string, flag: string): number => w.market_flags.filter((r) => r[0] === exchange && r[2] === flag).length;
    for (const exchange of ['upbit', 'bithumb']) {
      expect(count(exchange, 'investment_warning')).toBeGreaterThanOrEqual(3);
      expect(count(exchange, 'investment_warning')).toBeLessThanOrEqual(18);
    }
    const gpd = count('upbit', 'caution:GLOBAL_PRICE_DIFFERENCES');
    expect(gpd).toBeGreaterThanOrEqual(12);
    for (const flag of [
      'caution:PRICE_FLUCTUATIONS',
      'caution:TRADING_VOLUME_SOARING',
      'caution:DEPOSIT_AMOUNT_SOARING',
      'caution:CONCENTRATION_OF_SMALL_ACCOUNTS',
    ]) {
      expect(count('upbit', flag)).toBeLessThan(gpd);
    }
    const listed = new Set(w.kr_markets.map((r) => `${String(r[0])}:${String(r[1])}`));
    const seen = new Set<string>();
    for (const row of w.market_flags) {
      const key = `${String(row[0])}:${String(row[1])}:${String(row[2])}`;
      expect(seen.has(key), key).toBe(false);
      seen.add(key);
      expect(listed.has(`${String(row[0])}:${String(row[1])}`)).toBe(true);
      const flag = str(row, 'market_flags', 'flag');
      if (row[0] === 'upbit') expect(flag).toMatch(/^(investment_warning|caution:[A-Z_]+)$/);
      else expect(flag).toMatch(/^(investment_warning|alert:[A-Z_]+)$/);
      if (flag.startsWith('alert:')) {
        const started = time(row, 'market_flags', 'started_at');
        const ends = time(row, 'market_flags', 'ends_at');
        expect(started).toBeLessThanOrEqual(NOW.getTime());
        expect(ends).toBeGreaterThan(NOW.getTime());
        expect(new Date(ends).getUTCSeconds()).toBe(59); // KST release like 06:59:59
      } else {
        expect(row[3]).toBeNull();
        expect(row[4]).toBeNull();
      }
    }
    expect(w.market_flags.some((r) => String(r[2]).startsWith('alert:'))).toBe(true);
  });
});

describe('koreaWorld macro_daily', () => {
  const w = world();
  const bySeries = new Map<string, Row[]>();
  for (const row of w.macro_daily) {
    const list = bySeries.get(row[0] as string) ?? [];
    list.push(row);
    bySeries.set(row[0] as string, list);
  }
  const today = NOW.toISOString().slice(0, 10);
  const twoYearsBack = new Date(NOW.getTime() - 731 * DAY).toISOString().slice(0, 10);
  const weekday = (date: string): number => new Date(`${date}T00:00:00Z`).getUTCDay();

  it('covers at least 731 days of every series, with no weekend rows', () => {
    expect([...bySeries.keys()].sort()).toEqual([
      'DEXKOUS',
      'DGS3',
      'KRX:000660:close',
      'KRX:000660:foreign_pct',
      'KRX:005930:close',
      'KRX:005930:foreign_pct',
      'VIXCLS',
    ]);
    for (const [series, rows] of bySeries) {
      const dates = rows.map((r) => r[1] as string);
      expect(dates[0]! <= twoYearsBack, series).toBe(true);
      expect(
        dates.every((d) => weekday(d) !== 0 && weekday(d) !== 6),
        series,
      ).toBe(true);
      expect([...dates].sort(), series).toEqual(dates);
      expect(dates[dates.length - 1]! <= today, series).toBe(true);
      if (!series.startsWith('KRX:')) expect(dates[dates.length - 1]! < today, series).toBe(true);
    }
  });

  it('leaves FRED holidays NULL and skips KRX holidays', () => {
    const dgs3 = bySeries.get('DGS3')!;
    expect(dgs3.find((r) => r[1] === '2025-12-25')?.[2]).toBeNull();
    expect(dgs3.find((r) => r[1] === '2025-07-04')?.[2]).toBeNull();
    expect(bySeries.get('VIXCLS')!.find((r) => r[1] === '2025-11-27')?.[2]).toBeNull(); // Thanksgiving
    const samsung = bySeries.get('KRX:005930:close')!;
    expect(samsung.some((r) => r[1] === '2025-10-06')).toBe(false); // Chuseok
    expect(samsung.some((r) => r[1] === '2026-01-01')).toBe(false);
    expect(samsung.length).toBeLessThan(dgs3.length);
    expect(samsung.every((r) => r[2] !== null)).toBe(true);
  });

  it('keeps levels realistic', () => {
    const values = (series: string): number[] =>
      bySeries
        .get(series)!
        .map((r) => r[2])
        .filter((v): v is number => v !== null);
    const within = (series: string, lo: number, hi: number): void => {
      const v = values(series);
      expect(Math.min(...v), series).toBeGreaterThanOrEqual(lo);
      expect(Math.max(...v), series).toBeLessThanOrEqual(hi);
    };
    within('DGS3', 3.3, 5.0);
    within('VIXCLS', 9, 85);
    within('DEXKOUS', 1300, 1480);
    within('KRX:005930:foreign_pct', 46, 58);
    within('KRX:000660:foreign_pct', 46, 58);
    within('KRX:005930:close', 30_000, 400_000);
    within('KRX:000660:close', 80_000, 2_500_000);
  });
});

describe('koreaWorld news_articles', () => {
  it('publishes Korean articles of every topic for the last three days, none after now', () => {
    const w = world();
    const ids = new Set<string>();
    for (const row of w.news_articles) {
      const id = str(row, 'news_articles', 'article_id');
      expect(ids.has(id)).toBe(false);
      ids.add(id);
      expect(id).toMatch(/^demo-(kpop|semiconductor|crypto)-\d{8}-\d{2}$/);
      expect(id.split('-')[1]).toBe(str(row, 'news_articles', 'topic'));
      expect(time(row, 'news_articles', 'published_at')).toBeLessThanOrEqual(NOW.getTime());
      expect(time(row, 'news_articles', 'published_at')).toBeGreaterThan(NOW.getTime() - 3 * DAY);
      expect(str(row, 'news_articles', 'url')).toMatch(/^https:\/\/demo\.invalid\/news\//);
      expect(str(row, 'news_articles', 'title_kr')).toMatch(/[가-힣]/);
      expect(str(row, 'news_articles', 'body_kr')).toMatch(/[가-힣]/);
      expect(str(row, 'news_articles', 'source_kr')).not.toBe('');
      expect(str(row, 'news_articles', 'title_en_ref')).toMatch(/^[\x20-\x7e]+$/);
      expect(str(row, 'news_articles', 'body_en_ref').length).toBeGreaterThan(40);
    }
    const yesterday = new Date(NOW.getTime() + 9 * 3_600_000 - DAY).toISOString().slice(0, 10).replaceAll('-', '');
    for (const [topic, least, most] of [
      ['kpop', 8, 15],
      ['semiconductor', 8, 15],
      ['crypto', 10, 16],
    ] as const) {
      const full = w.news_articles.filter((r) => String(r[0]).startsWith(`demo-${topic}-${yesterday}-`)).length;
      expect(full, topic).toBeGreaterThanOrEqual(least);
      expect(full, topic).toBeLessThanOrEqual(most);
    }
    const sources = new Set(w.news_articles.map((r) => str(r, 'news_articles', 'source_en')));
    expect(sources.has('Yonhap News Agency')).toBe(true);
    const cryptoSources = new Set(w.news_articles.filter((r) => r[1] === 'crypto').map((r) => str(r, 'news_articles', 'source_kr')));
    expect([...cryptoSources].some((s) => ['코인데스크코리아', '블록미디어', '디센터', '토큰포스트'].includes(s))).toBe(true);
  });

  it('attaches Korean particles by the final sound of the word', () => {
    expect(withParticle('삼성전자', '은/는')).toBe('삼성전자는');
    expect(withParticle('방탄소년단', '이/가')).toBe('방탄소년단이');
    expect(withParticle('마이크론', '과/와')).toBe('마이크론과');
    expect(withParticle('SK하이닉스', '을/를')).toBe('SK하이닉스를');
    expect(withParticle('서울', '으로/로')).toBe('서울로');
    expect(withParticle('NCT 127', '이/가')).toBe('NCT 127이');
  });
});

// ------------------------------------------------------------------ planted events

// market-movers' thresholds (pipelines/korea/datasets/market-movers.ts), restated: the demo world must meet them.
const MOVE_1M = 0.01;
const SPIKE_RATIO = 5;
const SPIKE_MIN_KRW = 1_000_000;
const MIN_TRAILING_MINUTES = 10;

interface LastMinuteMarket {
  symbol: string;
  /** Close of the last closed minute against the close before it (null: no earlier candle). */
  change: number | null;
  volumeKrw: number;
  /** Volume against the average per minute of the up to 60 minutes before (null: too little history). */
  ratio: number | null;
}

/** What market-movers reads from a world at `nowMs`: per exchange, its last closed minute and the markets that traded in it. */
function lastClosedMinute(w: Record<KoreaRawTable, Row[]>, nowMs: number): Map<string, { minute: number; markets: LastMinuteMarket[] }> {
  const out = new Map<string, { minute: number; markets: LastMinuteMarket[] }>();
  for (const exchange of ['upbit', 'bithumb']) {
    const closed = w.candles_1m.filter((r) => r[0] === exchange && time(r, 'candles_1m', 'minute') + MINUTE <= nowMs);
    const minutes = closed.map((r) => time(r, 'candles_1m', 'minute'));
    const last = Math.max(...minutes);
    const historyStart = Math.min(...minutes);
    const bySymbol = new Map<string, Row[]>();
    for (const row of closed) {
      const list = bySymbol.get(String(row[1])) ?? [];
      list.push(row);
      bySymbol.set(String(row[1]), list);
    }
    const markets: LastMinuteMarket[] = [];
    for (const [symbol, rows] of bySymbol) {
      const current = rows.find((r) => time(r, 'candles_1m', 'minute') === last);
      if (!current) continue;
      const before = rows.filter((r) => time(r, 'candles_1m', 'minute') < last);
      const previous = before[before.length - 1];
      const from = Math.max(last - 60 * MINUTE, historyStart);
      const trailingMinutes = (last - from) / MINUTE;
      const trailing = before
        .filter((r) => time(r, 'candles_1m', 'minute') >= from)
        .reduce((sum, r) => sum + num(r, 'candles_1m', 'volume_krw'), 0);
      const volumeKrw = num(current, 'candles_1m', 'volume_krw');
      markets.push({
        symbol,
        change: previous ? num(current, 'candles_1m', 'close_krw') / num(previous, 'candles_1m', 'close_krw') - 1 : null,
        volumeKrw,
        ratio: trailingMinutes >= MIN_TRAILING_MINUTES && trailing > 0 ? volumeKrw / (trailing / trailingMinutes) : null,
      });
    }
    out.set(exchange, { minute: last, markets });
  }
  return out;
}

const isMover = (m: LastMinuteMarket): boolean => m.change !== null && Math.abs(m.change) >= MOVE_1M;
const isSpike = (m: LastMinuteMarket): boolean => m.ratio !== null && m.ratio >= SPIKE_RATIO && m.volumeKrw >= SPIKE_MIN_KRW;

describe('koreaWorld planted market events', () => {
  // 30 consecutive refreshes, as npm start runs them (each at the start of a minute).
  const start = NOW.getTime() - (NOW.getTime() % MINUTE);
  let runs: { nowMs: number; last: ReturnType<typeof lastClosedMinute> }[] | null = null;
  const refreshes = (): NonNullable<typeof runs> => {
    runs ??= Array.from({ length: 30 }, (_, k) => {
      const nowMs = start + k * MINUTE;
      return { nowMs, last: lastClosedMinute(koreaWorld({ seed: 42, now: new Date(nowMs), scale: 1 }), nowMs) };
    });
    return runs;
  };

  it('has a 1 % mover on each exchange in the last closed minute of 30 consecutive minutes', () => {
    const missing: string[] = [];
    for (const { nowMs, last } of refreshes()) {
      for (const [exchange, { minute, markets }] of last) {
        expect(minute, exchange).toBe(nowMs - MINUTE);
        if (!markets.some(isMover)) missing.push(`${exchange} ${new Date(nowMs).toISOString()}`);
      }
    }
    expect(missing).toEqual([]);
  }, 120_000);

  it('moves both ways, a few markets a minute, with the volume to match', () => {
    const movers = refreshes().flatMap(({ last }) => [...last.values()].flatMap(({ markets }) => markets.filter(isMover)));
    expect(movers.length / 60).toBeGreaterThanOrEqual(1.5);
    expect(movers.filter((m) => m.change! > 0).length).toBeGreaterThanOrEqual(10);
    expect(movers.filter((m) => m.change! < 0).length).toBeGreaterThanOrEqual(10);
    expect(movers.some((m) => Math.abs(m.change!) >= 0.04)).toBe(true);
    // A planted move trades several times its usual volume.
    const heavy = movers.filter((m) => m.ratio !== null && m.ratio >= 2).length;
    expect(heavy / movers.length).toBeGreaterThan(0.7);
  }, 120_000);

  it('has volume spikes in the last closed minute of most of those minutes', () => {
    const withSpike = refreshes().flatMap(({ last }) => [...last.values()].map(({ markets }) => markets.some(isSpike)));
    expect(withSpike.filter(Boolean).length / withSpike.length).toBeGreaterThanOrEqual(0.8);
  }, 120_000);
});

describe('koreaWorld listing changes between runs', () => {
  interface Run {
    markets: Set<string>;
    tickers: Set<string>;
    candles: Set<string>;
    warnings: Set<string>;
  }
  const start = NOW.getTime() - (NOW.getTime() % MINUTE);
  let runs: Run[] | null = null;
  // Two hours of runs 10 minutes apart, kept small: the sets each test reads.
  const tenMinuteRuns = (): Run[] => {
    runs ??= Array.from({ length: 13 }, (_, k) => {
      const w = koreaWorld({ seed: 42, now: new Date(start + k * 10 * MINUTE), scale: 1 });
      const markets = (rows: Row[]): Set<string> => new Set(rows.map((r) => `${String(r[0])}:${String(r[1])}`));
      return {
        markets: marketsOf(w),
        tickers: markets(w.kr_tickers),
        candles: markets(w.candles_1m),
        warnings: markets(w.market_flags.filter((r) => r[2] === 'investment_warning')),
      };
    });
    return runs;
  };

  it('lists or delists a market on Upbit or Bithumb between any two runs 10 minutes apart', () => {
    const changes = { listed: new Set<string>(), delisted: new Set<string>() };
    const all = tenMinuteRuns();
    for (let k = 1; k < all.length; k++) {
      const [before, after] = [all[k - 1]!, all[k]!];
      const listed = [...after.markets].filter((m) => !before.markets.has(m));
      const delisted = [...before.markets].filter((m) => !after.markets.has(m));
      expect(listed.length + delisted.length, `run ${k}`).toBeGreaterThanOrEqual(1);
      for (const m of listed) {
        expect(after.tickers.has(m), m).toBe(true); // a new market trades at once
        changes.listed.add(m);
      }
      for (const m of delisted) {
        expect(after.tickers.has(m) || after.candles.has(m), m).toBe(false); // a delisted one stops trading
        changes.delisted.add(m);
      }
      for (const exchange of ['upbit', 'bithumb']) {
        for (const symbol of DIVERGENCE_SYMBOLS) expect(after.markets.has(`${exchange}:${symbol}`), `${exchange}:${symbol}`).toBe(true);
      }
    }
    for (const exchange of ['upbit', 'bithumb']) {
      expect(
        [...changes.listed].some((m) => m.startsWith(exchange)),
        `listing on ${exchange}`,
      ).toBe(true);
      expect(
        [...changes.delisted].some((m) => m.startsWith(exchange)),
        `delisting on ${exchange}`,
      ).toBe(true);
    }
    // Real tokens of the token table.
    const known = new Set(KOREA_TOKENS.map((t) => t.symbol));
    for (const m of [...changes.listed, ...changes.delisted]) expect(known.has(m.split(':')[1]!)).toBe(true);
  }, 120_000);

  it('warns a market before it is delisted, and designates and lifts warnings as runs go on', () => {
    const all = tenMinuteRuns();
    let designated = 0;
    let ended = 0;
    for (let k = 1; k < all.length; k++) {
      const [before, after] = [all[k - 1]!, all[k]!];
      for (const m of [...before.markets].filter((x) => !after.markets.has(x)))
        expect(before.warnings.has(m), `${m} warned before its delisting`).toBe(true);
      designated += [...after.warnings].filter((m) => !before.warnings.has(m)).length;
      ended += [...before.warnings].filter((m) => !after.warnings.has(m)).length;
    }
    expect(designated).toBeGreaterThanOrEqual(2);
    expect(ended).toBeGreaterThanOrEqual(2);
  }, 120_000);

  it('changes some market at least every 9 minutes, whatever the day', () => {
    for (const [seed, from] of [
      [42, NOW.getTime()],
      [7, Date.parse('2025-08-03T00:00:00Z')],
      [1, Date.parse('2027-03-01T12:00:00Z')],
    ] as const) {
      const to = from + 3 * DAY;
      const changes = new ListingCalendar(seed, from, to).changesBetween(from, to);
      expect(changes.length / 3, `${seed}`).toBeGreaterThan(250); // about one every 5 minutes
      const times = [from, ...changes.map((c) => c.atMs), to];
      const widest = Math.max(...times.slice(1).map((t, i) => t - times[i]!));
      expect(widest, `${seed}`).toBeLessThanOrEqual(9 * MINUTE);
      for (const change of changes) {
        expect(change.atMs % MINUTE).toBe(0);
        if (change.change === 'delisting') expect(change.warnedFromMs!).toBeLessThanOrEqual(change.atMs - 30 * MINUTE);
      }
      for (const exchange of ['upbit', 'bithumb'] as const) {
        expect(changes.some((c) => c.exchange === exchange && c.change === 'new_listing' && !c.relisting)).toBe(true);
        expect(changes.some((c) => c.exchange === exchange && c.change === 'delisting')).toBe(true);
      }
      // Majors, stablecoins and the 25 divergence symbols never change.
      expect(changes.filter((c) => c.token.core || (DIVERGENCE_SYMBOLS as readonly string[]).includes(c.token.symbol))).toEqual([]);
    }
  });
});

// ------------------------------------------------------------------ crypto news

const MONTH_NAMES = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];
const KOREAN_UNITS: Readonly<Record<string, number>> = { 조: 1e12, 억: 1e8, 천만: 1e7, 만: 1e4 };

/**
 * Numbers of the Korean text missing from the English at the same scale: amounts in 조/억/만
 * (1억2000만 원 = 120 million won), plain figures, months (11월 = November) and tokens like HBM4.
 */
function missingNumbers(kr: string, en: string): string[] {
  const latin = /[A-Za-z0-9]*[A-Za-z][A-Za-z0-9]*/g;
  const missing = (kr.match(latin) ?? []).filter((word) => /\d/.test(word) && !en.includes(word));
  const english: number[] = [];
  for (const m of en.matchAll(/(\d[\d,]*(?:\.\d+)?)(\s*(trillion|billion|million))?/g)) {
    const scale = m[3] === 'trillion' ? 1e12 : m[3] === 'billion' ? 1e9 : m[3] === 'million' ? 1e6 : 1;
    english.push(Number(m[1]!.replaceAll(',', '')) * scale);
  }
  for (const m of kr.replace(latin, ' ').matchAll(/((?:\d[\d,]*(?:\.\d+)?(?:조|억|천만|만))+(?:\d[\d,]*)?|\d[\d,]*(?:\.\d+)?)(월)?/g)) {
    if (m[2]) {
      if (!en.includes(MONTH_NAMES[Number(m[1]) - 1]!)) missing.push(`${m[1]}월`);
      continue;
    }
    let value = 0;
    for (const part of m[1]!.matchAll(/(\d[\d,]*(?:\.\d+)?)(조|억|천만|만)?/g))
      value += Number(part[1]!.replaceAll(',', '')) * (part[2] ? KOREAN_UNITS[part[2]]! : 1);
    if (!english.some((e) => Math.abs(e - value) <= 1e-9 * Math.max(1, value))) missing.push(m[1]!);
  }
  return missing;
}

describe('koreaWorld crypto news', () => {
  // Late in the KST day (23:37), so most of today's stories are out.
  const LATE = new Date('2026-11-20T14:37:25Z');
  const news = (): NewsArticle[] => koreaNews({ seed: 42, now: LATE, scale: 1 }).filter((a) => a.topic === 'crypto');
  const mentionsOf = (kinds: readonly NewsMention['kind'][]): { article: NewsArticle; mention: NewsMention }[] =>
    news().flatMap((article) => article.mentions.filter((m) => kinds.includes(m.kind)).map((mention) => ({ article, mention })));
  const hasMarket = (w: Record<KoreaRawTable, Row[]>, m: NewsMention): boolean => marketsOf(w).has(`${m.exchange}:${m.symbol}`);
  const warned = (w: Record<KoreaRawTable, Row[]>, m: NewsMention): boolean =>
    w.market_flags.some((r) => r[0] === m.exchange && r[1] === m.symbol && r[2] === 'investment_warning');

  it('mostly reports what the world does, each kind of event', () => {
    const articles = news();
    expect(articles.filter((a) => a.mentions.length > 0).length / articles.length).toBeGreaterThan(0.6);
    const kinds = new Set(articles.flatMap((a) => a.mentions.map((m) => m.kind)));
    for (const kind of ['surge', 'crash', 'new_listing', 'delisting', 'investment_warning', 'kimchi_premium'] as const)
      expect(kinds.has(kind), kind).toBe(true);
    for (const { article, mention } of mentionsOf(['surge', 'crash', 'new_listing', 'delisting', 'investment_warning', 'volume_spike'])) {
      const token = KOREA_TOKENS.find((t) => t.symbol === mention.symbol)!;
      expect(article.titleKr, article.articleId).toContain(`${token.koreanName}(${token.symbol})`);
      expect(article.titleEn, article.articleId).toContain(token.symbol);
    }
  });

  it('quotes the candle of each planted surge or crash, after it closed', () => {
    const moves = mentionsOf(['surge', 'crash']).slice(0, 4);
    expect(moves.length).toBeGreaterThanOrEqual(2);
    for (const { article, mention } of moves) {
      expect(article.publishedAt.getTime()).toBeGreaterThanOrEqual(mention.atMs + MINUTE);
      const candle = world(new Date(mention.atMs + 5 * MINUTE)).candles_1m.find(
        (r) => r[0] === mention.exchange && r[1] === mention.symbol && time(r, 'candles_1m', 'minute') === mention.atMs,
      );
      expect(candle, article.titleKr).toBeDefined();
      const pct = Math.round((num(candle!, 'candles_1m', 'close_krw') / num(candle!, 'candles_1m', 'open_krw') - 1) * 1000) / 10;
      expect(pct, article.titleKr).toBe(mention.value);
      expect(Math.abs(pct)).toBeGreaterThanOrEqual(1);
      expect(`${article.titleKr} ${article.bodyKr}`).toContain(`${Math.abs(pct)}%`);
    }
  }, 120_000);

  it('announces listings and delistings that the market lists then show, before they happen', () => {
    const announced = [
      ...mentionsOf(['new_listing']).slice(0, 2),
      ...mentionsOf(['delisting']).slice(0, 2),
      ...mentionsOf(['relisting']).slice(0, 1),
    ];
    expect(announced.length).toBeGreaterThanOrEqual(3);
    for (const { article, mention } of announced) {
      expect(article.publishedAt.getTime()).toBeLessThan(mention.atMs);
      expect(mention.atMs - article.publishedAt.getTime()).toBeLessThanOrEqual(DAY);
      const before = world(new Date(mention.atMs - MINUTE));
      const after = world(new Date(mention.atMs + MINUTE));
      const opens = mention.kind !== 'delisting';
      expect(hasMarket(before, mention), article.titleKr).toBe(!opens);
      expect(hasMarket(after, mention), article.titleKr).toBe(opens);
      // A delisted market was under investment warning when the delisting was announced.
      if (!opens) expect(warned(world(new Date(article.publishedAt.getTime())), mention), article.titleKr).toBe(true);
    }
  }, 120_000);

  it('reports warnings and premiums as the flags and tickers show them', () => {
    for (const { article, mention } of mentionsOf(['investment_warning', 'warning_lifted']).slice(0, 2)) {
      expect(article.publishedAt.getTime()).toBeGreaterThan(mention.atMs);
      const designated = mention.kind === 'investment_warning';
      expect(warned(world(new Date(mention.atMs - MINUTE)), mention), article.titleKr).toBe(!designated);
      expect(warned(world(new Date(mention.atMs + MINUTE)), mention), article.titleKr).toBe(designated);
    }
    const premiums = mentionsOf(['kimchi_premium', 'usdt_premium']);
    expect(premiums.length).toBeGreaterThanOrEqual(1);
    for (const { article, mention } of premiums.slice(0, 2)) {
      const w = world(new Date(mention.atMs));
      const fx = fxRate(w);
      const price = num(ticker(w, mention.exchange, mention.symbol), 'kr_tickers', 'price_krw');
      // kimchi-premium's and stablecoin-premium's formulas on the rows a run at that minute reads.
      const premium = mention.kind === 'kimchi_premium' ? price / fx / globalPrice(w, 'BTC') - 1 : price / fx - 1;
      expect(Math.round(premium * 1000) / 10, article.titleKr).toBe(mention.value);
      expect(article.titleKr).toContain(`${mention.value}%`);
    }
  }, 120_000);

  it('states every number of the Korean text in the English, at the same scale', () => {
    const problems: string[] = [];
    for (const [now, seed] of [
      [NOW, 42],
      [LATE, 42],
      [new Date('2025-08-03T17:05:00Z'), 42],
      [NOW, 43],
    ] as const) {
      for (const row of world(now, seed).news_articles) {
        for (const [kr, en] of [
          ['title_kr', 'title_en_ref'],
          ['body_kr', 'body_en_ref'],
        ] as const) {
          const missing = missingNumbers(str(row, 'news_articles', kr), str(row, 'news_articles', en));
          if (missing.length > 0) problems.push(`${String(row[0])} ${kr}: ${missing.join(', ')}`);
        }
      }
    }
    expect(problems.slice(0, 10)).toEqual([]);
    // The checker itself: scaled amounts pass, a wrong scale does not.
    expect(
      missingNumbers(
        '거래대금 1억2000만 원, 450억 원, 1조 원, 11월 24일',
        'trading value of 120 million won, 45 billion won, 1 trillion won, November 24',
      ),
    ).toEqual([]);
    expect(missingNumbers('450억 원', '450 million won')).toEqual(['450억']);
  }, 120_000);

  it('never publishes after now, and never rewrites an article when now moves on', () => {
    const early = koreaNews({ seed: 42, now: NOW, scale: 1 });
    const later = new Map(news().map((a) => [a.articleId, a]));
    for (const article of early) {
      expect(article.publishedAt.getTime()).toBeLessThanOrEqual(NOW.getTime());
      if (article.topic === 'crypto' && later.has(article.articleId)) expect(later.get(article.articleId)).toEqual(article);
    }
    for (const article of news()) {
      expect(article.publishedAt.getTime()).toBeLessThanOrEqual(LATE.getTime());
      for (const m of article.mentions) {
        // Reports come after the event, announcements before it, quotes in the minute they quote.
        if (['new_listing', 'delisting', 'relisting'].includes(m.kind)) expect(article.publishedAt.getTime()).toBeLessThan(m.atMs);
        else expect(article.publishedAt.getTime()).toBeGreaterThanOrEqual(m.atMs);
      }
    }
    expect(koreaNews({ seed: 42, now: LATE, scale: 1 })).toEqual(koreaNews({ seed: 42, now: LATE, scale: 1 }));
  });
});
