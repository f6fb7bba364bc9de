/**
 * The korea upstream world on 127.0.0.1: Upbit, Bithumb, Coinone, Korbit, Binance, OKX, FX (Dunamu and er-api on
 * one port), FRED and Naver Finance, each on its own loopback port, serving the recorded payloads
 * in sources/live/korea/fixtures in the upstreams' exact formats, and counting every request.
 *
 * Tests and the korea bench drive it:
 *   const world = await startKoreaUpstreams();
 *   const settings = loadSettings({ ...world.env });        // the *_BASE_URL overrides
 *   world.fault('upbit', '/v1/ticker/all', recordedReply('upbit-429.json'));
 *   world.delist('upbit', 'WAXP');                           // gone from market list and tickers
 *   world.serveDocumented();                                 // Upbit and Bithumb answer their docs' formats
 *   world.macroThrough = '2026-07-31';                       // FRED/Naver publish more days
 *   world.counts();                                          // { total, backfill, budgeted, byUpstream }
 *
 * FRED and Naver answer the rows of their recorded 2-year history between the requested dates and
 * up to `macroThrough`; a request spanning more than 31 days counts as backfill.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { NEWS_FIXTURE_FEEDS_FILE, startNewsUpstreams, type NewsUpstreamWorld } from './news-upstreams.ts';
import { startLoopback, type Loopback, type RecordedRequest, type Reply } from '../../../lib/testing/loopback.ts';

const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), '..', 'korea', 'fixtures');

/** The time the market fixtures were captured at: use it as the run's `now`. */
export const KOREA_FIXTURE_NOW = new Date('2026-07-30T07:41:05Z');
/** The last FRED/Naver day published at the capture (the files hold two more days). */
export const KOREA_FIXTURE_MACRO_THROUGH = '2026-07-29';

export function koreaFixtureText(name: string): string {
  return readFileSync(join(FIXTURES, name), 'utf8');
}

export function koreaFixture<T = unknown>(name: string): T {
  return JSON.parse(koreaFixtureText(name)) as T;
}

/** A recorded response (status, headers, body) as a loopback reply. */
export function recordedReply(name: string): Reply {
  const r = koreaFixture<{ status: number; headers: Record<string, string>; body: string }>(name);
  return { status: r.status, headers: r.headers, text: r.body };
}

export type KoreaServer = 'upbit' | 'bithumb' | 'coinone' | 'korbit' | 'binance' | 'okx' | 'fx' | 'fred' | 'naver';

export interface WorldRequest {
  upstream: KoreaServer;
  path: string;
  query: Record<string, string>;
  /** A FRED or Naver request spanning more than 31 days: the backfill. */
  backfill: boolean;
}

export interface WorldCounts {
  total: number;
  backfill: number;
  /** The executable premium's order books and wallet statuses (counted apart from the budget). */
  books: number;
  /** Requests that count against a run's budget: all but the backfill and the books. */
  budgeted: number;
  byUpstream: Record<KoreaServer, number>;
}

export interface KoreaUpstreamWorld {
  /** Base URL settings pointing at the loopback servers (spread into loadSettings' env). */
  env: Record<
    | 'UPBIT_BASE_URL'
    | 'BITHUMB_BASE_URL'
    | 'COINONE_BASE_URL'
    | 'KORBIT_BASE_URL'
    | 'BINANCE_BASE_URL'
    | 'OKX_BASE_URL'
    | 'FX_BASE_URL'
    | 'FRED_BASE_URL'
    | 'NAVER_FINANCE_BASE_URL'
    | 'NEWS_FEEDS_URL'
    | 'NAVER_NEWS_BASE_URL'
    | 'NEWS_FEEDS_FILE',
    string
  >;
  servers: Record<KoreaServer, Loopback>;
  /** The Korean news outlets and Naver news search (their own cadence and requests, outside `counts()`). */
  news: NewsUpstreamWorld;
  requests(): WorldRequest[];
  counts(): WorldCounts;
  /** Clears the request logs (between two runs). */
  reset(): void;
  /** Answers `path` of `upstream` with this reply (or sequence; the last repeats) until healed. */
  fault(upstream: KoreaServer, path: string, reply: Reply | Reply[]): void;
  heal(): void;
  /** Removes a symbol from an exchange's market list and tickers (a delisting between runs). */
  delist(exchange: 'upbit' | 'bithumb' | 'coinone' | 'korbit', symbol: string): void;
  /**
   * Upbit and Bithumb answer the `*-documented.json` payloads: the fields and encodings of the
   * exchanges' documentation examples (no Bithumb `data.date`, no alert `warning_step`), 7 KRW
   * markets. Served as faults: a later fault on the same path replaces one, heal() ends them.
   */
  serveDocumented(): void;
  /** Last day FRED and Naver have published ('YYYY-MM-DD'). */
  macroThrough: string;
  close(): Promise<void>;
}

type Handler = (req: RecordedRequest) => Reply;

/** Symbols the Coinone book routes answer (a path each): the recorded tickers' with a BTC book to scale. */
const BOOK_SYMBOLS = ['BTC', 'ETH', 'XRP', 'SOL', 'DOGE', 'SHIB', 'ADA', 'SUI', 'TRX', 'LINK'];

/** The order book and wallet paths (steps/books.ts): counted apart from the budget. */
export function isBookPath(path: string): boolean {
  return (
    path === '/v1/orderbook' ||
    path.startsWith('/public/v2/orderbook/') ||
    path === '/v2/orderbook' ||
    path === '/api/v3/depth' ||
    path === '/public/assetsstatus/multichain/ALL' ||
    path.startsWith('/v2/fee/inout/') ||
    path === '/public/v2/currencies' ||
    path === '/v2/currencies'
  );
}

const json = (body: unknown, headers: Record<string, string> = {}): Reply => ({ json: body, headers });
const upbitHeaders = (group: string) => ({ 'remaining-req': `group=${group}; min=1800; sec=9` });

const isBackfill = (from: string | undefined, to: string | undefined): boolean => {
  if (!from || !to) return true; // no window: the whole history
  const d = (s: string) => Date.parse(s.length === 8 ? `${s.slice(0, 4)}-${s.slice(4, 6)}-${s.slice(6)}` : s);
  return d(to) - d(from) > 31 * 86_400_000;
};

export async function startKoreaUpstreams(options: { macroThrough?: string } = {}): Promise<KoreaUpstreamWorld> {
  const faults = new Map<string, { replies: Reply[]; next: number }>();
  const delisted = new Set<string>();
  const state = { macroThrough: options.macroThrough ?? KOREA_FIXTURE_MACRO_THROUGH };

  // ------------------------------------------------------------------------- recorded payloads
  type UpbitMarket = { market: string; market_event?: unknown };
  const upbitMarkets = koreaFixture<UpbitMarket[]>('upbit-market-all.json');
  const upbitTickers = koreaFixture<Array<{ market: string; trade_price?: number }>>('upbit-ticker-all-krw.json');
  const bithumbTickers = koreaFixture<{ status: string; data: Record<string, unknown> }>('bithumb-ticker-all-krw.json');
  type BithumbMarket = { market: string; market_warning?: string };
  const bithumbMarkets = koreaFixture<BithumbMarket[]>('bithumb-market-all.json');
  const candleFiles = new Map<string, unknown[]>();
  const candles = (market: string): unknown[] | null => {
    if (!candleFiles.has(market)) {
      try {
        candleFiles.set(market, koreaFixture<unknown[]>(`upbit-candles-1m-${market}.json`));
      } catch {
        candleFiles.set(market, []);
      }
    }
    return candleFiles.get(market)!;
  };
  const fredCsv = new Map<string, string[]>(); // id → lines (header first)
  const fred = (id: string): string[] | null => {
    if (!fredCsv.has(id)) {
      try {
        fredCsv.set(id, koreaFixtureText(`fred-${id}.csv`).split('\n').filter(Boolean));
      } catch {
        return null;
      }
    }
    return fredCsv.get(id)!;
  };
  const naverRows = new Map<string, { header: string; rows: Array<{ day: string; text: string }> }>();
  const naver = (code: string) => {
    if (!naverRows.has(code)) {
      let text: string;
      try {
        text = koreaFixtureText(`naver-sise-${code}.txt`);
      } catch {
        return null;
      }
      const header = text.split('\n')[0]!;
      const rows = [...text.matchAll(/^(\["(\d{8})".*\]),?$/gm)].map((m) => ({ day: m[2]!, text: m[1]! }));
      naverRows.set(code, { header, rows });
    }
    return naverRows.get(code)!;
  };

  const listed = (exchange: string, market: string) => !delisted.has(`${exchange}:${market.replace(/^KRW-/, '')}`);

  // Order books: the recorded BTC book of each venue, moved to another symbol's price (prices
  // times its price over BTC's on that venue, quantities divided by it): the exchange's exact format.
  const lastPrice = (exchange: string, symbol: string): number | null => {
    if (exchange === 'upbit') return Number(upbitTickers.find((t) => t.market === `KRW-${symbol}`)?.trade_price) || null;
    if (exchange === 'bithumb')
      return Number((bithumbTickers.data[symbol] as { closing_price?: string } | undefined)?.closing_price) || null;
    if (exchange === 'coinone')
      return (
        Number(
          koreaFixture<{ tickers: Array<{ target_currency: string; last: string }> }>('coinone/ticker-new-krw.json').tickers.find(
            (t) => t.target_currency.toUpperCase() === symbol,
          )?.last,
        ) || null
      );
    if (exchange === 'korbit')
      return (
        Number(
          koreaFixture<{ data: Array<{ symbol: string; close: string }> }>('korbit/tickers.json').data.find(
            (t) => t.symbol === `${symbol.toLowerCase()}_krw`,
          )?.close,
        ) || null
      );
    return (
      Number(
        koreaFixture<Array<{ symbol: string; lastPrice: string }>>('binance-ticker-24hr-mini.json').find(
          (t) => t.symbol === `${symbol}USDT`,
        )?.lastPrice,
      ) || null
    );
  };
  const scale = (exchange: string, symbol: string): number | null => {
    const p = lastPrice(exchange, symbol);
    const btc = lastPrice(exchange, 'BTC');
    return p && btc ? p / btc : null;
  };
  const num = (x: unknown, f: number) =>
    typeof x === 'string' ? String(Number((Number(x) * f).toPrecision(8))) : Number((Number(x) * f).toPrecision(8));
  const unitsBook = (exchange: 'upbit' | 'bithumb', file: string, markets: string[]): unknown[] => {
    const btc = koreaFixture<Array<Record<string, unknown> & { market: string; orderbook_units: Array<Record<string, number>> }>>(
      file,
    ).find((b) => b.market === 'KRW-BTC')!;
    return markets.flatMap((market) => {
      const f = scale(exchange, market.replace('KRW-', ''));
      if (f === null || !listed(exchange, market)) return [];
      return [
        {
          ...btc,
          market,
          orderbook_units: btc.orderbook_units.map((u) => ({
            ask_price: num(u.ask_price, f),
            bid_price: num(u.bid_price, f),
            ask_size: num(u.ask_size, 1 / f),
            bid_size: num(u.bid_size, 1 / f),
          })),
        },
      ];
    });
  };
  const sideBook = (levels: Array<{ price: string; qty: string }>, f: number) =>
    levels.map((l) => ({ ...l, price: num(l.price, f), qty: num(l.qty, 1 / f) }));

  // ------------------------------------------------------------------------------- handlers
  const routes: Record<KoreaServer, Record<string, Handler>> = {
    upbit: {
      '/v1/market/all': (req) => {
        const details = req.query.is_details === 'true' || req.query.isDetails === 'true';
        const markets = upbitMarkets
          .filter((m) => listed('upbit', m.market))
          .map((m) => (details ? m : (({ market_event: _, ...rest }) => rest)(m)));
        return json(markets, upbitHeaders('market'));
      },
      '/v1/ticker/all': (req) => {
        const quotes = (req.query.quote_currencies ?? req.query.quoteCurrencies ?? '').split(',');
        if (!quotes.includes('KRW')) return json([], upbitHeaders('ticker'));
        return json(
          upbitTickers.filter((t) => listed('upbit', t.market)),
          upbitHeaders('ticker'),
        );
      },
      '/v1/orderbook': (req) =>
        json(unitsBook('upbit', 'upbit/orderbook-krw-btc-eth-xrp.json', (req.query.markets ?? '').split(',')), upbitHeaders('orderbook')),
      '/v1/candles/minutes/1': (req) => {
        const market = req.query.market ?? '';
        if (!upbitMarkets.some((m) => m.market === market) || !listed('upbit', market)) {
          return { ...recordedReply('upbit-404-code-not-found.json'), headers: upbitHeaders('candle') };
        }
        const count = Math.min(200, Math.max(1, Number(req.query.count ?? 1)));
        return json(candles(market)!.slice(0, count), upbitHeaders('candle'));
      },
    },
    bithumb: {
      '/public/ticker/ALL_KRW': () => {
        const data = Object.fromEntries(Object.entries(bithumbTickers.data).filter(([k]) => k === 'date' || listed('bithumb', k)));
        return json({ ...bithumbTickers, data });
      },
      '/v1/market/all': (req) => {
        const details = req.query.isDetails === 'true';
        return json(
          bithumbMarkets
            .filter((m) => listed('bithumb', m.market))
            .map((m) => (details ? m : (({ market_warning: _, ...rest }) => rest)(m))),
        );
      },
      '/v1/market/virtual_asset_warning': () => json(koreaFixture('bithumb-virtual-asset-warning.json')),
      '/v1/orderbook': (req) => json(unitsBook('bithumb', 'bithumb/orderbook-v1-krw-btc-eth.json', (req.query.markets ?? '').split(','))),
      '/public/assetsstatus/multichain/ALL': () => json(koreaFixture('bithumb/assetsstatus-multichain-all.json')),
      '/v2/fee/inout/ALL': () => json(koreaFixture('bithumb/fee-inout-all.json')),
    },
    coinone: {
      ...Object.fromEntries(
        BOOK_SYMBOLS.map((symbol) => [
          `/public/v2/orderbook/KRW/${symbol}`,
          (): Reply => {
            const f = scale('coinone', symbol);
            if (f === null || !listed('coinone', symbol)) return json(koreaFixture('coinone/error-108-unknown-currency.json'));
            const b = koreaFixture<{ bids: Array<{ price: string; qty: string }>; asks: Array<{ price: string; qty: string }> }>(
              'coinone/orderbook-krw-btc.json',
            );
            return json({ ...b, target_currency: symbol, bids: sideBook(b.bids, f), asks: sideBook(b.asks, f) });
          },
        ]),
      ),
      '/public/v2/currencies': () => json(koreaFixture('coinone/currencies.json')),
      '/public/v2/ticker_new/KRW': () => {
        const body = koreaFixture<{ tickers: Array<{ target_currency: string }> }>('coinone/ticker-new-krw.json');
        return json({ ...body, tickers: body.tickers.filter((t) => listed('coinone', t.target_currency.toUpperCase())) });
      },
    },
    korbit: {
      '/v2/orderbook': (req) => {
        const symbol = (req.query.symbol ?? '').split('_')[0]!.toUpperCase();
        const f = scale('korbit', symbol);
        if (f === null || !listed('korbit', symbol)) return { status: 400, json: koreaFixture('korbit/error-invalid-currency-pair.json') };
        const b = koreaFixture<{ data: { bids: Array<{ price: string; qty: string }>; asks: Array<{ price: string; qty: string }> } }>(
          'korbit/orderbook-btc-krw.json',
        );
        return json({ ...b, data: { ...b.data, bids: sideBook(b.data.bids, f), asks: sideBook(b.data.asks, f) } });
      },
      '/v2/currencies': () => json(koreaFixture('korbit/currencies.json')),
      '/v2/tickers': () => {
        const body = koreaFixture<{ data: Array<{ symbol: string }> }>('korbit/tickers.json');
        return json(
          { ...body, data: body.data.filter((t) => listed('korbit', t.symbol.split('_')[0]!.toUpperCase())) },
          { ratelimit: 'limit=50, remaining=49, reset=1', 'ratelimit-policy': '50;w=1' },
        );
      },
    },
    binance: {
      '/api/v3/depth': (req) => {
        const symbol = (req.query.symbol ?? '').replace(/USDT$/, '');
        const f = scale('binance', symbol);
        if (f === null) return { status: 400, json: koreaFixture('binance/error-400-invalid-symbol.json') };
        const b = koreaFixture<{ bids: string[][]; asks: string[][] }>('binance/depth-BTCUSDT-20.json');
        const side = (levels: string[][]) => levels.map(([p, q, ...rest]) => [num(p, f), q === undefined ? q : num(q, 1 / f), ...rest]);
        return json({ ...b, bids: side(b.bids), asks: side(b.asks) }, { 'x-mbx-used-weight-1m': '85' });
      },
      '/api/v3/ticker/24hr': () => json(koreaFixture('binance-ticker-24hr-mini.json'), { 'x-mbx-used-weight-1m': '80' }),
    },
    okx: {
      '/api/v5/market/tickers': (req) =>
        req.query.instType === 'SPOT'
          ? json(koreaFixture('okx-market-tickers-spot.json'))
          : json({ code: '51000', msg: 'Parameter instType error', data: [] }),
    },
    fx: {
      '/v1/forex/recent': (req) => json(req.query.codes?.includes('FRX.KRWUSD') ? koreaFixture('dunamu-forex-recent-krwusd.json') : []),
      '/v6/latest/USD': () => json(koreaFixture('er-api-latest-usd.json')),
    },
    fred: {
      '/graph/fredgraph.csv': (req) => {
        const lines = fred(req.query.id ?? '');
        if (!lines) return { status: 404, headers: { 'content-type': 'text/html' }, text: '<html><body>Series not found</body></html>' };
        const from = req.query.cosd ?? '0000-00-00';
        const to = req.query.coed ?? '9999-99-99';
        const rows = lines.slice(1).filter((l) => {
          const day = l.slice(0, 10);
          return day >= from && day <= to && day <= state.macroThrough;
        });
        return { headers: { 'content-type': 'text/csv' }, text: [lines[0], ...rows].join('\n') + '\n' };
      },
    },
    naver: {
      '/siseJson.naver': (req) => {
        const stock = naver(req.query.symbol ?? '');
        const through = state.macroThrough.replaceAll('-', '');
        const from = req.query.startTime ?? '00000000';
        const to = req.query.endTime ?? '99999999';
        const rows = (stock?.rows ?? []).filter((r) => r.day >= from && r.day <= to && r.day <= through).map((r) => r.text);
        const header = stock?.header ?? ` [['날짜', '시가', '고가', '저가', '종가', '거래량', '외국인소진율'],`;
        const body = rows.length ? `${header}\n\t\t\n${rows.join(',\n\t\t\n')}\n\t\t\n]\n` : `${header}\n\t\t\n]\n`;
        return { headers: { 'content-type': 'text/plain;charset=UTF-8' }, text: body };
      },
    },
  };

  const servers = {} as Record<KoreaServer, Loopback>;
  const news = await startNewsUpstreams();
  for (const [server, paths] of Object.entries(routes) as Array<[KoreaServer, Record<string, Handler>]>) {
    servers[server] = await startLoopback(
      Object.entries(paths).map(([path, handler]) => ({
        method: 'GET' as const,
        path,
        reply: (req: RecordedRequest): Reply => {
          const fault = faults.get(`${server} ${path}`);
          if (fault) return fault.replies[Math.min(fault.next++, fault.replies.length - 1)]!;
          return handler(req);
        },
      })),
    );
  }

  const requests = (): WorldRequest[] =>
    (Object.entries(servers) as Array<[KoreaServer, Loopback]>).flatMap(([upstream, s]) =>
      s.requests.map((r) => ({
        upstream,
        path: r.path,
        query: r.query,
        backfill:
          (upstream === 'fred' && isBackfill(r.query.cosd, r.query.coed)) ||
          (upstream === 'naver' && isBackfill(r.query.startTime, r.query.endTime)),
      })),
    );

  return {
    env: {
      ...news.env,
      NEWS_FEEDS_FILE: NEWS_FIXTURE_FEEDS_FILE,
      UPBIT_BASE_URL: servers.upbit.url,
      BITHUMB_BASE_URL: servers.bithumb.url,
      COINONE_BASE_URL: servers.coinone.url,
      KORBIT_BASE_URL: servers.korbit.url,
      BINANCE_BASE_URL: servers.binance.url,
      OKX_BASE_URL: servers.okx.url,
      FX_BASE_URL: servers.fx.url,
      FRED_BASE_URL: servers.fred.url,
      NAVER_FINANCE_BASE_URL: servers.naver.url,
    },
    servers,
    news,
    requests,
    counts() {
      const all = requests();
      const byUpstream = Object.fromEntries(Object.keys(servers).map((k) => [k, 0])) as Record<KoreaServer, number>;
      for (const r of all) byUpstream[r.upstream]++;
      const backfill = all.filter((r) => r.backfill).length;
      const books = all.filter((r) => isBookPath(r.path)).length;
      return { total: all.length, backfill, books, budgeted: all.length - backfill - books, byUpstream };
    },
    reset() {
      for (const s of Object.values(servers)) s.reset();
      news.reset();
    },
    fault(upstream, path, reply) {
      faults.set(`${upstream} ${path}`, { replies: Array.isArray(reply) ? reply : [reply], next: 0 });
    },
    heal() {
      faults.clear();
    },
    delist(exchange, symbol) {
      delisted.add(`${exchange}:${symbol}`);
    },
    serveDocumented() {
      const documented: Array<[KoreaServer, string, string, Record<string, string>]> = [
        ['upbit', '/v1/market/all', 'upbit-market-all-documented.json', upbitHeaders('market')],
        ['upbit', '/v1/ticker/all', 'upbit-ticker-all-krw-documented.json', upbitHeaders('ticker')],
        ['bithumb', '/public/ticker/ALL_KRW', 'bithumb-ticker-all-krw-documented.json', {}],
        ['bithumb', '/v1/market/all', 'bithumb-market-all-documented.json', {}],
        ['bithumb', '/v1/market/virtual_asset_warning', 'bithumb-virtual-asset-warning-documented.json', {}],
      ];
      for (const [server, path, file, headers] of documented)
        faults.set(`${server} ${path}`, { replies: [json(koreaFixture(file), headers)], next: 0 });
    },
    get macroThrough() {
      return state.macroThrough;
    },
    set macroThrough(day: string) {
      state.macroThrough = day;
    },
    async close() {
      await Promise.all([...Object.values(servers).map((s) => s.close()), news.close()]);
    },
  };
}
