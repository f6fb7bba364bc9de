/**
 * The Upbit, Bithumb and Binance order book, wallet-status and withdrawal-fee adapters against
 * their recorded payloads (fixtures/upbit, fixtures/bithumb, fixtures/binance), served by a
 * node:http server on 127.0.0.1 port 0 (lib/testing/loopback.ts) and fetched with the shared JSON
 * client the korea steps use (clients.ts withUpstream, charged to a RequestBudget).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startLoopback, type Loopback, type RecordedRequest, type Reply, type Route } from '../../../lib/testing/loopback.ts';
import { UpstreamError, type Upstream } from '../http.ts';
import { koreaFixture, recordedReply } from '../testing/korea-upstreams.ts';
import {
  BINANCE_DEPTH_MAX_LIMIT,
  binanceBookRequests,
  binanceDepthWeight,
  binanceUsdtSymbol,
  fetchBinanceOrderBook,
  readBinanceOrderBook,
} from './binance-book.ts';
import {
  bithumbBookRequests,
  bithumbWalletStatuses,
  fetchBithumbAllKrwOrderBooks,
  fetchBithumbNetworkStatuses,
  fetchBithumbOrderBooks,
  fetchBithumbWithdrawalFees,
  readBithumbAllKrwOrderBooks,
} from './bithumb-book.ts';
import { withUpstream } from './clients.ts';
import { orderBookDepth, type UpstreamLike } from './exchange-book.ts';
import { RequestBudget } from './request-budget.ts';
import { TRADING_FEES, WITHDRAWAL_FEE_SOURCES } from '../../../catalog/korea-fees.ts';
import { fetchUpbitOrderBooks, readUpbitOrderBooks, upbitBookRequests, upbitMarket, UPBIT_BOOK_MARKETS_PER_REQUEST } from './upbit-book.ts';

let server: Loopback | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

async function serve(routes: Array<[path: string, reply: Route['reply']]>): Promise<Loopback> {
  server = await startLoopback(routes.map(([path, reply]): Route => ({ method: 'GET', path, reply })));
  return server;
}

const fixture = (name: string): Reply => ({ json: koreaFixture(name) });

/** One adapter call through the shared client, as a korea step makes it (no retries: the test counts requests). */
function call<T>(name: string, budget: RequestBudget, work: (up: Upstream) => Promise<T>): Promise<T> {
  return withUpstream({ name, baseUrl: server!.url, retries: 0, timeoutMs: 5_000 }, budget, () => {}, work);
}

const offline = (name: string, base: string): UpstreamLike => ({ name, shownBaseUrl: base, parse: (s, v) => s.parse(v) });

describe('Upbit order books (GET /v1/orderbook)', () => {
  it('reads one book per KRW market: symbols from KRW-XXX, best first, a bad level skipped with its reason', async () => {
    await serve([['/v1/orderbook', fixture('upbit/orderbook-krw-btc-eth-xrp.json')]]);
    const budget = new RequestBudget(12);
    const { books, skipped } = await call('upbit', budget, (up) => fetchUpbitOrderBooks(up, ['btc', 'KRW-ETH', 'XRP'], { count: 15 }));
    expect(server!.requests.map((r) => [r.path, r.query])).toEqual([
      ['/v1/orderbook', { markets: 'KRW-BTC,KRW-ETH,KRW-XRP', count: '15' }],
    ]);
    expect(budget.byUpstream.get('upbit')).toBe(1);
    expect(skipped).toEqual([]);

    expect(books.map((b) => [b.exchange, b.symbol, b.asOf.toISOString(), b.bids.length, b.asks.length])).toEqual([
      ['upbit', 'BTC', '2026-07-30T07:41:04.806Z', 15, 15],
      ['upbit', 'ETH', '2026-07-30T07:41:04.706Z', 9, 10],
      ['upbit', 'XRP', '2026-07-30T07:41:04.606Z', 10, 10],
    ]);
    const [btc, eth] = books;
    expect(btc!.bids.slice(0, 2)).toEqual([
      { price: 91200000, qty: 0.0432 },
      { price: 91199000, qty: 0.1871 },
    ]);
    expect(btc!.asks[0]).toEqual({ price: 91201000, qty: 0.0215 });
    // unit 4 of the ETH book lost its bid size: that bid is skipped, its ask is kept
    expect(eth!.skipped).toEqual(['bids[4]: qty: expected a decimal number, got null']);
    expect(eth!.asks.some((l) => l.price === 4860000)).toBe(true);
    expect(eth!.bids.some((l) => l.price === 4851000)).toBe(false);
  });

  it('computes the ±2 % depth of the BTC book, a lower bound on both sides when 15 levels end inside the band', async () => {
    await serve([['/v1/orderbook', fixture('upbit/orderbook-krw-btc-eth-xrp.json')]]);
    const { books } = await call('upbit', new RequestBudget(12), (up) => fetchUpbitOrderBooks(up, ['BTC', 'ETH', 'XRP']));
    expect(server!.requests[0]!.query).toEqual({ markets: 'KRW-BTC,KRW-ETH,KRW-XRP' });
    const depth = orderBookDepth(books[0]!);
    if (!depth.ok) throw new Error(depth.reason);
    expect([depth.bestBid, depth.bestAsk, depth.mid]).toEqual([91200000, 91201000, 91200500]);
    expect(depth.spreadPct).toBeCloseTo(0.00109649, 7);
    expect(depth.bidQty).toBeCloseTo(2.1284, 8);
    expect(depth.bidKrw).toBeCloseTo(194092772.5, 1);
    expect(depth.askQty).toBeCloseTo(1.6027, 8);
    expect(depth.askKrw).toBeCloseTo(146180321, 1);
    expect([depth.bidLevels, depth.askLevels, depth.bidCovered, depth.askCovered]).toEqual([15, 15, false, false]);
  });

  it(`asks at most ${UPBIT_BOOK_MARKETS_PER_REQUEST} markets a request and names the markets an answer left out`, async () => {
    const symbols = Array.from({ length: 250 }, (_, i) => `C${i}`);
    // Answers a minimal book for every market asked, except C7 (as if delisted between list and call).
    const answer = (req: RecordedRequest): Reply => ({
      json: req.query
        .markets!.split(',')
        .filter((m) => m !== 'KRW-C7')
        .map((market, i) => ({
          market,
          timestamp: 1785397264000 + i,
          total_ask_size: 1,
          total_bid_size: 1,
          orderbook_units: [{ ask_price: 101, bid_price: 100, ask_size: 1, bid_size: 1 }],
          level: 0,
        })),
    });
    await serve([['/v1/orderbook', answer]]);
    const budget = new RequestBudget(12);
    const { books, skipped } = await call('upbit', budget, (up) => fetchUpbitOrderBooks(up, [...symbols, 'c0']));
    expect(server!.requests.map((r) => r.query.markets!.split(',').length)).toEqual([100, 100, 50]);
    expect(server!.requests[2]!.query.markets!.split(',').at(-1)).toBe('KRW-C249');
    expect(budget.byUpstream.get('upbit')).toBe(3);
    expect(books).toHaveLength(249);
    expect(skipped).toEqual(['KRW-C7: not in the answer']);

    await server!.close();
    await serve([['/v1/orderbook', answer]]);
    await call('upbit', new RequestBudget(12), (up) => fetchUpbitOrderBooks(up, symbols.slice(0, 5), { perRequest: 2 }));
    expect(server!.requests.map((r) => r.query.markets)).toEqual(['KRW-C0,KRW-C1', 'KRW-C2,KRW-C3', 'KRW-C4']);
  });

  it('leaves out the zero padding of a thin side, and lists a market that is not quoted in KRW or does not parse', () => {
    const read = readUpbitOrderBooks(offline('upbit', 'https://api.upbit.com/'), '/v1/orderbook', [
      {
        market: 'KRW-WAXP',
        timestamp: 1785397264106,
        total_ask_size: 3,
        total_bid_size: 1,
        orderbook_units: [
          { ask_price: 42.2, bid_price: 42.1, ask_size: 1, bid_size: 1 },
          { ask_price: 42.3, bid_price: 0, ask_size: 2, bid_size: 0 },
        ],
        level: 0,
      },
      { market: 'BTC-ETH', timestamp: 1785397264106, orderbook_units: [] },
      { market: 'KRW-NEWT', timestamp: null, orderbook_units: [] },
    ]);
    expect(read.books.map((b) => [b.symbol, b.bids, b.asks, b.skipped])).toEqual([
      [
        'WAXP',
        [{ price: 42.1, qty: 1 }],
        [
          { price: 42.2, qty: 1 },
          { price: 42.3, qty: 2 },
        ],
        [],
      ],
    ]);
    expect(read.skipped).toEqual(['BTC-ETH: not a KRW market', 'KRW-NEWT: timestamp: expected epoch milliseconds, got null']);
  });

  it('fails clearly on the documented error envelope (404 Code not found), without retrying', async () => {
    await serve([['/v1/orderbook', recordedReply('upbit-404-code-not-found.json')]]);
    const err = await call('upbit', new RequestBudget(12), (up) => fetchUpbitOrderBooks(up, ['NOPE'])).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UpstreamError);
    expect((err as UpstreamError).status).toBe(404);
    expect((err as Error).message).toMatch(
      /^upbit: GET http:\/\/127\.0\.0\.1:\d+\/v1\/orderbook\?markets=KRW-NOPE failed with HTTP 404: \{"error":\{"name":404,"message":"Code not found"\}\}$/,
    );
    expect(server!.requests).toHaveLength(1);
    // the same envelope in a 2xx body is a failure too
    expect(() =>
      readUpbitOrderBooks(offline('upbit', 'https://api.upbit.com/'), '/v1/orderbook', {
        error: { name: 400, message: 'Missing request parameter error. Check the required parameters!' },
      }),
    ).toThrow(
      /^upbit: GET https:\/\/api\.upbit\.com\/v1\/orderbook answered with error 400 \("Missing request parameter error\. Check the required parameters!"\)$/,
    );
  });

  it('builds the request: codes upper-cased, count and level only when given', () => {
    expect(upbitMarket('eth')).toBe('KRW-ETH');
    expect(upbitMarket('btc-eth')).toBe('BTC-ETH');
    expect(upbitBookRequests.orderBooks(['btc'], { level: '100000' })).toEqual({
      path: '/v1/orderbook',
      query: { markets: 'KRW-BTC', count: undefined, level: '100000' },
    });
  });
});

describe('Bithumb order books, wallet status and withdrawal fees', () => {
  it('reads every KRW book from the one legacy ALL_KRW call (5 levels a side); a bad level is skipped', async () => {
    await serve([['/public/orderbook/ALL_KRW', fixture('bithumb/orderbook-all-krw.json')]]);
    const budget = new RequestBudget(12);
    const { books, skipped } = await call('bithumb', budget, (up) => fetchBithumbAllKrwOrderBooks(up));
    expect(server!.requests.map((r) => [r.path, r.query])).toEqual([['/public/orderbook/ALL_KRW', { count: '5' }]]);
    expect(budget.byUpstream.get('bithumb')).toBe(1);
    expect(skipped).toEqual([]);
    expect(books.map((b) => [b.exchange, b.symbol, b.asOf.toISOString(), b.bids.length, b.asks.length, b.skipped])).toEqual([
      ['bithumb', 'BTC', '2026-07-30T07:41:04.630Z', 5, 5, []],
      ['bithumb', 'ETH', '2026-07-30T07:41:04.630Z', 5, 5, []],
      ['bithumb', 'XRP', '2026-07-30T07:41:04.630Z', 5, 4, ['asks[1]: price: expected a decimal number, got ""']],
      ['bithumb', 'USDT', '2026-07-30T07:41:04.630Z', 5, 5, []],
    ]);
    const depth = orderBookDepth(books[0]!);
    if (!depth.ok) throw new Error(depth.reason);
    expect([depth.bestBid, depth.bestAsk, depth.mid]).toEqual([91171000, 91172000, 91171500]);
    expect(depth.bidQty).toBeCloseTo(0.6942, 8);
    expect(depth.bidKrw).toBeCloseTo(63288813.1, 1);
    expect(depth.askQty).toBeCloseTo(0.4795, 8);
    expect(depth.askKrw).toBeCloseTo(43718665.5, 1);
    // five levels a side never reach ±2 % on BTC: the depth is a lower bound
    expect([depth.bidCovered, depth.askCovered]).toEqual([false, false]);
  });

  it('moves a KST-wall-clock stamp of the legacy book back 9 hours', () => {
    const body = koreaFixture<{ status: string; data: Record<string, unknown> }>('bithumb/orderbook-all-krw.json');
    const shifted = { ...body, data: { ...body.data, timestamp: String(1785397264630 + 9 * 3_600_000) } };
    const read = readBithumbAllKrwOrderBooks(
      offline('bithumb', 'https://api.bithumb.com/'),
      '/public/orderbook/ALL_KRW',
      shifted,
      new Date('2026-07-30T07:41:05Z'),
    );
    expect(read.books[0]!.asOf.toISOString()).toBe('2026-07-30T07:41:04.630Z');
  });

  it('fails clearly on a legacy status other than "0000" (HTTP 200), without retrying', async () => {
    await serve([['/public/orderbook/ALL_KRW', recordedReply('bithumb/error-5500-invalid-parameter.json')]]);
    const err = await call('bithumb', new RequestBudget(12), (up) => fetchBithumbAllKrwOrderBooks(up)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UpstreamError);
    expect((err as Error).message).toMatch(
      /^bithumb: GET http:\/\/127\.0\.0\.1:\d+\/public\/orderbook\/ALL_KRW answered HTTP 200 with status 5500 \("Invalid Parameter"\); Bithumb reports errors in the body and only "0000" is success$/,
    );
    expect(server!.requests).toHaveLength(1);
  });

  it('reads the v1 books (Upbit shape) in chunks, and fails on the v1 error envelope sent with HTTP 200', async () => {
    await serve([['/v1/orderbook', fixture('bithumb/orderbook-v1-krw-btc-eth.json')]]);
    const { books, skipped } = await call('bithumb', new RequestBudget(12), (up) => fetchBithumbOrderBooks(up, ['BTC', 'ETH']));
    expect(server!.requests.map((r) => r.query)).toEqual([{ markets: 'KRW-BTC,KRW-ETH' }]);
    expect(skipped).toEqual([]);
    expect(books.map((b) => [b.exchange, b.symbol, b.bids[0], b.asks[0], b.bids.length])).toEqual([
      ['bithumb', 'BTC', { price: 91171000, qty: 0.5013 }, { price: 91172000, qty: 0.2208 }, 15],
      ['bithumb', 'ETH', { price: 4853000, qty: 2.5006 }, { price: 4854000, qty: 1.3391 }, 10],
    ]);

    await server!.close();
    await serve([['/v1/orderbook', recordedReply('bithumb/error-v1-404-code-not-found.json')]]);
    const err = await call('bithumb', new RequestBudget(12), (up) => fetchBithumbOrderBooks(up, ['BTC', 'NOPE'])).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UpstreamError);
    expect((err as Error).message).toMatch(
      /^bithumb: GET http:\/\/127\.0\.0\.1:\d+\/v1\/orderbook answered with error 404 \("Code not found"\)$/,
    );
  });

  it('reads deposit/withdrawal status per network and joins the withdrawal fee only where the network is unambiguous', async () => {
    await serve([
      ['/public/assetsstatus/multichain/ALL', fixture('bithumb/assetsstatus-multichain-all.json')],
      ['/v2/fee/inout/ALL', fixture('bithumb/fee-inout-all.json')],
    ]);
    const budget = new RequestBudget(12);
    const networks = await call('bithumb', budget, (up) => fetchBithumbNetworkStatuses(up));
    const fees = await call('bithumb', budget, (up) => fetchBithumbWithdrawalFees(up));
    expect(server!.requests.map((r) => r.path)).toEqual(['/public/assetsstatus/multichain/ALL', '/v2/fee/inout/ALL']);
    expect(budget.byUpstream.get('bithumb')).toBe(2);

    expect([networks.total, networks.skipped]).toEqual([9, ['NEWT: deposit_status: expected 1 or 0, got ""']]);
    expect(fees.skipped).toEqual(['NEWT.networks[0]: withdraw_fee_quantity: expected a decimal number, got "n/a"']);
    expect(fees.fees.find((f) => f.symbol === 'SOL')).toEqual({
      symbol: 'SOL',
      network: 'Solana',
      withdrawalFee: null, // charged a rate, not a fixed fee
      withdrawalRate: 0.01,
      withdrawalFeeMin: 0.005,
      withdrawalFeeMax: 0.05,
      withdrawalMin: 0.1,
    });

    const { statuses, unmatched } = bithumbWalletStatuses(networks.rows, fees.fees);
    expect(statuses.map((s) => [s.symbol, s.network, s.depositEnabled, s.withdrawEnabled, s.withdrawalFee, s.withdrawalMin])).toEqual([
      ['BTC', 'BTC', true, true, 0.0002, 0.002], // one network on each side
      ['ETH', 'ETH', true, true, null, null], // "Ethereum" is not "ETH": not joined
      ['ETH', 'ARB_ETH', true, true, null, null],
      ['ETH', 'OP_ETH', false, true, null, null],
      ['XRP', 'XRP', true, false, 0.4, 21],
      ['USDT', 'TRX', true, true, 1, 10], // the fee network is named like the code
      ['USDT', 'ETH', true, true, null, null],
      ['SOL', 'SOL', true, true, null, 0.1],
    ]);
    expect(statuses[0]).toMatchObject({ exchange: 'bithumb', depositStatus: '1', withdrawStatus: '1' });
    expect(statuses[4]).toMatchObject({ withdrawStatus: '0' });
    expect(unmatched).toEqual([
      'ETH/ETH (fee networks: Ethereum, Arbitrum One, Optimism)',
      'ETH/ARB_ETH (fee networks: Ethereum, Arbitrum One, Optimism)',
      'ETH/OP_ETH (fee networks: Ethereum, Arbitrum One, Optimism)',
      'USDT/ETH (fee networks: TRX, Ethereum)',
    ]);
  });

  it('builds the requests', () => {
    expect(bithumbBookRequests.allKrwOrderBooks(1)).toEqual({ path: '/public/orderbook/ALL_KRW', query: { count: 1 } });
    expect(bithumbBookRequests.orderBooks(['btc', 'KRW-ETH'])).toEqual({ path: '/v1/orderbook', query: { markets: 'KRW-BTC,KRW-ETH' } });
    expect(bithumbBookRequests.fees('btc')).toEqual({ path: '/v2/fee/inout/BTC', query: {} });
  });
});

describe('Binance spot order book (GET /api/v3/depth)', () => {
  it('reads the USDT book: [price, qty] strings to numbers, the base symbol, a level without a quantity skipped', async () => {
    await serve([['/api/v3/depth', fixture('binance/depth-BTCUSDT-20.json')]]);
    const budget = new RequestBudget(12);
    const before = Date.now();
    const book = await call('binance', budget, (up) => fetchBinanceOrderBook(up, 'btc', 20));
    expect(server!.requests.map((r) => [r.path, r.query])).toEqual([['/api/v3/depth', { symbol: 'BTCUSDT', limit: '20' }]]);
    expect(budget.byUpstream.get('binance')).toBe(1);
    expect([book.exchange, book.symbol, book.quote, book.lastUpdateId]).toEqual(['binance', 'BTC', 'USDT', 79114211508]);
    expect(book.asOf.getTime()).toBeGreaterThanOrEqual(before);
    expect(book.skipped).toEqual(['bids[7]: qty: missing']);
    expect([book.bids.length, book.asks.length]).toEqual([19, 20]);
    expect([book.bids[0], book.asks[0]]).toEqual([
      { price: 65300, qty: 1.2041 },
      { price: 65300.01, qty: 0.81102 },
    ]);

    // bidKrw/askKrw are USDT amounts for a Binance book
    const depth = orderBookDepth(book);
    if (!depth.ok) throw new Error(depth.reason);
    expect(depth.mid).toBeCloseTo(65300.005, 6);
    expect(depth.bidQty).toBeCloseTo(15.51927, 8);
    expect(depth.bidKrw).toBeCloseTo(1013392.8097316, 4);
    expect(depth.askQty).toBeCloseTo(17.6085, 8);
    expect(depth.askKrw).toBeCloseTo(1149852.2661548, 4);
    expect([depth.bidCovered, depth.askCovered]).toEqual([false, false]);
  });

  it('fails clearly on the documented error body (HTTP 400 {code, msg}) and on the 451 geo-block', async () => {
    await serve([['/api/v3/depth', recordedReply('binance/error-400-invalid-symbol.json')]]);
    const err = await call('binance', new RequestBudget(12), (up) => fetchBinanceOrderBook(up, 'NOPE')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UpstreamError);
    expect((err as Error).message).toMatch(
      /^binance: GET http:\/\/127\.0\.0\.1:\d+\/api\/v3\/depth\?symbol=NOPEUSDT&limit=100 failed with HTTP 400: \{"code":-1121,"msg":"Invalid symbol\."\}$/,
    );
    expect(server!.requests).toHaveLength(1);

    await server!.close();
    await serve([['/api/v3/depth', recordedReply('binance-451.json')]]);
    const geo = await call('binance', new RequestBudget(12), (up) => fetchBinanceOrderBook(up, 'BTC')).catch((e: unknown) => e);
    expect((geo as UpstreamError).status).toBe(451);

    expect(() =>
      readBinanceOrderBook(
        offline('binance', 'https://api.binance.com/'),
        '/api/v3/depth',
        'BTC',
        { code: -1003, msg: 'Too many requests.' },
        new Date(),
      ),
    ).toThrow(/^binance: GET https:\/\/api\.binance\.com\/api\/v3\/depth answered error -1003 \("Too many requests\."\)$/);
  });

  it('knows the request weight of each limit and refuses a limit Binance does not take', () => {
    expect([1, 100, 101, 500, 501, 1000, 1001, 5000].map(binanceDepthWeight)).toEqual([5, 5, 25, 25, 50, 50, 250, 250]);
    expect(binanceUsdtSymbol('ETHUSDT')).toBe('ETHUSDT');
    expect(binanceUsdtSymbol('usdc')).toBe('USDCUSDT');
    expect(() => binanceBookRequests.depth('BTC', BINANCE_DEPTH_MAX_LIMIT + 1)).toThrow(RangeError);
    expect(() => binanceBookRequests.depth('BTC', 0)).toThrow(RangeError);
  });
});

describe('fee table', () => {
  it('has a default taker fee with a source and a date for every exchange, and no withdrawal fee where no public API gives one', () => {
    expect(Object.keys(TRADING_FEES).sort()).toEqual(['binance', 'bithumb', 'coinone', 'korbit', 'upbit']);
    for (const fee of Object.values(TRADING_FEES)) {
      expect(fee.takerPct).toBeGreaterThan(0);
      expect(fee.takerPct).toBeLessThan(1);
      expect(fee.source).toMatch(/https:\/\//);
      expect(fee.asOf).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    }
    expect(TRADING_FEES.upbit.takerPct).toBe(0.05);
    expect(TRADING_FEES.binance.takerPct).toBe(0.1);
    expect([WITHDRAWAL_FEE_SOURCES.upbit.publicApi, WITHDRAWAL_FEE_SOURCES.binance.publicApi]).toEqual([null, null]);
  });
});
