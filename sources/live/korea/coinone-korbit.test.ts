/**
 * The Coinone and Korbit adapters against their recorded payloads (fixtures/coinone, fixtures/korbit),
 * served by a node:http server on 127.0.0.1 port 0 (lib/testing/loopback.ts) and fetched with the
 * shared JSON client the korea steps use (clients.ts withUpstream, charged to a RequestBudget).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startLoopback, type Loopback, type Reply, type Route } from '../../../lib/testing/loopback.ts';
import { UpstreamError, type Upstream } from '../http.ts';
import { koreaFixture, recordedReply } from '../testing/korea-upstreams.ts';
import { withUpstream } from './clients.ts';
import {
  coinoneMarketStatuses,
  coinoneRequests,
  coinoneTickerRows,
  coinoneWalletStatuses,
  CoinoneCurrency,
  fetchCoinoneCurrencies,
  fetchCoinoneMarkets,
  fetchCoinoneOrderBook,
  fetchCoinoneTickers,
  readCoinoneTickers,
} from './coinone.ts';
import { orderBookDepth, type OrderBook } from './exchange-book.ts';
import {
  fetchKorbitCurrencies,
  fetchKorbitCurrencyPairs,
  fetchKorbitOrderBook,
  fetchKorbitTickers,
  korbitMarketStatuses,
  korbitPair,
  korbitRequests,
  korbitTickerRows,
  korbitWalletStatuses,
  readKorbitTickers,
} from './korbit.ts';
import { RequestBudget } from './request-budget.ts';

let server: Loopback | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

async function serve(routes: Array<[path: string, reply: Reply]>): Promise<Loopback> {
  server = await startLoopback(routes.map(([path, reply]): Route => ({ method: 'GET', path, reply })));
  return server;
}

const fixture = (name: string): Reply => ({ json: koreaFixture(name) });

/** One adapter call through the shared client, as a korea step makes it (no retries: the test counts requests). */
function call<T>(name: string, budget: RequestBudget, work: (up: Upstream) => Promise<T>): Promise<T> {
  return withUpstream({ name, baseUrl: server!.url, retries: 0, timeoutMs: 5_000 }, budget, () => {}, work);
}

describe('Coinone public API v2', () => {
  it('reads every KRW ticker: strings to numbers, lower-case symbols upper-cased, the ticker time as as_of, the bad row dropped with its reason', async () => {
    await serve([['/public/v2/ticker_new/KRW', fixture('coinone/ticker-new-krw.json')]]);
    const budget = new RequestBudget(12);
    const tickers = await call('coinone', budget, (up) => fetchCoinoneTickers(up));
    expect(server!.requests.map((r) => [r.path, r.query])).toEqual([['/public/v2/ticker_new/KRW', {}]]);
    expect(budget.byUpstream.get('coinone')).toBe(1);

    expect(tickers.total).toBe(8);
    expect(tickers.skipped).toEqual(['newt: last: expected a decimal number, got ""']);
    expect(tickers.serverTimeMs).toBe(1785397265012);

    const rows = coinoneTickerRows(tickers.rows);
    expect(rows.map((r) => r[1])).toEqual(['BTC', 'ETH', 'XRP', 'SOL', 'DOGE', 'SHIB', 'USDT']);
    expect(rows[0]).toEqual([
      'coinone',
      'BTC',
      91180000,
      91520000, // `first`, the price 24 h ago
      92130000,
      90870000,
      -0.3715035, // (last - first) / first, percent
      199.68043318,
      18235570040.1592,
      new Date('2026-07-30T07:41:03.912Z'),
      null, // Coinone's ticker does not say when the last trade was
      'live',
    ]);
    const bySymbol = (s: string) => rows.find((r) => r[1] === s)!;
    expect(bySymbol('SHIB').slice(2, 4)).toEqual([0.01951, 0.01937]);
    expect(bySymbol('USDT').slice(2, 7)).toEqual([1393, 1391, 1396, 1387, 0.14378145]);
    expect(bySymbol('SOL')[9]).toEqual(new Date(1785397258114));
  });

  it('reads the upper-case spelling of the documentation example the same way, and a zero `first` gives no change', async () => {
    const documented = {
      result: 'success',
      error_code: '0',
      server_time: 1416895635000,
      tickers: [
        {
          quote_currency: 'KRW',
          target_currency: 'BTC',
          timestamp: 1499341142000,
          high: '3845000.0',
          low: '3819000.0',
          first: '0.0',
          last: '3833000.0',
          quote_volume: '10000.0',
          target_volume: '163.3828',
          best_asks: [{ price: '1200.0', qty: '1.234' }],
          best_bids: [{ price: '1000.0', qty: '0.123' }],
          id: '1499341142000001',
        },
      ],
    };
    await serve([['/public/v2/ticker_new/KRW', { json: documented }]]);
    const tickers = await call('coinone', new RequestBudget(12), (up) => fetchCoinoneTickers(up));
    expect(coinoneTickerRows(tickers.rows)).toEqual([
      ['coinone', 'BTC', 3833000, 0, 3845000, 3819000, null, 163.3828, 10000, new Date(1499341142000), null, 'live'],
    ]);
  });

  it('reports the error envelope (HTTP 200, result "error") as a failure naming the code, without retrying', async () => {
    await serve([['/public/v2/orderbook/KRW/NOPE', recordedReply('coinone/error-108-unknown-currency.json')]]);
    const budget = new RequestBudget(12);
    const err = await call('coinone', budget, (up) => fetchCoinoneOrderBook(up, 'nope')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UpstreamError);
    expect((err as Error).message).toMatch(
      /^coinone: GET http:\/\/127\.0\.0\.1:\d+\/public\/v2\/orderbook\/KRW\/NOPE answered result "error" with error_code 108 \("Unknown CryptoCurrency"\); Coinone reports errors in the body of an HTTP 200 answer$/,
    );
    expect(server!.requests).toHaveLength(1);
    // the older camelCase spelling of the same envelope
    expect(() =>
      readCoinoneTickers(
        { name: 'coinone', shownBaseUrl: 'https://api.coinone.co.kr/', parse: (s, v) => s.parse(v) },
        '/public/v2/ticker_new/KRW',
        {
          result: 'error',
          errorCode: '4',
          errorMsg: 'Blocked user access.',
        },
      ),
    ).toThrow(/answered result "error" with error_code 4 \("Blocked user access\."\)/);
  });

  it('fails clearly on the HTML page an unknown path answers', async () => {
    await serve([['/public/v2/ticker_new/KRW', { text: '<!DOCTYPE html><html><head><title>Coinone API</title></head></html>' }]]);
    await expect(call('coinone', new RequestBudget(12), (up) => fetchCoinoneTickers(up))).rejects.toThrow(
      /^coinone: GET http:\/\/127\.0\.0\.1:\d+\/public\/v2\/ticker_new\/KRW returned a body that is not JSON: <!DOCTYPE html>/,
    );
  });

  it('reads the BTC book best first and computes the ±2 % depth, flagged as a lower bound when 15 levels end inside the band', async () => {
    await serve([['/public/v2/orderbook/KRW/BTC', fixture('coinone/orderbook-krw-btc.json')]]);
    const book = await call('coinone', new RequestBudget(12), (up) => fetchCoinoneOrderBook(up, 'btc'));
    expect(server!.requests[0]!.query).toEqual({ size: '15' });
    expect(book.symbol).toBe('BTC');
    expect(book.asOf).toEqual(new Date(1785397264871));
    expect(book.skipped).toEqual([]);
    expect([book.bids.length, book.asks.length]).toEqual([15, 15]);
    expect(book.bids.slice(0, 2)).toEqual([
      { price: 91180000, qty: 0.1043 },
      { price: 91170000, qty: 0.0512 },
    ]);
    expect(book.asks[0]).toEqual({ price: 91190000, qty: 0.0215 });
    expect(book.asks.at(-1)).toEqual({ price: 91330000, qty: 0.1139 });

    const depth = orderBookDepth(book);
    expect(depth.ok).toBe(true);
    if (!depth.ok) return;
    expect([depth.bestBid, depth.bestAsk, depth.mid]).toEqual([91180000, 91190000, 91185000]);
    expect(depth.spreadPct).toBeCloseTo(0.0109667, 6);
    expect(depth.bidQty).toBeCloseTo(1.8906, 8);
    expect(depth.bidKrw).toBeCloseTo(172253083, 0);
    expect(depth.askQty).toBeCloseTo(1.2743, 8);
    expect(depth.askKrw).toBeCloseTo(116305537, 0);
    expect([depth.bidLevels, depth.askLevels, depth.bidCovered, depth.askCovered]).toEqual([15, 15, false, false]);
  });

  it('asks the book with a size and an aggregation unit when given', () => {
    expect(coinoneRequests.orderBook('eth', { size: 16, orderBookUnit: '10000.0' })).toEqual({
      path: '/public/v2/orderbook/KRW/ETH',
      query: { size: 16, order_book_unit: '10000.0' },
    });
  });

  it('reads deposit/withdrawal status and the withdrawal fee per currency; a status other than "normal" is closed and noted', async () => {
    await serve([['/public/v2/currencies', fixture('coinone/currencies.json')]]);
    const currencies = await call('coinone', new RequestBudget(12), (up) => fetchCoinoneCurrencies(up));
    expect([currencies.total, currencies.skipped]).toEqual([6, []]);
    const { statuses, unknown } = coinoneWalletStatuses(currencies.rows);
    expect(unknown).toEqual([]);
    expect(statuses.find((s) => s.symbol === 'BTC')).toEqual({
      exchange: 'coinone',
      symbol: 'BTC',
      network: null,
      depositEnabled: true,
      withdrawEnabled: true,
      depositStatus: 'normal',
      withdrawStatus: 'normal',
      withdrawalFee: 0.0008,
      withdrawalMin: 0.0001,
    });
    expect(statuses.find((s) => s.symbol === 'MATIC')!.withdrawalFee).toBe(3);

    // a test-only value: the sources name no closed value, so any other value is read as closed
    const closed = CoinoneCurrency.parse({
      ...koreaFixture<{ currencies: object[] }>('coinone/currencies.json').currencies[2],
      withdraw_status: 'paused',
    });
    const read = coinoneWalletStatuses([closed]);
    expect(read.statuses[0]).toMatchObject({ symbol: 'XRP', depositEnabled: true, withdrawEnabled: false, withdrawStatus: 'paused' });
    expect(read.unknown).toEqual(['withdraw_status "paused" is not a documented value, kept as other (XRP)']);
  });

  it('reads the market list: maintenance and trade_status (2: no buying) per market', async () => {
    await serve([['/public/v2/markets/KRW', fixture('coinone/markets-krw.json')]]);
    const markets = await call('coinone', new RequestBudget(12), (up) => fetchCoinoneMarkets(up));
    expect(markets.skipped).toEqual([]);
    const { statuses, unknown } = coinoneMarketStatuses(markets.rows);
    expect(unknown).toEqual([]);
    expect(statuses.map((s) => [s.symbol, s.buyable, s.sellable, s.maintenance])).toEqual([
      ['BTC', true, true, false],
      ['ETH', true, true, false],
      ['USDT', true, true, false],
      ['WAXP', false, true, true],
    ]);
  });
});

describe('Korbit Open API v2', () => {
  it('reads every ticker: strings to numbers, btc_krw to BTC, the last trade time as as_of, the bad row dropped with its reasons', async () => {
    await serve([['/v2/tickers', fixture('korbit/tickers.json')]]);
    const budget = new RequestBudget(12);
    const tickers = await call('korbit', budget, (up) => fetchKorbitTickers(up));
    expect(server!.requests.map((r) => [r.path, r.query])).toEqual([['/v2/tickers', {}]]);
    expect(budget.byUpstream.get('korbit')).toBe(1);

    expect(tickers.total).toBe(8);
    expect(tickers.skipped).toEqual(['newt_krw: close: expected a positive price; lastTradedAt: expected epoch milliseconds, got null']);

    const rows = korbitTickerRows(tickers.rows);
    expect(rows.map((r) => r[1])).toEqual(['BTC', 'ETH', 'XRP', 'SOL', 'DOGE', 'SHIB', 'USDT']);
    expect(rows[0]).toEqual([
      'korbit',
      'BTC',
      91160000,
      91470000,
      92150000,
      90860000,
      -0.33890893, // (close - prevClose) / prevClose; Korbit's own priceChangePercent says -0.34
      41.28371822,
      3763910452.92716,
      new Date('2026-07-30T07:41:02.318Z'),
      new Date('2026-07-30T07:41:02.318Z'), // Korbit's time is the last trade's
      'live',
    ]);
    const bySymbol = (s: string) => rows.find((r) => r[1] === s)!;
    expect(bySymbol('ETH')[6]).toBe(1.63419233);
    // a quiet pair: its last trade (2 h 11 min before the others) is its source time
    expect(bySymbol('SHIB').slice(2, 4)).toEqual([0.01951, 0.0194]);
    expect((bySymbol('SHIB')[9] as Date).toISOString()).toBe('2026-07-30T05:30:12.077Z');
  });

  it('asks chosen pairs as a comma list, and keeps only KRW pairs in kr_tickers', async () => {
    expect(korbitRequests.tickers(['BTC', 'usdt_krw']).query).toEqual({ symbol: 'btc_krw,usdt_krw' });
    expect(korbitPair('Eth')).toBe('eth_krw');
    const data = koreaFixture<{ data: Array<Record<string, unknown>> }>('korbit/tickers.json').data;
    await serve([['/v2/tickers', { json: { success: true, data: [data[0], { ...data[1], symbol: 'eth_btc' }] } }]]);
    const tickers = await call('korbit', new RequestBudget(12), (up) => fetchKorbitTickers(up, ['btc', 'eth_btc']));
    expect(server!.requests[0]!.query).toEqual({ symbol: 'btc_krw,eth_btc' });
    expect(tickers.rows.map((t) => `${t.symbol}/${t.quote}`)).toEqual(['BTC/KRW', 'ETH/BTC']);
    expect(korbitTickerRows(tickers.rows).map((r) => r[1])).toEqual(['BTC']);
  });

  it('reports the error envelope (success false) as a failure naming the code', async () => {
    await serve([['/v2/orderbook', recordedReply('korbit/error-invalid-currency-pair.json')]]);
    const err = await call('korbit', new RequestBudget(12), (up) => fetchKorbitOrderBook(up, 'nope')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UpstreamError);
    expect((err as Error).message).toMatch(
      /^korbit: GET http:\/\/127\.0\.0\.1:\d+\/v2\/orderbook answered success false with error INVALID_CURRENCY_PAIR$/,
    );
    expect(server!.requests.map((r) => r.query)).toEqual([{ symbol: 'nope_krw' }]);
    // with a description, as the official CLI reads it
    expect(() =>
      readKorbitTickers({ name: 'korbit', shownBaseUrl: 'https://api.korbit.co.kr/', parse: (s, v) => s.parse(v) }, '/v2/tickers', {
        success: false,
        error: { message: 'BAD_REQUEST', description: 'invalid symbol' },
      }),
    ).toThrow(
      /^korbit: GET https:\/\/api\.korbit\.co\.kr\/v2\/tickers answered success false with error BAD_REQUEST \("invalid symbol"\)$/,
    );
  });

  it('a non-2xx error envelope fails in the shared client with its body in the message', async () => {
    await serve([['/v2/tickers', { status: 400, json: { success: false, error: { message: 'BAD_REQUEST' } } }]]);
    await expect(call('korbit', new RequestBudget(12), (up) => fetchKorbitTickers(up))).rejects.toThrow(
      /^korbit: GET http:\/\/127\.0\.0\.1:\d+\/v2\/tickers failed with HTTP 400: \{"success":false,"error":\{"message":"BAD_REQUEST"\}\}$/,
    );
  });

  it('reads the BTC book and its ±2 % depth; a bad level is skipped with its reason', async () => {
    await serve([['/v2/orderbook', fixture('korbit/orderbook-btc-krw.json')]]);
    const book = await call('korbit', new RequestBudget(12), (up) => fetchKorbitOrderBook(up, 'BTC'));
    expect(server!.requests[0]!.query).toEqual({ symbol: 'btc_krw' });
    expect([book.exchange, book.symbol, book.asOf.toISOString(), book.skipped]).toEqual(['korbit', 'BTC', '2026-07-30T07:41:04.412Z', []]);
    expect([book.bids[0], book.asks[0]]).toEqual([
      { price: 91160000, qty: 0.01204331 },
      { price: 91173000, qty: 0.00845231 },
    ]);
    const depth = orderBookDepth(book);
    if (!depth.ok) throw new Error(depth.reason);
    expect(depth.mid).toBe(91166500);
    expect(depth.bidQty).toBeCloseTo(0.74080632, 8);
    expect(depth.bidKrw).toBeCloseTo(67520408.62549, 2);
    expect(depth.askQty).toBeCloseTo(0.5590239, 8);
    expect(depth.askKrw).toBeCloseTo(50978543.16061, 2);
    expect([depth.bidCovered, depth.askCovered]).toEqual([false, false]);

    await server!.close();
    const raw = koreaFixture<{ data: { timestamp: number; bids: unknown[]; asks: unknown[] } }>('korbit/orderbook-btc-krw.json').data;
    const bad = { success: true, data: { ...raw, asks: [{ price: '91173000', qty: 'n/a' }, ...raw.asks.slice(1)] } };
    await serve([['/v2/orderbook', { json: bad }]]);
    const partial = await call('korbit', new RequestBudget(12), (up) => fetchKorbitOrderBook(up, 'btc'));
    expect(partial.skipped).toEqual(['asks[0]: qty: expected a decimal number, got "n/a"']);
    expect(partial.asks[0]).toEqual({ price: 91175000, qty: 0.02 });
  });

  it('reads deposit/withdrawal status and fee per network; krw is left out; a stopped withdrawal is closed', async () => {
    await serve([['/v2/currencies', fixture('korbit/currencies.json')]]);
    const currencies = await call('korbit', new RequestBudget(12), (up) => fetchKorbitCurrencies(up));
    expect([currencies.total, currencies.skipped]).toEqual([5, []]);
    const { statuses, skipped, unknown } = korbitWalletStatuses(currencies.rows);
    expect([skipped, unknown]).toEqual([[], []]);
    expect(statuses.map((s) => [s.symbol, s.network, s.depositEnabled, s.withdrawEnabled, s.withdrawalFee, s.withdrawalMin])).toEqual([
      ['BTC', 'BTC', true, true, 0.0008, 0.0001],
      ['ETH', 'ETH', true, true, 0.005, 0.0001],
      ['ETH', 'BASE', true, true, 0.001, 0.0001],
      ['XRP', 'XRP', true, false, 1, 21],
      ['USDT', 'TRX', true, true, 1, 1],
    ]);
    expect(statuses.find((s) => s.symbol === 'XRP')!.withdrawStatus).toBe('stopped');
  });

  it('a bad network is skipped with its reason; a coin without networkList falls back to the deprecated top-level fields', () => {
    const { statuses, skipped } = korbitWalletStatuses([
      {
        name: 'sol',
        networkList: [{ name: 'SOL', depositStatus: 'launched', withdrawalStatus: 'launched', withdrawalTxFee: '' }],
      },
      {
        name: 'doge',
        depositStatus: { value: 'launched', raw: 'launched' },
        withdrawalStatus: { value: 'other', raw: 'suspended' },
        withdrawalTxFee: 4,
      },
    ]);
    expect(skipped).toEqual(['SOL.networkList[0]: withdrawalTxFee: expected a decimal number, got ""']);
    expect(statuses).toEqual([
      {
        exchange: 'korbit',
        symbol: 'DOGE',
        network: null,
        depositEnabled: true,
        withdrawEnabled: false,
        depositStatus: 'launched',
        withdrawStatus: 'suspended',
        withdrawalFee: 4,
        withdrawalMin: null,
      },
    ]);
  });

  it('reads the trading-pair list: only launched pairs trade', async () => {
    await serve([['/v2/currencyPairs', fixture('korbit/currency-pairs.json')]]);
    const pairs = await call('korbit', new RequestBudget(12), (up) => fetchKorbitCurrencyPairs(up));
    const { statuses, unknown } = korbitMarketStatuses(pairs.rows);
    expect(unknown).toEqual([]);
    expect(statuses.filter((s) => !s.buyable).map((s) => [s.symbol, s.status])).toEqual([['WAXP', 'stopped']]);
    expect(statuses).toHaveLength(8);
  });
});

describe('order book depth', () => {
  const book = (bids: Array<[number, number]>, asks: Array<[number, number]>): OrderBook => ({
    exchange: 'test',
    symbol: 'XYZ',
    asOf: new Date(0),
    bids: bids.map(([price, qty]) => ({ price, qty })),
    asks: asks.map(([price, qty]) => ({ price, qty })),
    skipped: [],
  });

  it('counts only the levels within the band and says a side is covered when the book reaches past its edge', () => {
    const depth = orderBookDepth(
      book(
        [
          [99, 1],
          [98.5, 2],
          [97, 5], // 97 < 98 (mid 100 - 2 %): outside, proves the band was seen whole
        ],
        [
          [101, 1],
          [102, 3], // on the edge: inside
        ],
      ),
    );
    expect(depth).toMatchObject({
      ok: true,
      mid: 100,
      bidQty: 3,
      bidKrw: 296,
      askQty: 4,
      askKrw: 407,
      bidCovered: true,
      askCovered: false,
    });
  });

  it('gives a reason instead of a depth for an empty side or a crossed book', () => {
    expect(orderBookDepth(book([[100, 1]], []))).toEqual({ ok: false, reason: 'test XYZ: the book has no asks' });
    expect(orderBookDepth(book([[101, 1]], [[100, 1]]))).toEqual({ ok: false, reason: 'test XYZ: crossed book (bid 101 >= ask 100)' });
  });
});
