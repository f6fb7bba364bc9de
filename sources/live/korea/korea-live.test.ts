import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadSettings } from '../../../lib/config.ts';
import { koreaPipeline } from '../../../pipelines/korea/index.ts';
import type { ProgressSink } from '../../../pipelines/progress.ts';
import { runPipeline } from '../../../pipelines/runner.ts';
import { loadLatest } from '../../../snapshots/reader.ts';
import { queryJson } from '../../../lib/duckdb.ts';
import { testContext, type TestContext } from '../testing/context.ts';
import {
  KOREA_FIXTURE_NOW,
  koreaFixture,
  recordedReply,
  startKoreaUpstreams,
  type KoreaUpstreamWorld,
  type WorldRequest,
} from '../testing/korea-upstreams.ts';
import { isBookPath } from '../testing/korea-upstreams.ts';
import { ingestFailureReason, koreaLiveIngestSteps, type KoreaLiveOverrides } from './index.ts';
import { rowsOf } from '../../contract.ts';

const NO_WAIT: KoreaLiveOverrides = { upstream: { sleep: async () => {} } };
const MINUTE = 60_000;
const DAY = 86_400_000;

let world: KoreaUpstreamWorld;
let t: TestContext;
beforeEach(async () => {
  world = await startKoreaUpstreams();
  t = await testContext();
});
afterEach(async () => {
  await world.close();
  t.warehouse.close();
});

interface RunOutcome {
  /** Rows per step, or its error message. */
  steps: Record<string, number | string>;
  seconds: number;
  requests: WorldRequest[];
}

/** One run of the live ingest steps as the runner does it: drop their tables, run each in order. */
async function ingest(now: Date = KOREA_FIXTURE_NOW, overrides: KoreaLiveOverrides = NO_WAIT): Promise<RunOutcome> {
  world.reset();
  const ctx = t.at(now);
  const steps = koreaLiveIngestSteps(loadSettings({ ...world.env }), overrides);
  for (const step of steps) for (const table of step.tables) await t.warehouse.connection.run(`DROP TABLE IF EXISTS ${table}`);
  const out: Record<string, number | string> = {};
  const t0 = performance.now();
  for (const step of steps) {
    try {
      out[step.name] = rowsOf(await step.run(ctx));
    } catch (err) {
      out[step.name] = (err as Error).message;
    }
  }
  return { steps: out, seconds: (performance.now() - t0) / 1000, requests: world.requests() };
}

const rows = (sql: string) => queryJson(t.warehouse.connection, sql);
const count = async (sql: string) => Number((await rows(`SELECT count(*)::INTEGER AS n FROM (${sql})`))[0]!.n);
// the market budget: the executable premium's books are counted apart (steps/books.ts)
const budgeted = (r: RunOutcome) => r.requests.filter((q) => !q.backfill && !isBookPath(q.path)).length;
const paths = (r: RunOutcome, upstream: WorldRequest['upstream']) => r.requests.filter((q) => q.upstream === upstream).map((q) => q.path);

describe('koreaLiveIngestSteps against the recorded upstreams', () => {
  it('declares one step per upstream, each with the raw tables it (re)creates', () => {
    const steps = koreaLiveIngestSteps(loadSettings({}));
    expect(steps.map((s) => [s.name, s.tables])).toEqual([
      ['ingest:upbit', ['kr_markets', 'market_flags', 'kr_tickers', 'ingest_failures', 'ingest_skipped_rows']],
      ['ingest:bithumb', ['kr_markets', 'market_flags', 'kr_tickers', 'bithumb_alert_steps']],
      ['ingest:coinone', ['kr_tickers']],
      ['ingest:korbit', ['kr_tickers']],
      ['ingest:global_prices', ['global_prices']],
      ['ingest:fx_rates', ['fx_rates']],
      ['ingest:macro_daily', ['macro_daily']],
      ['ingest:candles_1m', ['candles_1m']],
      ['ingest:order_books', ['order_books', 'wallet_status']],
    ]);
  });

  it('fills every market raw table in one run within 5 s and 15 requests, the macro backfill excluded', async () => {
    const run = await ingest(KOREA_FIXTURE_NOW, {}); // real pacing and real sleeps
    expect(run.seconds).toBeLessThan(5);
    expect(run.steps).toEqual({
      'ingest:upbit': 66, // 30 markets + 6 flags + 30 tickers
      'ingest:bithumb': 68, // 29 markets + 6 flags + 29 tickers + 4 alert steps
      'ingest:coinone': 7, // 8 tickers, one without a last price skipped
      'ingest:korbit': 7, // 8 tickers, one never traded skipped
      'ingest:global_prices': 56, // Binance 29 + OKX 27
      'ingest:fx_rates': 1,
      'ingest:macro_daily': 3646,
      'ingest:candles_1m': 295,
      'ingest:order_books': 759, // 5 symbols on 5 venues, and the wallets of Bithumb, Coinone and Korbit
    });
    // The budget: Upbit 2 + Bithumb 3 + Coinone 1 + Korbit 1 + Binance 1 + OKX 1 + Dunamu 1 + 5 candle markets = 15;
    // FRED 3 + Naver 2 are the backfill.
    expect(budgeted(run)).toBe(15);
    // The executable premium's books apart: Upbit 1 + Bithumb 1 + Coinone 5 + Korbit 5 + Binance 5 books, wallets 4 = 21.
    expect(world.counts()).toMatchObject({ total: 41, backfill: 5, books: 21, budgeted: 15 });
    expect(paths(run, 'upbit').filter((p) => p.startsWith('/v1/candles'))).toHaveLength(5);

    expect(await rows(`SELECT exchange, count(*)::INTEGER AS n, min(source) AS source FROM kr_tickers GROUP BY ALL ORDER BY 1`)).toEqual([
      { exchange: 'bithumb', n: 29, source: 'live' },
      { exchange: 'coinone', n: 7, source: 'live' },
      { exchange: 'korbit', n: 7, source: 'live' },
      { exchange: 'upbit', n: 30, source: 'live' },
    ]);
    // Korbit says when each pair last traded; Coinone does not.
    expect(
      await rows(`SELECT exchange, price_krw, strftime(last_trade_at, '%H:%M:%S') AS traded FROM kr_tickers
                   WHERE symbol = 'BTC' AND exchange IN ('coinone', 'korbit') ORDER BY 1`),
    ).toEqual([
      { exchange: 'coinone', price_krw: 91180000, traded: null },
      { exchange: 'korbit', price_krw: 91160000, traded: '07:41:02' },
    ]);
    expect(await rows(`SELECT rate, provider, strftime(as_of, '%Y-%m-%dT%H:%M:%SZ') AS as_of, source FROM fx_rates`)).toEqual([
      { rate: 1387.5, provider: 'dunamu', as_of: '2026-07-30T07:40:12Z', source: 'live' },
    ]);
    expect(await rows(`SELECT symbol, price_usd, venue FROM global_prices WHERE symbol IN ('BTC', 'WAVES') ORDER BY venue`)).toEqual([
      { symbol: 'BTC', price_usd: 65300, venue: 'binance' },
      { symbol: 'BTC', price_usd: 65266, venue: 'okx' },
    ]);
    // Candles of the top 5 markets by 24h KRW turnover, stablecoins aside; the open 07:41 minute is left out.
    expect(
      await rows(`SELECT symbol, count(*)::INTEGER AS n, strftime(max(minute), '%H:%M') AS last FROM candles_1m GROUP BY ALL ORDER BY 1`),
    ).toEqual([
      { symbol: 'BTC', n: 59, last: '07:40' },
      { symbol: 'DOGE', n: 59, last: '07:40' },
      { symbol: 'ETH', n: 59, last: '07:40' },
      { symbol: 'SOL', n: 59, last: '07:40' },
      { symbol: 'XRP', n: 59, last: '07:40' },
    ]);
    expect(await rows(`SELECT exchange, flag, count(*)::INTEGER AS n FROM market_flags GROUP BY ALL ORDER BY 1, 2`)).toEqual([
      { exchange: 'bithumb', flag: 'alert:DEPOSIT_AMOUNT_SUDDEN_FLUCTUATION', n: 1 },
      { exchange: 'bithumb', flag: 'alert:SPECIFIC_ACCOUNT_HIGH_TRANSACTION', n: 1 },
      { exchange: 'bithumb', flag: 'alert:TRADING_VOLUME_SUDDEN_FLUCTUATION', n: 2 },
      { exchange: 'bithumb', flag: 'investment_warning', n: 2 },
      { exchange: 'upbit', flag: 'caution:CONCENTRATION_OF_SMALL_ACCOUNTS', n: 1 },
      { exchange: 'upbit', flag: 'caution:GLOBAL_PRICE_DIFFERENCES', n: 1 },
      { exchange: 'upbit', flag: 'caution:PRICE_FLUCTUATIONS', n: 1 },
      { exchange: 'upbit', flag: 'caution:TRADING_VOLUME_SOARING', n: 1 },
      { exchange: 'upbit', flag: 'investment_warning', n: 2 },
    ]);
    expect(await rows(`SELECT symbol, step FROM bithumb_alert_steps ORDER BY symbol, step`)).toEqual([
      { symbol: 'KAIA', step: 'CAUTION' },
      { symbol: 'OBSR', step: 'DANGER' },
      { symbol: 'OBSR', step: 'WARNING' },
      { symbol: 'ZIL', step: 'DANGER' },
    ]);
    expect(await count(`SELECT * FROM ingest_failures`)).toBe(0);
  });

  it('keeps the OKX prices alone when Binance answers 451, within the budget', async () => {
    world.fault('binance', '/api/v3/ticker/24hr', recordedReply('binance-451.json'));
    const run = await ingest();
    expect(run.steps['ingest:global_prices']).toBe(27); // OKX lists fewer of the pairs
    expect(await rows(`SELECT DISTINCT venue FROM global_prices`)).toEqual([{ venue: 'okx' }]);
    expect(paths(run, 'binance')).toHaveLength(1); // a 451 is not retried
    expect(paths(run, 'okx')).toEqual(['/api/v5/market/tickers']);
    const [failure] = await rows(`SELECT upstream, error FROM ingest_failures WHERE upstream = 'binance'`);
    expect(String(failure!.error)).toMatch(
      /^binance: GET .*\/api\/v3\/ticker\/24hr\?type=MINI failed with HTTP 451: .*restricted location/,
    );
    expect(run.steps['ingest:candles_1m']).toBe(295); // a 451 is not retried: the candles keep their 5 markets
    expect(budgeted(run)).toBe(15);
  });

  it('leaves global_prices empty, with both reasons, when OKX fails too', async () => {
    world.fault('binance', '/api/v3/ticker/24hr', recordedReply('binance-451.json'));
    world.fault('okx', '/api/v5/market/tickers', { json: { code: '50011', msg: 'Too Many Requests', data: [] } });
    const run = await ingest();
    expect(run.steps['ingest:global_prices']).toMatch(
      /^global prices unavailable: binance: .*HTTP 451.*; okx: GET .* answered code 50011: Too Many Requests$/,
    );
    expect(await count(`SELECT * FROM global_prices`)).toBe(0);
    expect(await ingestFailureReason(t.warehouse.connection, ['binance', 'okx'])).toMatch(/^binance: .*HTTP 451.*; okx: .*code 50011/);
    expect(run.steps['ingest:upbit']).toBe(66);
  });

  it('falls back to er-api when Dunamu fails', async () => {
    world.fault('fx', '/v1/forex/recent', { status: 503, text: 'Service Unavailable' });
    const run = await ingest();
    expect(run.steps['ingest:fx_rates']).toBe(1);
    expect(await rows(`SELECT rate, provider, strftime(as_of, '%Y-%m-%dT%H:%M:%SZ') AS as_of FROM fx_rates`)).toEqual([
      { rate: 1386.12, provider: 'er-api', as_of: '2026-07-30T00:00:01Z' },
    ]);
    expect(paths(run, 'fx')).toEqual(['/v1/forex/recent', '/v1/forex/recent', '/v6/latest/USD']); // one retry, then the fallback
    expect(await rows(`SELECT upstream FROM ingest_failures ORDER BY 1`)).toEqual([{ upstream: 'dunamu' }]);
  });

  it('an upstream answering 500 leaves its rows empty and the others filled', async () => {
    world.fault('upbit', '/v1/ticker/all', { status: 500, json: { error: { name: 'server_error', message: 'Internal Server Error' } } });
    const run = await ingest();
    expect(run.steps['ingest:upbit']).toMatch(/^upbit: GET .*\/v1\/ticker\/all\?quote_currencies=KRW failed after 3 attempts: HTTP 500/);
    // The tables exist; Upbit's prices are missing, its market list (another call, which answered) and Bithumb's rows are there.
    expect(await rows(`SELECT exchange, count(*)::INTEGER AS n FROM kr_tickers GROUP BY ALL ORDER BY 1`)).toEqual([
      { exchange: 'bithumb', n: 29 },
      { exchange: 'coinone', n: 7 },
      { exchange: 'korbit', n: 7 },
    ]);
    expect(await rows(`SELECT exchange, count(*)::INTEGER AS n FROM kr_markets GROUP BY ALL ORDER BY 1`)).toEqual([
      { exchange: 'bithumb', n: 29 },
      { exchange: 'upbit', n: 30 },
    ]);
    expect(await count(`SELECT * FROM market_flags WHERE exchange = 'upbit'`)).toBe(6);
    expect(await rows(`SELECT upstream FROM ingest_failures WHERE upstream LIKE 'upbit%' ORDER BY 1`)).toEqual([{ upstream: 'upbit' }]);
    expect(run.steps['ingest:global_prices']).toBe(56);
    expect(run.steps['ingest:fx_rates']).toBe(1);
    expect(run.steps['ingest:macro_daily']).toBe(3646);
    // Candles need the Upbit tickers to choose markets: that step fails with the reason, and asks nothing.
    expect(run.steps['ingest:candles_1m']).toMatch(
      /^candles:upbit: no Upbit tickers in this run .*\(upbit: GET .* failed after 3 attempts: HTTP 500/,
    );
    expect(paths(run, 'upbit').filter((p) => p.startsWith('/v1/candles'))).toEqual([]);
    expect(await count(`SELECT * FROM candles_1m`)).toBe(0);
    const reason = await ingestFailureReason(t.warehouse.connection, ['upbit']);
    expect(reason).toMatch(/^upbit: GET .*ticker\/all.* HTTP 500/);
  });

  it('retries an Upbit 429 (Remaining-Req sec=0) and fills the tables', async () => {
    world.fault('upbit', '/v1/ticker/all', [recordedReply('upbit-429.json'), { json: koreaFixture('upbit-ticker-all-krw.json') }]);
    const run = await ingest();
    expect(run.steps['ingest:upbit']).toBe(66);
    expect(paths(run, 'upbit').filter((p) => p === '/v1/ticker/all')).toHaveLength(2);
    expect(t.logs).toContain('upbit: 3 requests (1 retries)');
  });

  it('stops calling Upbit after a 418 until the cool-off ends', async () => {
    world.fault('upbit', '/v1/ticker/all', recordedReply('upbit-418.json'));
    const first = await ingest();
    expect(first.steps['ingest:upbit']).toMatch(
      /^upbit: GET .*\/v1\/ticker\/all\?quote_currencies=KRW failed with HTTP 418: Too many API requests\.; Upbit banned this IP for exceeding the rate limit: no Upbit request until 2026-07-30T07:46:05\.000Z$/,
    );
    expect(paths(first, 'upbit').filter((p) => p === '/v1/ticker/all')).toHaveLength(1); // never retried
    expect(first.steps['ingest:candles_1m']).toMatch(/^upbit: not called until 2026-07-30T07:46:05Z: Upbit answered HTTP 418/);
    expect(first.steps['ingest:bithumb']).toBe(68);

    world.heal();
    const during = await ingest(new Date(KOREA_FIXTURE_NOW.getTime() + 2 * MINUTE));
    expect(paths(during, 'upbit')).toEqual([]);
    expect(during.steps['ingest:upbit']).toMatch(/^upbit: not called until 2026-07-30T07:46:05Z/);

    const after = await ingest(new Date(KOREA_FIXTURE_NOW.getTime() + 6 * MINUTE));
    expect(after.steps['ingest:upbit']).toBe(66);
  });

  it('reports Bithumb status 5600 (HTTP 200) as the Bithumb failure, Upbit unaffected', async () => {
    world.fault('bithumb', '/public/ticker/ALL_KRW', recordedReply('bithumb-5600.json'));
    const run = await ingest();
    expect(run.steps['ingest:bithumb']).toMatch(
      /^bithumb: GET .*\/public\/ticker\/ALL_KRW answered HTTP 200 with status 5600 \("Too many connections"\)/,
    );
    expect(await rows(`SELECT DISTINCT exchange FROM kr_tickers ORDER BY 1`)).toEqual([
      { exchange: 'coinone' },
      { exchange: 'korbit' },
      { exchange: 'upbit' },
    ]);
    // the market list and the alerts are other calls: they answered and are kept
    expect(await count(`SELECT * FROM kr_markets WHERE exchange = 'bithumb'`)).toBe(29);
    expect(await count(`SELECT * FROM bithumb_alert_steps`)).toBe(4);
    expect(await rows(`SELECT upstream FROM ingest_failures ORDER BY 1`)).toEqual([{ upstream: 'bithumb' }]);
  });

  it('skips and counts a row Binance, OKX or Naver cannot read, keeps the rest, and reads a Dunamu quote by its fields', async () => {
    const binance = koreaFixture<Array<Record<string, unknown>>>('binance-ticker-24hr-mini.json');
    world.fault('binance', '/api/v3/ticker/24hr', {
      json: [...binance, { symbol: 'BADUSDT', lastPrice: 'NaN', quoteVolume: '1', closeTime: 1785397264820, count: 1 }],
    });
    const header = ` [['날짜', '시가', '고가', '저가', '종가', '거래량', '외국인소진율'],`;
    world.fault('naver', '/siseJson.naver', {
      text: `${header}\n["20260728", 1, 1, 1, 262500, 10, 46.7],\n["2026-07-29", 1, 1, 1, "closed", 10, 46.8],\n["20260729", 1, 1, 1, 263000, 10, 46.9]\n]\n`,
    });
    // an undocumented API: a quote with no `timestamp` and no `currencyUnit` is read by its date and time (KST)
    world.fault('fx', '/v1/forex/recent', { json: [{ code: 'FRX.KRWUSD', basePrice: 1387.5, date: '2026-07-30', time: '16:40:12' }] });
    const run = await ingest();
    expect(run.steps['ingest:global_prices']).toBe(56);
    expect(await rows(`SELECT upstream, list, skipped, total, problems FROM ingest_skipped_rows ORDER BY 1`)).toEqual([
      {
        upstream: 'binance',
        list: 'tickers',
        skipped: 1,
        total: 34,
        problems: 'BADUSDT: lastPrice: expected a decimal number in a string',
      },
      // the recorded Coinone and Korbit answers each hold a pair listed but never priced
      { upstream: 'coinone', list: 'tickers', skipped: 1, total: 8, problems: 'newt: last: expected a decimal number, got ""' },
      {
        upstream: 'korbit',
        list: 'tickers',
        skipped: 1,
        total: 8,
        problems: 'newt_krw: close: expected a positive price; lastTradedAt: expected epoch milliseconds, got null',
      },
      { upstream: 'naver:000660', list: 'observations', skipped: 1, total: 3, problems: expect.stringMatching(/^row 2 is not \[yyyyMMdd/) },
      { upstream: 'naver:005930', list: 'observations', skipped: 1, total: 3, problems: expect.stringMatching(/^row 2 is not \[yyyyMMdd/) },
    ]);
    expect(t.logs).toContain(
      'binance: skipped 1 of 34 tickers that could not be read (BADUSDT: lastPrice: expected a decimal number in a string)',
    );
    expect(await count(`SELECT * FROM macro_history WHERE series = 'KRX:005930:close'`)).toBe(2);
    expect(await rows(`SELECT rate, strftime(as_of, '%Y-%m-%dT%H:%M:%SZ') AS as_of FROM fx_rates`)).toEqual([
      { rate: 1387.5, as_of: '2026-07-30T07:40:12Z' },
    ]);
    expect(await count(`SELECT * FROM ingest_failures`)).toBe(0);

    world.heal();
    world.fault('binance', '/api/v3/ticker/24hr', recordedReply('binance-451.json'));
    const okx = koreaFixture<{ code: string; data: Array<Record<string, unknown>> }>('okx-market-tickers-spot.json');
    world.fault('okx', '/api/v5/market/tickers', {
      json: { ...okx, data: [...okx.data, { instId: 'BAD-USDT', last: '1', volCcy24h: '1' }] },
    });
    const second = await ingest(new Date(KOREA_FIXTURE_NOW.getTime() + MINUTE));
    expect(second.steps['ingest:global_prices']).toBe(27);
    expect(await rows(`SELECT upstream, skipped, problems FROM ingest_skipped_rows WHERE upstream = 'okx'`)).toEqual([
      { upstream: 'okx', skipped: 1, problems: 'BAD-USDT: ts: Invalid input: expected string, received undefined' },
    ]);
  });

  it('order books: a venue that fails loses only its own books, with the reason; Upbit asks for every symbol in one request', async () => {
    world.fault('binance', '/api/v3/depth', { status: 503, text: 'Service Unavailable' });
    world.fault('korbit', '/v2/currencies', { json: { success: false, error: { message: 'BAD_REQUEST' } } });
    const run = await ingest();
    expect(run.steps['ingest:order_books']).toMatch(
      /^binance: GET .*\/api\/v3\/depth\?symbol=XRPUSDT.* HTTP 503: Service Unavailable \(and 4 more symbols\); korbit: GET .*\/v2\/currencies answered success false with error BAD_REQUEST/,
    );
    expect(await rows(`SELECT exchange, count(DISTINCT symbol)::INTEGER AS symbols FROM order_books GROUP BY ALL ORDER BY 1`)).toEqual([
      { exchange: 'bithumb', symbols: 5 },
      { exchange: 'coinone', symbols: 5 },
      { exchange: 'korbit', symbols: 5 },
      { exchange: 'upbit', symbols: 5 },
    ]);
    expect(await rows(`SELECT DISTINCT exchange FROM wallet_status ORDER BY 1`)).toEqual([
      { exchange: 'bithumb' },
      { exchange: 'coinone' },
    ]);
    expect(
      await rows(`SELECT upstream FROM ingest_failures WHERE upstream LIKE 'books:%' OR upstream LIKE 'wallets:%' ORDER BY 1`),
    ).toEqual([{ upstream: 'books:binance' }, { upstream: 'wallets:korbit' }]);
    const upbitBooks = run.requests.filter((q) => q.upstream === 'upbit' && q.path === '/v1/orderbook');
    expect(upbitBooks.map((q) => q.query.markets)).toEqual(['KRW-XRP,KRW-BTC,KRW-ETH,KRW-DOGE,KRW-SOL']);
    expect(budgeted(run)).toBe(15); // the books never cost the market budget
  });

  it('reflects a token delisted between two runs in kr_markets and kr_tickers', async () => {
    await ingest();
    expect(await rows(`SELECT exchange FROM kr_markets WHERE symbol = 'WAXP' ORDER BY 1`)).toEqual([
      { exchange: 'bithumb' },
      { exchange: 'upbit' },
    ]);
    world.delist('upbit', 'WAXP');
    const second = await ingest(new Date(KOREA_FIXTURE_NOW.getTime() + MINUTE));
    expect(second.steps['ingest:upbit']).toBe(64);
    expect(await rows(`SELECT exchange FROM kr_markets WHERE symbol = 'WAXP'`)).toEqual([{ exchange: 'bithumb' }]);
    expect(await rows(`SELECT exchange FROM kr_tickers WHERE symbol = 'WAXP'`)).toEqual([{ exchange: 'bithumb' }]);
    expect(await count(`SELECT * FROM kr_markets WHERE exchange = 'upbit'`)).toBe(29);
  });
});

describe('macro history: backfilled once, then extended incrementally', () => {
  const macroRequests = (r: RunOutcome) => r.requests.filter((q) => q.upstream === 'fred' || q.upstream === 'naver');

  it('fetches 2 years on the first run, then only the days since the last stored date', async () => {
    const first = await ingest();
    expect(macroRequests(first).map((q) => [q.query.id ?? q.query.symbol, q.query.cosd ?? q.query.startTime, q.backfill])).toEqual([
      ['DGS3', '2024-06-30', true],
      ['VIXCLS', '2024-06-30', true],
      ['DEXKOUS', '2024-06-30', true],
      ['005930', '20240630', true],
      ['000660', '20240630', true],
    ]);
    expect(
      await rows(
        `SELECT series, strftime(max(date), '%Y-%m-%d') AS last, count(*)::INTEGER AS n FROM macro_history GROUP BY ALL ORDER BY 1`,
      ),
    ).toEqual([
      { series: 'DEXKOUS', last: '2026-07-24', n: 540 },
      { series: 'DGS3', last: '2026-07-29', n: 543 },
      { series: 'KRX:000660:close', last: '2026-07-29', n: 505 },
      { series: 'KRX:000660:foreign_pct', last: '2026-07-29', n: 505 },
      { series: 'KRX:005930:close', last: '2026-07-29', n: 505 },
      { series: 'KRX:005930:foreign_pct', last: '2026-07-29', n: 505 },
      { series: 'VIXCLS', last: '2026-07-29', n: 543 },
    ]);

    // A minute later nothing is due: no FRED or Naver request at all.
    expect(macroRequests(await ingest(new Date(KOREA_FIXTURE_NOW.getTime() + MINUTE)))).toEqual([]);

    // A day later FRED and Naver have published two more days. Two series per run fit the budget.
    world.macroThrough = '2026-07-31';
    const next = new Date(KOREA_FIXTURE_NOW.getTime() + DAY);
    const second = await ingest(next);
    expect(macroRequests(second).map((q) => [q.query.id, q.query.cosd, q.query.coed, q.backfill])).toEqual([
      ['DGS3', '2026-07-29', '2026-07-31', false],
      ['VIXCLS', '2026-07-29', '2026-07-31', false],
    ]);
    expect(budgeted(second)).toBe(15); // 10 + 2 macro + 3 candle markets
    expect(t.logs.some((l) => l.includes('3 due series left for the next run'))).toBe(true);
    const third = await ingest(new Date(next.getTime() + MINUTE));
    expect(macroRequests(third).map((q) => [q.query.id ?? q.query.symbol, q.query.cosd ?? q.query.startTime])).toEqual([
      ['DEXKOUS', '2026-07-24'],
      ['005930', '20260729'],
    ]);
    const fourth = await ingest(new Date(next.getTime() + 2 * MINUTE));
    expect(macroRequests(fourth).map((q) => [q.query.symbol, q.query.startTime, q.query.endTime])).toEqual([
      ['000660', '20260729', '20260731'],
    ]);
    expect(macroRequests(await ingest(new Date(next.getTime() + 3 * MINUTE)))).toEqual([]);

    // Only the new days were added; nothing doubled.
    expect(
      await rows(
        `SELECT series, strftime(max(date), '%Y-%m-%d') AS last, count(*)::INTEGER AS n FROM macro_history GROUP BY ALL ORDER BY 1`,
      ),
    ).toEqual([
      { series: 'DEXKOUS', last: '2026-07-24', n: 540 },
      { series: 'DGS3', last: '2026-07-31', n: 545 },
      { series: 'KRX:000660:close', last: '2026-07-31', n: 507 },
      { series: 'KRX:000660:foreign_pct', last: '2026-07-31', n: 507 },
      { series: 'KRX:005930:close', last: '2026-07-31', n: 507 },
      { series: 'KRX:005930:foreign_pct', last: '2026-07-31', n: 507 },
      { series: 'VIXCLS', last: '2026-07-31', n: 545 },
    ]);
  });

  it("fills macro_daily from the history, FRED '.' as NULL, source live", async () => {
    await ingest();
    expect(await rows(`SELECT series, value, source FROM macro_daily WHERE date = DATE '2026-07-03' ORDER BY 1`)).toEqual([
      { series: 'DEXKOUS', value: null, source: 'live' },
      { series: 'DGS3', value: null, source: 'live' },
      { series: 'KRX:000660:close', value: expect.any(Number), source: 'live' },
      { series: 'KRX:000660:foreign_pct', value: expect.any(Number), source: 'live' },
      { series: 'KRX:005930:close', value: expect.any(Number), source: 'live' },
      { series: 'KRX:005930:foreign_pct', value: expect.any(Number), source: 'live' },
      { series: 'VIXCLS', value: null, source: 'live' },
    ]);
  });

  it('keeps the history and macro_daily when a refresh fails, and records the series', async () => {
    await ingest();
    world.macroThrough = '2026-07-31';
    world.fault('fred', '/graph/fredgraph.csv', {
      status: 200,
      headers: { 'content-type': 'text/html' },
      text: '<!DOCTYPE html><html><body>Maintenance</body></html>',
    });
    const run = await ingest(new Date(KOREA_FIXTURE_NOW.getTime() + DAY));
    expect(run.steps['ingest:macro_daily']).toMatch(
      /^fred: \/graph\/fredgraph\.csv\?id=DGS3: expected a CSV header "observation_date,DGS3", got "<!DOCTYPE html>/,
    );
    expect(await rows(`SELECT upstream FROM ingest_failures WHERE upstream LIKE 'fred%' ORDER BY 1`)).toEqual([
      { upstream: 'fred:DGS3' },
      { upstream: 'fred:VIXCLS' },
    ]);
    expect(await count(`SELECT * FROM macro_daily WHERE series = 'DGS3'`)).toBe(543);
  });
});

describe('the korea pipeline with --source live', () => {
  it('runs through the runner: the failed upstream fails its ingest step, the others publish', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'korea-live-'));
    try {
      world.fault('bithumb', '/v1/market/all', { status: 502, text: '<html>Bad Gateway</html>' });
      const settings = loadSettings({ ...world.env, SNAPSHOTS_DIR: join(dir, 's'), WAREHOUSE_DIR: join(dir, 'w') });
      const quiet: ProgressSink = { start() {}, finish() {}, note() {}, close() {} };
      const result = await runPipeline(
        koreaPipeline,
        { source: { kind: 'live' }, now: KOREA_FIXTURE_NOW, seed: 0, scale: 1 },
        settings,
        quiet,
      );
      const ingestReports = result.reports.filter((r) => /^(ingest|prepare):/.test(r.name)).map((r) => [r.name, r.status]);
      expect(ingestReports).toEqual([
        ['ingest:upbit', 'ok'],
        ['ingest:bithumb', 'failed'],
        ['ingest:coinone', 'ok'],
        ['ingest:korbit', 'ok'],
        ['ingest:global_prices', 'ok'],
        ['ingest:fx_rates', 'ok'],
        ['ingest:macro_daily', 'ok'],
        ['ingest:candles_1m', 'ok'],
        ['ingest:order_books', 'ok'],
        ['ingest:news', 'ok'],
        ['prepare:archive_repair', 'ok'],
        ['prepare:plausibility', 'ok'],
        ['prepare:news_store', 'ok'],
        ['prepare:news_translations', 'ok'],
        ['prepare:run_picture', 'ok'],
      ]);
      expect(result.manifest).not.toBeNull();
      expect(world.counts().budgeted).toBeLessThanOrEqual(15);
      // without a Claude key, live articles are published in Korean with the English marked unavailable, never invented
      const snap = (await loadLatest(settings.snapshotsDir, 'korea'))!;
      for (const name of ['kr-news-kpop', 'kr-news-semiconductor']) {
        const doc = snap.datasets.get(name)!.document as {
          analyst: string;
          articles: Array<{ translation: string; title_en: string | null; summary_en: string | null; title_kr: string }>;
        };
        expect(doc.analyst, name).toBe('rules');
        expect(doc.articles.length, name).toBeGreaterThan(0);
        for (const a of doc.articles) {
          expect(a, name).toMatchObject({ translation: 'unavailable', title_en: null, summary_en: null });
          expect(a.title_kr).toMatch(/[가-힣]/);
        }
      }
      const { SnapshotReader } = await import('../../../snapshots/reader.ts');
      const { healthDocument } = await import('../../../proxy/health.ts');
      const reader = new SnapshotReader(settings.snapshotsDir, 'korea');
      await reader.refresh();
      const health = healthDocument('korea', reader, settings, KOREA_FIXTURE_NOW);
      reader.close();
      expect(health.problems.join('\n')).toMatch(/kr-news-kpop: \d+ of \d+ articles have no English/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('an upstream down between two live runs', () => {
  it('keeps the last good version of the datasets that need it, shows them stale in /health, and publishes the rest', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'korea-live-health-'));
    try {
      const { SnapshotReader } = await import('../../../snapshots/reader.ts');
      const { healthDocument } = await import('../../../proxy/health.ts');
      const settings = loadSettings({ ...world.env, SNAPSHOTS_DIR: join(dir, 's'), WAREHOUSE_DIR: join(dir, 'w') });
      const quiet: ProgressSink = { start() {}, finish() {}, note() {}, close() {} };
      const first = await runPipeline(
        koreaPipeline,
        { source: { kind: 'live' }, now: KOREA_FIXTURE_NOW, seed: 0, scale: 1 },
        settings,
        quiet,
      );
      expect(first.ok).toBe(true);

      world.reset();
      world.fault('bithumb', '/public/ticker/ALL_KRW', { status: 503, text: 'Service Unavailable' });
      const later = new Date(KOREA_FIXTURE_NOW.getTime() + 60_000);
      const second = await runPipeline(koreaPipeline, { source: { kind: 'live' }, now: later, seed: 0, scale: 1 }, settings, quiet);
      expect(second.manifest).not.toBeNull();
      const byName = new Map(second.manifest!.datasets.map((d) => [d.name, d]));
      // comparing the two exchanges needs both: the previous scan stays, marked with the reason
      expect(byName.get('arbitrage-scanner')!.carried_over?.reason).toMatch(/bithumb/i);
      // datasets that healthy upstreams can compute are fresh
      expect(byName.get('kimchi-premium')!.carried_over).toBeUndefined();
      expect(byName.get('fx-rate')!.carried_over).toBeUndefined();

      const reader = new SnapshotReader(settings.snapshotsDir, 'korea');
      await reader.refresh();
      const health = healthDocument('korea', reader, settings, new Date(later.getTime() + 5_000));
      reader.close();
      expect(health.status).toBe('degraded');
      const arb = health.datasets.find((d) => d.name === 'arbitrage-scanner')!;
      expect(arb.stale).toBe(true);
      expect(arb.carried_over_reason).toMatch(/bithumb/i);
      expect(health.datasets.find((d) => d.name === 'kimchi-premium')!.stale).toBe(false);
      expect(health.problems.join('\n')).toMatch(/arbitrage-scanner: last run failed/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
