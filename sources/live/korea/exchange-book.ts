/**
 * What the Coinone and Korbit adapters share (coinone.ts, korbit.ts): the number and time parsers
 * their string-typed payloads need, the order book and its depth within a band around mid, and the
 * per-currency wallet and per-market trading status. Facts and sources: coinone-korbit.md.
 */
import { z } from 'zod';
import { describeIssues } from '../../../lib/zod-issues.ts';
import type { Query, Upstream } from '../http.ts';

/** What an adapter needs of the shared client to name itself in messages and parse. */
export type UpstreamLike = Pick<Upstream, 'name' | 'shownBaseUrl' | 'parse'>;

/** A GET an adapter makes: path under the base URL and its query (undefined values are left out). */
export interface UpstreamRequest {
  path: string;
  query: Query;
}

const DECIMAL = /^-?\d+(\.\d+)?([eE][-+]?\d+)?$/;

/** A decimal sent as a string ("91180000.0", as both exchanges document) or as a JSON number. */
export const DecimalValue = z.unknown().transform((value, ctx): number => {
  const n = typeof value === 'number' ? value : typeof value === 'string' && DECIMAL.test(value) ? Number(value) : Number.NaN;
  if (!Number.isFinite(n)) {
    ctx.addIssue({ code: 'custom', message: value === undefined ? 'missing' : `expected a decimal number, got ${JSON.stringify(value)}` });
    return z.NEVER;
  }
  return n;
});

export const PositivePrice = DecimalValue.refine((n) => n > 0, 'expected a positive price');

/** Epoch milliseconds as an integer or a string of digits; a value in seconds is refused. */
export const EpochMillis = z.unknown().transform((value, ctx): number => {
  const n = typeof value === 'number' ? value : typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : Number.NaN;
  // 1e11 ms is 1973, 1e14 ms the year 5138: outside, it is not epoch ms (seconds, or garbage).
  if (!Number.isInteger(n) || n < 1e11 || n > 1e14) {
    ctx.addIssue({
      code: 'custom',
      message: value === undefined ? 'missing' : `expected epoch milliseconds, got ${JSON.stringify(value)}`,
    });
    return z.NEVER;
  }
  return n;
});

/** A small integer sent as a number or a string of digits (confirmation counts, status codes). */
export const IntValue = z.unknown().transform((value, ctx): number => {
  const n = typeof value === 'number' ? value : typeof value === 'string' && /^-?\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isInteger(n)) {
    ctx.addIssue({ code: 'custom', message: value === undefined ? 'missing' : `expected an integer, got ${JSON.stringify(value)}` });
    return z.NEVER;
  }
  return n;
});

export const CurrencySymbol = z.string().regex(/^[A-Za-z0-9]+$/, 'expected a currency symbol');

/** A percent change rounded like the Upbit adapter's (8 decimals); null without a reference price. */
export function changePct(price: number, reference: number): number | null {
  return reference > 0 ? Math.round(((price - reference) / reference) * 100 * 1e8) / 1e8 : null;
}

export interface BookLevel {
  price: number;
  /** Base-currency quantity at this price. */
  qty: number;
}

export interface OrderBook {
  exchange: string;
  /** Base symbol, upper case ('BTC'); the quote is KRW. */
  symbol: string;
  /** The exchange's time of the book. */
  asOf: Date;
  /** Best (highest) first. */
  bids: BookLevel[];
  /** Best (lowest) first. */
  asks: BookLevel[];
  /** Levels that could not be read, with the reason ("asks[3]: qty: ..."). */
  skipped: string[];
}

const Level = z.object({ price: PositivePrice, qty: DecimalValue.refine((n) => n >= 0, 'expected a quantity >= 0') });

/**
 * One side of a book, level by level: a level that does not parse is skipped with its reason, an
 * empty level (quantity 0) is left out, and the side is sorted best first whatever order it came in.
 */
export function readBookLevels(side: 'bids' | 'asks', items: readonly unknown[], skipped: string[]): BookLevel[] {
  const levels: BookLevel[] = [];
  items.forEach((item, i) => {
    const parsed = Level.safeParse(item);
    if (!parsed.success) skipped.push(`${side}[${i}]: ${describeIssues(parsed.error.issues)}`);
    else if (parsed.data.qty > 0) levels.push(parsed.data);
  });
  return levels.sort((a, b) => (side === 'bids' ? b.price - a.price : a.price - b.price));
}

export type BookDepth =
  | {
      ok: true;
      bestBid: number;
      bestAsk: number;
      mid: number;
      /** (ask - bid) / mid, percent. */
      spreadPct: number;
      bandPct: number;
      /** Bids priced at or above mid × (1 - band): base quantity and KRW value. */
      bidQty: number;
      bidKrw: number;
      /** Asks priced at or below mid × (1 + band). */
      askQty: number;
      askKrw: number;
      bidLevels: number;
      askLevels: number;
      /**
       * The side as sent reaches past the band edge, so every level inside it was seen. False: the
       * exchange sent fewer levels than the band holds and the depth is a lower bound.
       */
      bidCovered: boolean;
      askCovered: boolean;
    }
  | { ok: false; reason: string };

/** Depth within ±`bandPct` % of the mid price, from the best levels an exchange sends. */
export function orderBookDepth(book: OrderBook, bandPct = 2): BookDepth {
  const bestBid = book.bids[0]?.price;
  const bestAsk = book.asks[0]?.price;
  if (bestBid === undefined || bestAsk === undefined) {
    return { ok: false, reason: `${book.exchange} ${book.symbol}: the book has no ${bestBid === undefined ? 'bids' : 'asks'}` };
  }
  if (bestBid >= bestAsk) return { ok: false, reason: `${book.exchange} ${book.symbol}: crossed book (bid ${bestBid} >= ask ${bestAsk})` };
  const mid = (bestBid + bestAsk) / 2;
  const low = mid * (1 - bandPct / 100);
  const high = mid * (1 + bandPct / 100);
  const inBids = book.bids.filter((l) => l.price >= low);
  const inAsks = book.asks.filter((l) => l.price <= high);
  const qty = (levels: BookLevel[]) => levels.reduce((s, l) => s + l.qty, 0);
  const krw = (levels: BookLevel[]) => levels.reduce((s, l) => s + l.price * l.qty, 0);
  return {
    ok: true,
    bestBid,
    bestAsk,
    mid,
    spreadPct: ((bestAsk - bestBid) / mid) * 100,
    bandPct,
    bidQty: qty(inBids),
    bidKrw: krw(inBids),
    askQty: qty(inAsks),
    askKrw: krw(inAsks),
    bidLevels: inBids.length,
    askLevels: inAsks.length,
    bidCovered: book.bids.some((l) => l.price < low),
    askCovered: book.asks.some((l) => l.price > high),
  };
}

/** Deposit and withdrawal status of one currency (on one network where the exchange has several). */
export interface WalletStatus {
  exchange: string;
  /** Upper case ('BTC'). */
  symbol: string;
  /** The exchange's network symbol ('ETH', 'BASE'); null when it publishes one status per currency. */
  network: string | null;
  depositEnabled: boolean;
  withdrawEnabled: boolean;
  /** As sent ('normal', 'launched', 'stopped', ...). */
  depositStatus: string;
  withdrawStatus: string;
  /** In the currency's own units. */
  withdrawalFee: number | null;
  withdrawalMin: number | null;
}

export interface MarketStatus {
  exchange: string;
  symbol: string;
  buyable: boolean;
  sellable: boolean;
  maintenance: boolean;
  /** The exchange's own status, as sent ('1', 'launched'). */
  status: string;
}
