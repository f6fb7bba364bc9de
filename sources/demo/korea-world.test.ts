import { describe, it, expect } from 'vitest';
import { RAW_TABLES } from '../raw-tables.ts';
import type { Row } from './world.ts';
import { DIVERGENCE_SYMBOLS, KOREA_TOKENS, koreaWorld, type KoreaRawTable } from './korea-world.ts';
import { roundKrw } from './korea-prices.ts';
import { withParticle } from './korea-news.ts';

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
  'kr_markets', 'kr_tickers', 'global_prices', 'fx_rates', 'candles_1m', 'market_flags', 'macro_daily', 'news_articles',
];
const NULLABLE: Readonly<Record<string, readonly string[]>> = {
  market_flags: ['started_at', 'ends_at'],
  macro_daily: ['value'],
};

function column(table: KoreaRawTable, name: string): number {
  const index = RAW_TABLES[table].columns.findIndex(([c]) => c === name);
  if (index < 0) throw new Error(`no column ${table}.${name}`);
  return index;
}

const cell = <T,>(row: Row, table: KoreaRawTable, name: string): T => row[column(table, name)] as T;
const num = (row: Row, table: KoreaRawTable, name: string): number => cell<number>(row, table, name);
const str = (row: Row, table: KoreaRawTable, name: string): string => cell<string>(row, table, name);
const time = (row: Row, table: KoreaRawTable, name: string): number => cell<Date>(row, table, name).getTime();

function symbolsOn(w: Record<KoreaRawTable, Row[]>, exchange: string): Set<string> {
  return new Set(w.kr_markets.filter((r) => r[0] === exchange).map((r) => str(r, 'kr_markets', 'symbol')));
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
    expect(a.news_articles.map((r) => r[6])).not.toEqual(b.news_articles.map((r) => r[6]));
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
          else if (type === 'DATE' && !(typeof value === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(value))) problems.push(`${at}: not YYYY-MM-DD`);
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
      'BTC', 'ETH', 'XRP', 'SOL', 'ADA', 'DOGE', 'DOT', 'MATIC', 'LINK', 'AVAX', 'ATOM', 'UNI', 'LTC',
      'NEAR', 'OP', 'ARB', 'APT', 'ALGO', 'FTM', 'SUI', 'TRX', 'BCH', 'ETC', 'HBAR', 'SHIB',
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
    expect(tickers).toEqual(markets);
    const marketSet = new Set(markets);
    for (const row of w.candles_1m) expect(marketSet.has(`${String(row[0])}:${String(row[1])}`)).toBe(true);
  });
});

describe('koreaWorld time consistency', () => {
  it('gives a minute the same candle whatever `now` covers it', () => {
    const later = new Date(NOW.getTime() + 25 * MINUTE + 13_000);
    const key = (r: Row): string => `${String(r[0])}:${String(r[1])}:${(r[2] as Date).toISOString()}`;
    const early = new Map(world(NOW).candles_1m.map((r) => [key(r), r]));
    const overlap = world(later).candles_1m.filter((r) => early.has(key(r)));
    expect(overlap.length).toBeGreaterThan(3000);
    for (const row of overlap) expect(row).toEqual(early.get(key(row)));
    // And the overlapping window holds the same set of candles (gaps included).
    const firstLater = (later.getTime() - (later.getTime() % MINUTE)) - 60 * MINUTE;
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
      const gap = num(ticker(w, 'upbit', 'BTC'), 'kr_tickers', 'price_krw') / num(ticker(w, 'bithumb', 'BTC'), 'kr_tickers', 'price_krw') - 1;
      expect(Math.abs(gap)).toBeLessThan(0.01);
    }
  });

  it('prices stablecoins at the FX rate plus a small premium', () => {
    const w = world();
    const fx = fxRate(w);
    for (const [exchange, symbol] of [['upbit', 'USDT'], ['bithumb', 'USDT'], ['upbit', 'USDC']] as const) {
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
      const [open, high, low, close] = ['open_krw', 'high_krw', 'low_krw', 'close_krw'].map((c) => num(row, 'candles_1m', c)) as [number, number, number, number];
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
    for (const flag of ['caution:PRICE_FLUCTUATIONS', 'caution:TRADING_VOLUME_SOARING', 'caution:DEPOSIT_AMOUNT_SOARING', 'caution:CONCENTRATION_OF_SMALL_ACCOUNTS']) {
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
      'DEXKOUS', 'DGS3', 'KRX:000660:close', 'KRX:000660:foreign_pct', 'KRX:005930:close', 'KRX:005930:foreign_pct', 'VIXCLS',
    ]);
    for (const [series, rows] of bySeries) {
      const dates = rows.map((r) => r[1] as string);
      expect(dates[0]! <= twoYearsBack, series).toBe(true);
      expect(dates.every((d) => weekday(d) !== 0 && weekday(d) !== 6), series).toBe(true);
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
    const values = (series: string): number[] => bySeries.get(series)!.map((r) => r[2]).filter((v): v is number => v !== null);
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
  it('publishes Korean articles of both topics for the last three days, none after now', () => {
    const w = world();
    const ids = new Set<string>();
    for (const row of w.news_articles) {
      const id = str(row, 'news_articles', 'article_id');
      expect(ids.has(id)).toBe(false);
      ids.add(id);
      expect(id).toMatch(/^demo-(kpop|semiconductor)-\d{8}-\d{2}$/);
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
    for (const topic of ['kpop', 'semiconductor']) {
      const full = w.news_articles.filter((r) => String(r[0]).startsWith(`demo-${topic}-${yesterday}-`)).length;
      expect(full, topic).toBeGreaterThanOrEqual(8);
      expect(full, topic).toBeLessThanOrEqual(15);
    }
    const sources = new Set(w.news_articles.map((r) => r[5]));
    expect(sources.has('Yonhap News Agency')).toBe(true);
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
