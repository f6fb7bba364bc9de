/**
 * Coinone (api.coinone.co.kr, public API v2): every KRW ticker in one call, one market's order
 * book, the market list with its trading and maintenance status, and per-currency deposit and
 * withdrawal status with the withdrawal fee. Facts and their sources: coinone-korbit.md. Not wired
 * into index.ts or a step yet.
 *
 * - GET /public/v2/ticker_new/KRW: `{result, error_code, server_time, tickers: [...]}`, every price
 *   and volume a decimal string. Live answers spell the currencies in lower case ("btc"), the
 *   documentation's example in upper case: both are read. high/low/first/last and the volumes cover
 *   the last 24 hours (rolling): `first` is the price 24 h ago and stands in for the previous close
 *   (the ticker has none). `timestamp` (epoch ms) is when the ticker was made: the price's source
 *   time. It is refreshed on quiet markets too, so it does not prove a recent trade.
 * - Errors come with HTTP 200 as `{result: "error", error_code, error_msg}` (`errorCode`/`errorMsg`
 *   in older answers): a failure, not retried. An unknown path answers an HTML page.
 * - GET /public/v2/orderbook/KRW/{SYMBOL}?size=5|10|15|16 (default 15): bids and asks best first, at
 *   most 16 levels a side, so for liquid markets the depth within ±2 % of mid is a lower bound
 *   (`orderBookDepth` says which side); `order_book_unit` (from the market list) aggregates levels.
 * - GET /public/v2/markets/KRW: `trade_status` 0 none, 1 buy and sell, 2 no buy, 3 no sell;
 *   `maintenance_status` 0/1. No names (Korean or English): no kr_markets rows.
 * - GET /public/v2/currencies: `deposit_status`/`withdraw_status` ("normal" when open; no other
 *   value is documented in the sources found), `withdrawal_fee` in the currency's own units.
 * - Public v2: 1,200 requests a minute per IP; over it `error_code` 4 "Blocked user access".
 *
 * The parsers, order book, depth and wallet-status shapes it shares with korbit.ts are in exchange-book.ts.
 */
import { z } from 'zod';
import type { Row } from '../../../lib/duckdb.ts';
import { UpstreamError, type Upstream } from '../http.ts';
import { knownOr, labelBy, readRows, unknownValues, type Known, type RowsRead } from './lenient.ts';
import { shownUrl } from './shown-url.ts';
import {
  type UpstreamLike,
  type UpstreamRequest,
  DecimalValue,
  PositivePrice,
  EpochMillis,
  IntValue,
  changePct,
  type OrderBook,
  readBookLevels,
  type WalletStatus,
  type MarketStatus,
  CurrencySymbol,
} from './exchange-book.ts';

const SOURCE = 'live';

// ------------------------------------------------------------------------------------ Coinone

export const coinoneRequests = {
  /** Every ticker of one quote market (KRW is the only one with markets). */
  tickers: (quote = 'KRW'): UpstreamRequest => ({ path: `/public/v2/ticker_new/${quote}`, query: {} }),
  /** One market's book: `size` 5, 10, 15 or 16 levels a side; `orderBookUnit` one of the market's `order_book_units`. */
  orderBook: (symbol: string, options: { size?: 5 | 10 | 15 | 16; orderBookUnit?: string } = {}): UpstreamRequest => ({
    path: `/public/v2/orderbook/KRW/${encodeURIComponent(symbol.toUpperCase())}`,
    query: { size: options.size ?? 15, order_book_unit: options.orderBookUnit },
  }),
  markets: (quote = 'KRW'): UpstreamRequest => ({ path: `/public/v2/markets/${quote}`, query: {} }),
  currencies: (): UpstreamRequest => ({ path: '/public/v2/currencies', query: {} }),
};

const CoinoneEnvelope = z.object({
  result: z.string(),
  error_code: z.union([z.string(), z.number()]).optional(),
  errorCode: z.union([z.string(), z.number()]).optional(),
  error_msg: z.string().optional(),
  errorMsg: z.string().optional(),
});

/** Fails unless the answer says `result: "success"`: Coinone sends errors with HTTP 200. */
function checkCoinone(up: UpstreamLike, path: string, body: unknown): void {
  const shown = shownUrl(up, path);
  const envelope = up.parse(CoinoneEnvelope, body, `GET ${shown}`);
  if (envelope.result === 'success') return;
  const code = envelope.error_code ?? envelope.errorCode;
  const message = envelope.error_msg ?? envelope.errorMsg;
  throw new UpstreamError(
    up.name,
    shown,
    `${up.name}: GET ${shown} answered result ${JSON.stringify(envelope.result)} with error_code ${code ?? '(none)'}${message ? ` (${JSON.stringify(message)})` : ''}; Coinone reports errors in the body of an HTTP 200 answer`,
  );
}

/** `{result, ..., <field>: [...]}`: the list under `field`, after the error check. */
function coinoneList(up: UpstreamLike, path: string, body: unknown, field: string): unknown[] {
  checkCoinone(up, path, body);
  return up.parse(z.object({ [field]: z.array(z.unknown()) }), body, `GET ${shownUrl(up, path)}`)[field] as unknown[];
}

export const CoinoneTicker = z
  .object({
    quote_currency: CurrencySymbol,
    target_currency: CurrencySymbol,
    /** When the ticker was made (epoch ms). */
    timestamp: EpochMillis,
    high: DecimalValue,
    low: DecimalValue,
    /** The price 24 h ago. */
    first: DecimalValue,
    last: PositivePrice,
    /** 24 h turnover in KRW. */
    quote_volume: DecimalValue,
    /** 24 h volume in the base currency. */
    target_volume: DecimalValue,
    id: z.string().optional(),
  })
  .transform((t) => ({ ...t, symbol: t.target_currency.toUpperCase(), quote: t.quote_currency.toUpperCase() }));
export type CoinoneTicker = z.infer<typeof CoinoneTicker>;

export interface CoinoneTickers extends RowsRead<CoinoneTicker> {
  /** `server_time` of the answer (epoch ms), or null when absent. */
  serverTimeMs: number | null;
}

/** Reads a ticker_new answer: a ticker that does not parse is skipped with its reason. */
export function readCoinoneTickers(up: UpstreamLike, path: string, body: unknown): CoinoneTickers {
  const list = coinoneList(up, path, body, 'tickers');
  const serverTime = EpochMillis.safeParse((body as { server_time?: unknown }).server_time);
  return { ...readRows(list, CoinoneTicker, labelBy('target_currency')), serverTimeMs: serverTime.success ? serverTime.data : null };
}

export async function fetchCoinoneTickers(up: Upstream, quote = 'KRW'): Promise<CoinoneTickers> {
  const { path, query } = coinoneRequests.tickers(quote);
  return readCoinoneTickers(up, path, await up.getJson(path, query, z.unknown()));
}

/**
 * kr_tickers rows for the KRW tickers. The 24 h change is measured from `first` (the price 24 h
 * ago), which is also the row's previous close; the source time is the ticker's `timestamp`.
 */
export function coinoneTickerRows(tickers: readonly CoinoneTicker[]): Row[] {
  return tickers
    .filter((t) => t.quote === 'KRW')
    .map((t) => [
      'coinone',
      t.symbol,
      t.last,
      t.first,
      t.high,
      t.low,
      changePct(t.last, t.first),
      t.target_volume,
      t.quote_volume,
      new Date(t.timestamp),
      null, // `timestamp` is refreshed on quiet markets too: the ticker does not say when the last trade was
      SOURCE,
    ]);
}

const CoinoneBook = z.object({
  timestamp: EpochMillis,
  target_currency: CurrencySymbol,
  bids: z.array(z.unknown()),
  asks: z.array(z.unknown()),
});

/** Reads an orderbook answer; a level that does not parse is skipped (`skipped`), not the book. */
export function readCoinoneOrderBook(up: UpstreamLike, path: string, body: unknown): OrderBook {
  checkCoinone(up, path, body);
  const book = up.parse(CoinoneBook, body, `GET ${shownUrl(up, path)}`);
  const skipped: string[] = [];
  return {
    exchange: 'coinone',
    symbol: book.target_currency.toUpperCase(),
    asOf: new Date(book.timestamp),
    bids: readBookLevels('bids', book.bids, skipped),
    asks: readBookLevels('asks', book.asks, skipped),
    skipped,
  };
}

export async function fetchCoinoneOrderBook(
  up: Upstream,
  symbol: string,
  options: { size?: 5 | 10 | 15 | 16; orderBookUnit?: string } = {},
): Promise<OrderBook> {
  const { path, query } = coinoneRequests.orderBook(symbol, options);
  return readCoinoneOrderBook(up, path, await up.getJson(path, query, z.unknown()));
}

/** `trade_status` codes as documented; another code is kept and listed in `unknown`. */
export const COINONE_TRADE_STATUS: Record<number, { buy: boolean; sell: boolean }> = {
  0: { buy: false, sell: false },
  1: { buy: true, sell: true },
  2: { buy: false, sell: true },
  3: { buy: true, sell: false },
};

export const CoinoneMarket = z
  .object({
    quote_currency: CurrencySymbol,
    target_currency: CurrencySymbol,
    trade_status: IntValue,
    maintenance_status: IntValue,
    order_book_units: z.array(z.string()).optional(),
  })
  .transform((m) => ({ ...m, symbol: m.target_currency.toUpperCase(), quote: m.quote_currency.toUpperCase() }));
export type CoinoneMarket = z.infer<typeof CoinoneMarket>;

export async function fetchCoinoneMarkets(up: Upstream, quote = 'KRW'): Promise<RowsRead<CoinoneMarket>> {
  const { path, query } = coinoneRequests.markets(quote);
  return readRows(coinoneList(up, path, await up.getJson(path, query, z.unknown()), 'markets'), CoinoneMarket, labelBy('target_currency'));
}

/** Trading status per KRW market: an undocumented trade_status is neither buyable nor sellable, and noted. */
export function coinoneMarketStatuses(markets: readonly CoinoneMarket[]): { statuses: MarketStatus[]; unknown: string[] } {
  const statuses: MarketStatus[] = [];
  const odd: string[] = [];
  for (const m of markets) {
    if (m.quote !== 'KRW') continue;
    const trade = COINONE_TRADE_STATUS[m.trade_status];
    if (!trade) odd.push(m.symbol);
    statuses.push({
      exchange: 'coinone',
      symbol: m.symbol,
      buyable: trade?.buy ?? false,
      sellable: trade?.sell ?? false,
      maintenance: m.maintenance_status !== 0,
      status: String(m.trade_status),
    });
  }
  const unknown = odd.length ? [`trade_status is not a documented value (0-3) for ${odd.slice(0, 5).join(', ')}`] : [];
  return { statuses, unknown };
}

/** The open value of deposit_status and withdraw_status; anything else means closed. */
export const COINONE_WALLET_STATUSES = ['normal'] as const;

export const CoinoneCurrency = z.object({
  symbol: CurrencySymbol,
  name: z.string().optional(),
  deposit_status: knownOr(COINONE_WALLET_STATUSES),
  withdraw_status: knownOr(COINONE_WALLET_STATUSES),
  withdrawal_fee: DecimalValue,
  withdrawal_min_amount: DecimalValue.optional(),
  deposit_confirm_count: IntValue.optional(),
});
export type CoinoneCurrency = z.infer<typeof CoinoneCurrency>;

export async function fetchCoinoneCurrencies(up: Upstream): Promise<RowsRead<CoinoneCurrency>> {
  const { path, query } = coinoneRequests.currencies();
  return readRows(coinoneList(up, path, await up.getJson(path, query, z.unknown()), 'currencies'), CoinoneCurrency, labelBy('symbol'));
}

/**
 * One status per currency (Coinone publishes no networks). A status other than "normal" is closed;
 * its value is kept as sent and listed in `unknown` for the run's notes.
 */
export function coinoneWalletStatuses(currencies: readonly CoinoneCurrency[]): { statuses: WalletStatus[]; unknown: string[] } {
  const seen = (field: 'deposit_status' | 'withdraw_status'): Array<{ value: Known<string>; where: string }> =>
    currencies.map((c) => ({ value: c[field], where: c.symbol.toUpperCase() }));
  return {
    statuses: currencies.map((c) => ({
      exchange: 'coinone',
      symbol: c.symbol.toUpperCase(),
      network: null,
      depositEnabled: c.deposit_status.value === 'normal',
      withdrawEnabled: c.withdraw_status.value === 'normal',
      depositStatus: c.deposit_status.raw,
      withdrawStatus: c.withdraw_status.raw,
      withdrawalFee: c.withdrawal_fee,
      withdrawalMin: c.withdrawal_min_amount ?? null,
    })),
    unknown: [...unknownValues('deposit_status', seen('deposit_status')), ...unknownValues('withdraw_status', seen('withdraw_status'))],
  };
}
