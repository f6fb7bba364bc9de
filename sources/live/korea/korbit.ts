/**
 * Korbit (api.korbit.co.kr, Open API v2): every ticker in one call, one pair's order book, the
 * trading-pair list with its status, and per-currency, per-network deposit and withdrawal status
 * with the withdrawal fee. Facts and their sources: coinone-korbit.md. Not wired into index.ts or a
 * step yet. The order book, depth and wallet-status shapes are coinone.ts's.
 *
 * - Every answer is `{success: true, data: ...}`; a refused request `{success: false, error:
 *   {message: <CODE>, description?}}` (as the official CLI reads it), with a non-2xx status or
 *   HTTP 200: both are failures. Times are epoch milliseconds (UTC instants).
 * - GET /v2/tickers[?symbol=btc_krw,eth_krw]: without `symbol`, every tradable pair. Pairs are
 *   lower-case `base_quote`; prices and volumes decimal strings. open/high/low/close and the
 *   volumes cover the last 24 hours (rolling); `prevClose` is the close of the 24 hours before.
 *   `priceChange`/`priceChangePercent` are documented as prevClose - close while the examples show
 *   close - prevClose: the change is computed here from close and prevClose instead.
 *   `lastTradedAt` (epoch ms) is the last trade, the only time in the answer: the price's source
 *   time (a quiet pair shows an old one, which makes its premium stale).
 * - GET /v2/orderbook?symbol=btc_krw[&level=...]: `data: {timestamp, bids, asks}`, bids descending,
 *   asks ascending, `amt` only with `level` aggregation. The number of levels is not documented.
 * - GET /v2/currencyPairs: `status` launched (tradable) or stopped.
 * - GET /v2/currencies (public): `networkList[]` with depositStatus/withdrawalStatus launched or
 *   stopped, withdrawalTxFee and withdrawalMinAmount per network; the same fields at the top level
 *   are deprecated ("삭제 예정") and only read for a currency without networkList.
 * - Public API: 50 requests a second per IP; over it HTTP 429 with Retry-After (the shared client
 *   waits and retries).
 */
import { z } from 'zod';
import type { Row } from '../../../lib/duckdb.ts';
import { describeIssues } from '../../../lib/zod-issues.ts';
import { UpstreamError, type Upstream } from '../http.ts';
import {
  changePct,
  DecimalValue,
  EpochMillis,
  IntValue,
  PositivePrice,
  readBookLevels,
  type MarketStatus,
  type OrderBook,
  type UpstreamLike,
  type UpstreamRequest,
  type WalletStatus,
} from './exchange-book.ts';
import { knownOr, labelBy, readRows, unknownValues, type Known, type RowsRead } from './lenient.ts';
import { shownUrl } from './shown-url.ts';

const SOURCE = 'live';

/** 'BTC' → 'btc_krw'; a pair already spelled 'base_quote' is lower-cased and kept. */
export function korbitPair(symbol: string): string {
  const s = symbol.toLowerCase();
  return s.includes('_') ? s : `${s}_krw`;
}

export const korbitRequests = {
  /** The given pairs, or every tradable pair when none is given. */
  tickers: (symbols: readonly string[] = []): UpstreamRequest => ({
    path: '/v2/tickers',
    query: { symbol: symbols.length ? symbols.map(korbitPair).join(',') : undefined },
  }),
  /** One pair's book; `level` is one of the pair's `orderbookLevels` (GET /v2/tickSizePolicy). */
  orderBook: (symbol: string, options: { level?: string } = {}): UpstreamRequest => ({
    path: '/v2/orderbook',
    query: { symbol: korbitPair(symbol), level: options.level },
  }),
  currencyPairs: (): UpstreamRequest => ({ path: '/v2/currencyPairs', query: {} }),
  currencies: (): UpstreamRequest => ({ path: '/v2/currencies', query: {} }),
};

const KorbitEnvelope = z.object({
  success: z.boolean(),
  data: z.unknown().optional(),
  error: z.object({ message: z.string().optional(), description: z.string().optional() }).optional(),
});

/** The `data` of a `{success: true}` answer; `{success: false, error}` is a failure. */
function korbitData(up: UpstreamLike, path: string, body: unknown): unknown {
  const shown = shownUrl(up, path);
  const envelope = up.parse(KorbitEnvelope, body, `GET ${shown}`);
  if (envelope.success) return envelope.data;
  const { message, description } = envelope.error ?? {};
  throw new UpstreamError(
    up.name,
    shown,
    `${up.name}: GET ${shown} answered success false with error ${message ?? '(none)'}${description ? ` (${JSON.stringify(description)})` : ''}`,
  );
}

function korbitList(up: UpstreamLike, path: string, body: unknown): unknown[] {
  return up.parse(z.array(z.unknown()), korbitData(up, path, body), `GET ${shownUrl(up, path)} data`);
}

const Pair = z.string().regex(/^[a-z0-9]+_[a-z0-9]+$/i, "expected a pair 'base_quote'");
const splitPair = (pair: string) => {
  const [base, quote] = pair.split('_') as [string, string];
  return { symbol: base.toUpperCase(), quote: quote.toUpperCase() };
};

export const KorbitTicker = z
  .object({
    symbol: Pair,
    open: DecimalValue,
    high: DecimalValue,
    low: DecimalValue,
    close: PositivePrice,
    prevClose: DecimalValue,
    /** 24 h volume in the base currency. */
    volume: DecimalValue,
    /** 24 h turnover in the quote currency (KRW). */
    quoteVolume: DecimalValue,
    lastTradedAt: EpochMillis,
  })
  .transform((t) => ({ ...t, pair: t.symbol.toLowerCase(), ...splitPair(t.symbol) }));
export type KorbitTicker = z.infer<typeof KorbitTicker>;

/** Reads a tickers answer: a ticker that does not parse is skipped with its reason. */
export function readKorbitTickers(up: UpstreamLike, path: string, body: unknown): RowsRead<KorbitTicker> {
  return readRows(korbitList(up, path, body), KorbitTicker, labelBy('symbol'));
}

export async function fetchKorbitTickers(up: Upstream, symbols: readonly string[] = []): Promise<RowsRead<KorbitTicker>> {
  const { path, query } = korbitRequests.tickers(symbols);
  return readKorbitTickers(up, path, await up.getJson(path, query, z.unknown()));
}

/** kr_tickers rows for the KRW pairs; the change is close against prevClose, the source time the last trade. */
export function korbitTickerRows(tickers: readonly KorbitTicker[]): Row[] {
  return tickers
    .filter((t) => t.quote === 'KRW')
    .map((t) => [
      'korbit',
      t.symbol,
      t.close,
      t.prevClose,
      t.high,
      t.low,
      changePct(t.close, t.prevClose),
      t.volume,
      t.quoteVolume,
      new Date(t.lastTradedAt),
      new Date(t.lastTradedAt), // the ticker has no snapshot time: the last trade is the price's time
      SOURCE,
    ]);
}

const KorbitBook = z.object({ timestamp: EpochMillis, bids: z.array(z.unknown()), asks: z.array(z.unknown()) });

/** Reads an orderbook answer for `symbol`; a level that does not parse is skipped (`skipped`), not the book. */
export function readKorbitOrderBook(up: UpstreamLike, path: string, symbol: string, body: unknown): OrderBook {
  const book = up.parse(KorbitBook, korbitData(up, path, body), `GET ${shownUrl(up, path)} data`);
  const skipped: string[] = [];
  return {
    exchange: 'korbit',
    symbol: splitPair(korbitPair(symbol)).symbol,
    asOf: new Date(book.timestamp),
    bids: readBookLevels('bids', book.bids, skipped),
    asks: readBookLevels('asks', book.asks, skipped),
    skipped,
  };
}

export async function fetchKorbitOrderBook(up: Upstream, symbol: string, options: { level?: string } = {}): Promise<OrderBook> {
  const { path, query } = korbitRequests.orderBook(symbol, options);
  return readKorbitOrderBook(up, path, symbol, await up.getJson(path, query, z.unknown()));
}

/** Documented values of a pair's and a network's status. */
export const KORBIT_STATUSES = ['launched', 'stopped'] as const;

export const KorbitCurrencyPair = z
  .object({ symbol: Pair, status: knownOr(KORBIT_STATUSES) })
  .transform((p) => ({ ...p, ...splitPair(p.symbol) }));
export type KorbitCurrencyPair = z.infer<typeof KorbitCurrencyPair>;

export async function fetchKorbitCurrencyPairs(up: Upstream): Promise<RowsRead<KorbitCurrencyPair>> {
  const { path, query } = korbitRequests.currencyPairs();
  return readRows(korbitList(up, path, await up.getJson(path, query, z.unknown())), KorbitCurrencyPair, labelBy('symbol'));
}

/** Trading status per KRW pair: only `launched` trades; an undocumented status is noted. */
export function korbitMarketStatuses(pairs: readonly KorbitCurrencyPair[]): { statuses: MarketStatus[]; unknown: string[] } {
  const krw = pairs.filter((p) => p.quote === 'KRW');
  return {
    statuses: krw.map((p) => {
      const open = p.status.value === 'launched';
      return { exchange: 'korbit', symbol: p.symbol, buyable: open, sellable: open, maintenance: false, status: p.status.raw };
    }),
    unknown: unknownValues(
      'status',
      krw.map((p) => ({ value: p.status, where: p.symbol })),
    ),
  };
}

const KorbitNetwork = z.object({
  name: z.string().min(1),
  depositStatus: knownOr(KORBIT_STATUSES),
  withdrawalStatus: knownOr(KORBIT_STATUSES),
  withdrawalTxFee: DecimalValue,
  withdrawalMinAmount: DecimalValue.optional(),
  confirmationCount: IntValue.optional(),
});

export const KorbitCurrency = z.object({
  /** Lower case ('btc'). */
  name: z.string().regex(/^[a-z0-9]+$/i, 'expected a currency symbol'),
  fullName: z.string().optional(),
  defaultNetwork: z.string().optional(),
  /** Read network by network (korbitWalletStatuses), so one bad network does not drop the currency. */
  networkList: z.array(z.unknown()).optional(),
  // Deprecated top-level copies ("삭제 예정"): only used for a currency without networkList.
  depositStatus: knownOr(KORBIT_STATUSES).optional(),
  withdrawalStatus: knownOr(KORBIT_STATUSES).optional(),
  withdrawalTxFee: DecimalValue.optional(),
  withdrawalMinAmount: DecimalValue.optional(),
});
export type KorbitCurrency = z.infer<typeof KorbitCurrency>;

export async function fetchKorbitCurrencies(up: Upstream): Promise<RowsRead<KorbitCurrency>> {
  const { path, query } = korbitRequests.currencies();
  return readRows(korbitList(up, path, await up.getJson(path, query, z.unknown())), KorbitCurrency, labelBy('name'));
}

/**
 * One status per (currency, network). `krw` (the won, no network) is left out. A network that does
 * not parse is skipped with its reason; a coin without networkList falls back to the deprecated
 * top-level fields (network null) when they are all there.
 */
export function korbitWalletStatuses(currencies: readonly KorbitCurrency[]): {
  statuses: WalletStatus[];
  skipped: string[];
  unknown: string[];
} {
  const statuses: WalletStatus[] = [];
  const skipped: string[] = [];
  const seen: Record<'depositStatus' | 'withdrawalStatus', Array<{ value: Known<string>; where: string }>> = {
    depositStatus: [],
    withdrawalStatus: [],
  };
  const push = (symbol: string, network: string | null, s: z.infer<typeof KorbitNetwork>) => {
    const where = network ? `${symbol}/${network}` : symbol;
    seen.depositStatus.push({ value: s.depositStatus, where });
    seen.withdrawalStatus.push({ value: s.withdrawalStatus, where });
    statuses.push({
      exchange: 'korbit',
      symbol,
      network,
      depositEnabled: s.depositStatus.value === 'launched',
      withdrawEnabled: s.withdrawalStatus.value === 'launched',
      depositStatus: s.depositStatus.raw,
      withdrawStatus: s.withdrawalStatus.raw,
      withdrawalFee: s.withdrawalTxFee,
      withdrawalMin: s.withdrawalMinAmount ?? null,
    });
  };
  for (const c of currencies) {
    const symbol = c.name.toUpperCase();
    if (symbol === 'KRW') continue;
    if (c.networkList) {
      c.networkList.forEach((item, i) => {
        const net = KorbitNetwork.safeParse(item);
        if (net.success) push(symbol, net.data.name, net.data);
        else skipped.push(`${symbol}.networkList[${i}]: ${describeIssues(net.error.issues)}`);
      });
    } else if (c.depositStatus && c.withdrawalStatus && c.withdrawalTxFee !== undefined) {
      push(symbol, null, {
        name: symbol,
        depositStatus: c.depositStatus,
        withdrawalStatus: c.withdrawalStatus,
        withdrawalTxFee: c.withdrawalTxFee,
        withdrawalMinAmount: c.withdrawalMinAmount,
      });
    } else {
      skipped.push(`${symbol}: no networkList and no deposit/withdrawal status`);
    }
  }
  return {
    statuses,
    skipped,
    unknown: [...unknownValues('depositStatus', seen.depositStatus), ...unknownValues('withdrawalStatus', seen.withdrawalStatus)],
  };
}
