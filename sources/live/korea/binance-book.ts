/**
 * Binance spot order book (api.binance.com, public, no key): the global side of the executable
 * premium. Facts and sources: books-wallets.md. Not wired into index.ts or a step yet.
 *
 * Prices are in USDT, not KRW: the book keeps the shared OrderBook shape (`exchange: 'binance'`,
 * the base symbol), so `orderBookDepth`'s `bidKrw`/`askKrw` are USDT amounts for this book.
 *
 * - GET /api/v3/depth?symbol=BTCUSDT&limit=N: `{lastUpdateId, bids: [[price, qty]], asks: [...]}`,
 *   decimal strings, bids best first, asks best first. `limit` defaults to 100, at most 5000.
 * - Request weight by limit: 1-100 → 5, 101-500 → 25, 501-1000 → 50, 1001-5000 → 250, out of
 *   6,000 a minute per IP (`binanceDepthWeight`).
 * - The answer carries no time: `asOf` is when it was received; `lastUpdateId` orders snapshots.
 * - Errors are non-2xx `{code, msg}` (400 `{"code":-1121,"msg":"Invalid symbol."}`); US addresses
 *   get HTTP 451 (binance.ts): the shared client fails on both with the body in its message.
 * - Deposit/withdrawal status and fees (`GET /sapi/v1/capital/config/getall`) are USER_DATA: they
 *   need a signed request with an API key, so there is no public adapter for them.
 */
import { z } from 'zod';
import { UpstreamError, type Upstream } from '../http.ts';
import { readBookLevels, type OrderBook, type UpstreamLike, type UpstreamRequest } from './exchange-book.ts';
import { shownUrl } from './shown-url.ts';

/** Binance's default and largest `limit` of /api/v3/depth. */
export const BINANCE_DEPTH_DEFAULT_LIMIT = 100;
export const BINANCE_DEPTH_MAX_LIMIT = 5000;

/** 'btc' → 'BTCUSDT'; a symbol already ending in USDT is upper-cased and kept. */
export function binanceUsdtSymbol(symbol: string): string {
  const s = symbol.toUpperCase();
  return s.endsWith('USDT') && s.length > 4 ? s : `${s}USDT`;
}

/** The request weight of one /api/v3/depth call with `limit` levels. */
export function binanceDepthWeight(limit: number): number {
  if (limit <= 100) return 5;
  if (limit <= 500) return 25;
  if (limit <= 1000) return 50;
  return 250;
}

export const binanceBookRequests = {
  depth: (symbol: string, limit: number = BINANCE_DEPTH_DEFAULT_LIMIT): UpstreamRequest => {
    if (!Number.isInteger(limit) || limit < 1 || limit > BINANCE_DEPTH_MAX_LIMIT) {
      throw new RangeError(`binance depth limit must be an integer from 1 to ${BINANCE_DEPTH_MAX_LIMIT}, got ${limit}`);
    }
    return { path: '/api/v3/depth', query: { symbol: binanceUsdtSymbol(symbol), limit } };
  },
};

/** A Binance order book: an OrderBook whose prices are USDT. */
export interface BinanceOrderBook extends OrderBook {
  quote: 'USDT';
  /** Binance's book sequence number (the answer has no time). */
  lastUpdateId: number;
}

const Depth = z.object({ lastUpdateId: z.number().int().nonnegative(), bids: z.array(z.unknown()), asks: z.array(z.unknown()) });
const ErrorBody = z.object({ code: z.number(), msg: z.string() });

/** [price, qty] → {price, qty}, the shape readBookLevels reads; anything else is passed on to fail there. */
const asLevel = (item: unknown): unknown => (Array.isArray(item) ? { price: item[0], qty: item[1] } : item);

/**
 * Reads a /api/v3/depth answer for `symbol` ('BTC' or 'BTCUSDT'); a level that does not parse is
 * skipped (`skipped`), not the book. `receivedAt` is the book's time.
 */
export function readBinanceOrderBook(up: UpstreamLike, path: string, symbol: string, body: unknown, receivedAt: Date): BinanceOrderBook {
  const shown = shownUrl(up, path);
  const failed = ErrorBody.safeParse(body);
  if (failed.success) {
    throw new UpstreamError(
      up.name,
      shown,
      `${up.name}: GET ${shown} answered error ${failed.data.code} (${JSON.stringify(failed.data.msg)})`,
    );
  }
  const book = up.parse(Depth, body, `GET ${shown}`);
  const skipped: string[] = [];
  return {
    exchange: 'binance',
    symbol: binanceUsdtSymbol(symbol).slice(0, -4),
    quote: 'USDT',
    asOf: receivedAt,
    lastUpdateId: book.lastUpdateId,
    bids: readBookLevels('bids', book.bids.map(asLevel), skipped),
    asks: readBookLevels('asks', book.asks.map(asLevel), skipped),
    skipped,
  };
}

/** The USDT book of `symbol` ('BTC' or 'BTCUSDT'), `limit` levels a side (weight: binanceDepthWeight). */
export async function fetchBinanceOrderBook(
  up: Upstream,
  symbol: string,
  limit: number = BINANCE_DEPTH_DEFAULT_LIMIT,
): Promise<BinanceOrderBook> {
  const { path, query } = binanceBookRequests.depth(symbol, limit);
  const body = await up.getJson(path, query, z.unknown());
  return readBinanceOrderBook(up, path, symbol, body, new Date());
}
