/**
 * Upbit order books (api.upbit.com/v1, quotation API, no key), for the executable premium: the
 * depth within ±2 % of mid (`orderBookDepth`) on the Korean side. Facts and sources:
 * books-wallets.md. Not wired into index.ts or a step yet.
 *
 * - GET /v1/orderbook?markets=KRW-BTC,KRW-ETH[&count=1..30][&level=...]: one element per market,
 *   `{market, timestamp, total_ask_size, total_bid_size, orderbook_units: [{ask_price, bid_price,
 *   ask_size, bid_size}], level}`, numbers as JSON numbers. Unit i pairs the i-th best bid with the
 *   i-th best ask. `count` (since 2025-07-02) is the number of pairs, 1-30, default 30; `level`
 *   groups KRW books only, and an unsupported level answers `[]`.
 * - Upbit documents no limit on the number of markets a request may name (a probe read all 855
 *   pairs in one call). The adapter asks at most UPBIT_BOOK_MARKETS_PER_REQUEST (100) at a time:
 *   the URL stays near 1,100 characters, and one unknown or delisted code, which fails the whole
 *   request with 404 `Code not found`, costs one chunk, not the sweep. All KRW markets (~290) are
 *   3 requests, inside the orderbook group's 10 requests a second per IP.
 * - A thin side is padded with units of price 0 and size 0 at its end: those are left out, not
 *   counted as skipped. A level that does not parse is skipped with its reason; a market whose
 *   envelope does not parse, or that is not quoted in KRW, is listed in `skipped`.
 * - `timestamp` is documented as the request time; probes found it is the book's last change
 *   (a 100 ms grid). It is the book's `asOf`.
 * - Errors are non-2xx `{error: {name, message}}` (the shared client fails with the body in its
 *   message); the same envelope in a 2xx body is also a failure here.
 * - Wallet status (`GET /v1/status/wallet`) and withdrawal fees (`GET /v1/withdraws/chance`) need
 *   an API key (JWT): there is no public adapter for them (books-wallets.md, "Upbit").
 *
 * `readOrderbookUnitsBooks` also reads Bithumb's v1 order book, which has the same shape.
 */
import { z } from 'zod';
import { describeIssues } from '../../../lib/zod-issues.ts';
import { UpstreamError, type Upstream } from '../http.ts';
import { EpochMillis, readBookLevels, type OrderBook, type UpstreamLike, type UpstreamRequest } from './exchange-book.ts';
import { labelBy } from './lenient.ts';
import { shownUrl } from './shown-url.ts';
import { krwSymbol } from './upbit.ts';

/** Markets named in one /v1/orderbook request (the adapter's own cap; Upbit documents none). */
export const UPBIT_BOOK_MARKETS_PER_REQUEST = 100;

/** Most unit pairs /v1/orderbook sends a market (`count` 1-30). */
export const UPBIT_BOOK_MAX_LEVELS = 30;

export interface UpbitBookOptions {
  /** Unit pairs per market, 1-30 (Upbit's default 30). */
  count?: number;
  /** Price grouping of KRW books ('10000'); one the pair does not support answers `[]`. */
  level?: string;
  /** Markets per request; default UPBIT_BOOK_MARKETS_PER_REQUEST. */
  perRequest?: number;
}

/** The order books read from one answer: one per KRW market, and the markets (or requests) that gave none. */
export interface OrderBooksRead {
  books: OrderBook[];
  /** "KRW-XYZ: timestamp: missing", "KRW-ABC: not in the answer". */
  skipped: string[];
}

/** 'btc' → 'KRW-BTC'; a code already spelled 'QUOTE-BASE' is upper-cased and kept. */
export function upbitMarket(symbol: string): string {
  const s = symbol.toUpperCase();
  return s.includes('-') ? s : `KRW-${s}`;
}

export const upbitBookRequests = {
  /** The books of `symbols` ('BTC' or 'KRW-BTC'), in one request. */
  orderBooks: (symbols: readonly string[], options: Pick<UpbitBookOptions, 'count' | 'level'> = {}): UpstreamRequest => ({
    path: '/v1/orderbook',
    query: { markets: symbols.map(upbitMarket).join(','), count: options.count, level: options.level },
  }),
};

const V1Error = z.object({ error: z.object({ name: z.union([z.string(), z.number()]).optional(), message: z.string().optional() }) });

/** Fails on the `{error: {name, message}}` envelope Upbit and Bithumb v1 use, whatever the HTTP status was. */
export function checkV1Error(up: UpstreamLike, path: string, body: unknown): void {
  const failed = V1Error.safeParse(body);
  if (!failed.success) return;
  const shown = shownUrl(up, path);
  const { name, message } = failed.data.error;
  throw new UpstreamError(
    up.name,
    shown,
    `${up.name}: GET ${shown} answered with error ${name ?? '(none)'}${message ? ` (${JSON.stringify(message)})` : ''}`,
  );
}

const UnitsBook = z.object({
  market: z.string().regex(/^[A-Z0-9]+-[A-Z0-9.]+$/i, 'expected a QUOTE-BASE market code'),
  timestamp: EpochMillis,
  orderbook_units: z.array(z.unknown()),
});

type Unit = Record<string, unknown>;

const isZero = (v: unknown) => v === 0 || (typeof v === 'string' && /^0+(\.0+)?$/.test(v));

/** A slot both of whose sides are price 0 and size 0: padding of a thin book, not a level. */
function isPadding(unit: unknown, side: 'bid' | 'ask'): boolean {
  if (typeof unit !== 'object' || unit === null) return false;
  const u = unit as Unit;
  return isZero(u[`${side}_price`]) && isZero(u[`${side}_size`]);
}

function side(units: readonly unknown[], which: 'bid' | 'ask'): unknown[] {
  // Padding trails the real levels, so leaving it out keeps the indices of the messages right.
  return units
    .filter((u) => !isPadding(u, which))
    .map((u) => {
      const unit = (typeof u === 'object' && u !== null ? u : {}) as Unit;
      return { price: unit[`${which}_price`], qty: unit[`${which}_size`] };
    });
}

/**
 * Reads an answer of `orderbook_units` books (Upbit /v1/orderbook, Bithumb /v1/orderbook): one
 * OrderBook per KRW market; a market that does not parse or is not quoted in KRW is listed in
 * `skipped`, a level that does not parse is skipped in its book.
 */
export function readOrderbookUnitsBooks(exchange: string, up: UpstreamLike, path: string, body: unknown): OrderBooksRead {
  checkV1Error(up, path, body);
  const list = up.parse(z.array(z.unknown()), body, `GET ${shownUrl(up, path)}`);
  const out: OrderBooksRead = { books: [], skipped: [] };
  const label = labelBy('market');
  list.forEach((item, i) => {
    const parsed = UnitsBook.safeParse(item);
    if (!parsed.success) {
      out.skipped.push(`${label(item, i)}: ${describeIssues(parsed.error.issues)}`);
      return;
    }
    const market = parsed.data.market.toUpperCase();
    const symbol = krwSymbol(market);
    if (!symbol) {
      out.skipped.push(`${market}: not a KRW market`);
      return;
    }
    const skipped: string[] = [];
    out.books.push({
      exchange,
      symbol,
      asOf: new Date(parsed.data.timestamp),
      bids: readBookLevels('bids', side(parsed.data.orderbook_units, 'bid'), skipped),
      asks: readBookLevels('asks', side(parsed.data.orderbook_units, 'ask'), skipped),
      skipped,
    });
  });
  return out;
}

/** Reads a /v1/orderbook answer: one OrderBook per KRW market (the symbol from KRW-XXX). */
export function readUpbitOrderBooks(up: UpstreamLike, path: string, body: unknown): OrderBooksRead {
  return readOrderbookUnitsBooks('upbit', up, path, body);
}

/** `items` in chunks of at most `size`. */
export function chunked<T>(items: readonly T[], size: number): T[][] {
  if (!Number.isInteger(size) || size < 1) throw new RangeError(`chunk size must be a positive integer, got ${size}`);
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** Names a market asked for that the answer did not hold (an unsupported `level` answers `[]`). */
export function missingMarkets(asked: readonly string[], books: readonly OrderBook[], skipped: readonly string[]): string[] {
  const got = new Set(books.map((b) => `KRW-${b.symbol}`));
  return asked.filter((m) => !got.has(m) && !skipped.some((s) => s.startsWith(`${m}:`))).map((m) => `${m}: not in the answer`);
}

/**
 * The books of `symbols` ('BTC' or 'KRW-BTC'), UPBIT_BOOK_MARKETS_PER_REQUEST markets a request,
 * one request after another. A request that fails fails the call (an unknown code answers 404 for
 * its whole chunk): ask for the markets of the current market list.
 */
export async function fetchUpbitOrderBooks(
  up: Upstream,
  symbols: readonly string[],
  options: UpbitBookOptions = {},
): Promise<OrderBooksRead> {
  const markets = [...new Set(symbols.map(upbitMarket))];
  const out: OrderBooksRead = { books: [], skipped: [] };
  for (const chunk of chunked(markets, options.perRequest ?? UPBIT_BOOK_MARKETS_PER_REQUEST)) {
    const { path, query } = upbitBookRequests.orderBooks(chunk, options);
    const read = readUpbitOrderBooks(up, path, await up.getJson(path, query, z.unknown()));
    out.books.push(...read.books);
    out.skipped.push(...read.skipped, ...missingMarkets(chunk, read.books, read.skipped));
  }
  return out;
}
