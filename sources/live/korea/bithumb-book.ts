/**
 * Bithumb (api.bithumb.com, public, no key): order books of every KRW market, per-network deposit
 * and withdrawal status, and withdrawal fees, for the executable premium. Facts and sources:
 * books-wallets.md. Not wired into index.ts or a step yet. The bithumb.ts ticker adapter is not
 * changed; the error conventions are the same.
 *
 * - GET /public/orderbook/ALL_KRW[?count=1..5] (legacy API 1.0, still answering in 2026): every KRW
 *   market in one call, `{status: "0000", data: {timestamp, payment_currency, <SYMBOL>: {order_currency,
 *   bids: [{quantity, price}], asks: [...]}}}`, all strings. Only 5 levels a side (count 1-5, default
 *   5): enough for the best bid and ask of every market, a lower bound for the ±2 % depth
 *   (`orderBookDepth` says so per side). `data.timestamp` is read with bithumbStampToUtc, since
 *   Bithumb stamps some legacy times from the KST wall clock.
 * - GET /v1/orderbook?markets=KRW-BTC,KRW-ETH: Upbit's shape (`orderbook_units`, JSON numbers,
 *   true Unix ms), 15 levels a market when several are asked, 30 for one. The markets a request may
 *   name are not capped in the sources (the ticker will be capped at 200 from 2026-10-13, and a
 *   4,264-character query answered 414): the adapter asks BITHUMB_BOOK_MARKETS_PER_REQUEST (100).
 * - GET /public/assetsstatus/multichain/ALL: `{status, data: [{currency, net_type, deposit_status,
 *   withdrawal_status}]}`, one row per (currency, network), statuses documented as 1 (open) / 0.
 * - GET /v2/fee/inout/ALL (documented without authentication): `[{name, currency, networks:
 *   [{net_name, withdraw_fee_quantity, withdraw_rate, withdraw_fee_min, withdraw_fee_max,
 *   withdraw_minimum_quantity, ...}]}]`. Networks are named (`net_name` "Ethereum") where the
 *   status rows carry codes (`net_type` "ETH"): a fee is joined to a status only when the two match
 *   after normalising, or when the currency has one network on each side; otherwise it stays null
 *   (never guessed) and the pair is listed in `unmatched`.
 * - Errors: legacy calls answer HTTP 200 with a status other than "0000" ({"status":"5500",
 *   "message":"Invalid Parameter"}); v1 calls answer `{error: {name, message}}`, also with HTTP 200.
 *   Both are failures, not retried.
 * - 150 requests a second per IP and category (order book, "기타" for the rest).
 */
import { z } from 'zod';
import { describeIssues } from '../../../lib/zod-issues.ts';
import { UpstreamError, type Upstream } from '../http.ts';
import {
  CurrencySymbol,
  DecimalValue,
  EpochMillis,
  readBookLevels,
  type UpstreamLike,
  type UpstreamRequest,
  type WalletStatus,
} from './exchange-book.ts';
import { bithumbStampToUtc } from './kst.ts';
import { labelBy, readRows, type RowsRead } from './lenient.ts';
import { shownUrl } from './shown-url.ts';
import { checkV1Error, chunked, missingMarkets, readOrderbookUnitsBooks, upbitMarket, type OrderBooksRead } from './upbit-book.ts';

/** Markets named in one /v1/orderbook request (the adapter's own cap). */
export const BITHUMB_BOOK_MARKETS_PER_REQUEST = 100;

/** Most levels a side /public/orderbook/ALL_KRW sends (count 1-5). */
export const BITHUMB_ALL_BOOK_MAX_LEVELS = 5;

export const bithumbBookRequests = {
  /** Every KRW market's book, `count` levels a side (1-5). */
  allKrwOrderBooks: (count = BITHUMB_ALL_BOOK_MAX_LEVELS): UpstreamRequest => ({ path: '/public/orderbook/ALL_KRW', query: { count } }),
  /** The books of `symbols` ('BTC' or 'KRW-BTC') in one v1 request. */
  orderBooks: (symbols: readonly string[]): UpstreamRequest => ({
    path: '/v1/orderbook',
    query: { markets: symbols.map(upbitMarket).join(',') },
  }),
  walletStatuses: (): UpstreamRequest => ({ path: '/public/assetsstatus/multichain/ALL', query: {} }),
  /** Deposit and withdrawal fees of one currency, or of all ('ALL'). */
  fees: (currency = 'ALL'): UpstreamRequest => ({ path: `/v2/fee/inout/${encodeURIComponent(currency.toUpperCase())}`, query: {} }),
};

const LegacyEnvelope = z.object({ status: z.string(), message: z.string().optional(), data: z.unknown().optional() });

/** The `data` of a legacy answer; a status other than "0000" is a failure. */
function legacyData(up: UpstreamLike, path: string, body: unknown): unknown {
  const shown = shownUrl(up, path);
  const envelope = up.parse(LegacyEnvelope, body, `GET ${shown}`);
  if (envelope.status === '0000') return envelope.data;
  throw new UpstreamError(
    up.name,
    shown,
    `${up.name}: GET ${shown} answered HTTP 200 with status ${envelope.status}${envelope.message ? ` (${JSON.stringify(envelope.message)})` : ''}; Bithumb reports errors in the body and only "0000" is success`,
  );
}

// ------------------------------------------------------------------------------- order books

const LegacyBook = z.object({ bids: z.array(z.unknown()), asks: z.array(z.unknown()) });

/** {quantity, price} → {price, qty}, the shape readBookLevels reads. */
const asLevel = (item: unknown): unknown =>
  typeof item === 'object' && item !== null
    ? { price: (item as Record<string, unknown>).price, qty: (item as Record<string, unknown>).quantity }
    : item;

/** Keys of the ALL_KRW `data` object that are not coins. */
const LEGACY_BOOK_FIELDS = new Set(['timestamp', 'payment_currency']);

/**
 * Reads an ALL_KRW order book answer: one OrderBook per coin key, stamped with `data.timestamp`
 * (moved back 9 h when it is a KST-wall-clock stamp, judged against `receivedAt`). A coin that does
 * not parse is listed in `skipped`, a level that does not parse is skipped in its book.
 */
export function readBithumbAllKrwOrderBooks(up: UpstreamLike, path: string, body: unknown, receivedAt: Date): OrderBooksRead {
  const where = `GET ${shownUrl(up, path)} data`;
  const data = up.parse(z.record(z.string(), z.unknown()), legacyData(up, path, body), where);
  const stamp = up.parse(EpochMillis, data.timestamp, `${where}.timestamp`);
  const asOf = bithumbStampToUtc(stamp, receivedAt.getTime());
  const out: OrderBooksRead = { books: [], skipped: [] };
  for (const [key, value] of Object.entries(data)) {
    if (LEGACY_BOOK_FIELDS.has(key)) continue;
    if (!/^[A-Z0-9]+$/.test(key)) {
      out.skipped.push(`${JSON.stringify(key.slice(0, 40))}: not a coin symbol`);
      continue;
    }
    const book = LegacyBook.safeParse(value);
    if (!book.success) {
      out.skipped.push(`${key}: ${describeIssues(book.error.issues)}`);
      continue;
    }
    const skipped: string[] = [];
    out.books.push({
      exchange: 'bithumb',
      symbol: key,
      asOf,
      bids: readBookLevels('bids', book.data.bids.map(asLevel), skipped),
      asks: readBookLevels('asks', book.data.asks.map(asLevel), skipped),
      skipped,
    });
  }
  return out;
}

/** Every KRW market's book in one request, `count` (1-5) levels a side. */
export async function fetchBithumbAllKrwOrderBooks(up: Upstream, count = BITHUMB_ALL_BOOK_MAX_LEVELS): Promise<OrderBooksRead> {
  const { path, query } = bithumbBookRequests.allKrwOrderBooks(count);
  const body = await up.getJson(path, query, z.unknown());
  return readBithumbAllKrwOrderBooks(up, path, body, new Date());
}

/** Reads a /v1/orderbook answer (Upbit's shape): one OrderBook per KRW market. */
export function readBithumbOrderBooks(up: UpstreamLike, path: string, body: unknown): OrderBooksRead {
  return readOrderbookUnitsBooks('bithumb', up, path, body);
}

/**
 * The v1 books of `symbols` (15 levels a market, 30 when one market is asked), up to
 * BITHUMB_BOOK_MARKETS_PER_REQUEST markets a request, one request after another. One unknown code
 * fails its whole request (`{error: {name: 404}}`).
 */
export async function fetchBithumbOrderBooks(
  up: Upstream,
  symbols: readonly string[],
  options: { perRequest?: number } = {},
): Promise<OrderBooksRead> {
  const markets = [...new Set(symbols.map(upbitMarket))];
  const out: OrderBooksRead = { books: [], skipped: [] };
  for (const chunk of chunked(markets, options.perRequest ?? BITHUMB_BOOK_MARKETS_PER_REQUEST)) {
    const { path, query } = bithumbBookRequests.orderBooks(chunk);
    const read = readBithumbOrderBooks(up, path, await up.getJson(path, query, z.unknown()));
    out.books.push(...read.books);
    out.skipped.push(...read.skipped, ...missingMarkets(chunk, read.books, read.skipped));
  }
  return out;
}

// ---------------------------------------------------------------------------- wallet status

/** A documented 0/1 flag, sent as a number, a digit string or (in some examples) a boolean. */
const Flag = z.union([z.number(), z.string(), z.boolean()]).transform((value, ctx) => {
  const raw = String(value);
  if (raw === '1' || raw === 'true') return { open: true, raw };
  if (raw === '0' || raw === 'false') return { open: false, raw };
  ctx.addIssue({ code: 'custom', message: `expected 1 or 0, got ${JSON.stringify(value)}` });
  return z.NEVER;
});

export const BithumbNetworkStatus = z
  .object({
    currency: CurrencySymbol,
    net_type: z.string().min(1),
    deposit_status: Flag,
    withdrawal_status: Flag,
  })
  .transform((s) => ({ ...s, symbol: s.currency.toUpperCase() }));
export type BithumbNetworkStatus = z.infer<typeof BithumbNetworkStatus>;

/** Reads an assetsstatus/multichain answer row by row: a row that does not parse is skipped with its reason. */
export function readBithumbNetworkStatuses(up: UpstreamLike, path: string, body: unknown): RowsRead<BithumbNetworkStatus> {
  const list = up.parse(z.array(z.unknown()), legacyData(up, path, body), `GET ${shownUrl(up, path)} data`);
  return readRows(list, BithumbNetworkStatus, labelBy('currency'));
}

export async function fetchBithumbNetworkStatuses(up: Upstream): Promise<RowsRead<BithumbNetworkStatus>> {
  const { path, query } = bithumbBookRequests.walletStatuses();
  return readBithumbNetworkStatuses(up, path, await up.getJson(path, query, z.unknown()));
}

// --------------------------------------------------------------------------- withdrawal fees

/** A decimal, or null (or absent) where the fee policy leaves the field empty. */
const NullableDecimal = z.unknown().transform((value, ctx): number | null => {
  if (value === null || value === undefined) return null;
  const n = DecimalValue.safeParse(value);
  if (n.success) return n.data;
  for (const issue of n.error.issues) ctx.addIssue({ code: 'custom', message: issue.message });
  return z.NEVER;
});

const FeeNetwork = z.object({
  net_name: z.string().min(1),
  /** A fixed fee per withdrawal; null for an asset charged a rate. */
  withdraw_fee_quantity: NullableDecimal,
  /** A rate (unit not documented) with optional bounds, for assets charged a rate. */
  withdraw_rate: NullableDecimal,
  withdraw_fee_min: NullableDecimal,
  withdraw_fee_max: NullableDecimal,
  withdraw_minimum_quantity: NullableDecimal,
});

const FeeCurrency = z.object({ currency: CurrencySymbol, name: z.string().optional(), networks: z.array(z.unknown()) });

/** The withdrawal fee of one (currency, named network), in the currency's own units. */
export interface BithumbNetworkFee {
  symbol: string;
  /** As sent (`net_name`: "Ethereum", "Arbitrum One"). */
  network: string;
  /** Fixed fee per withdrawal; null when the asset is charged a rate instead. */
  withdrawalFee: number | null;
  /** `withdraw_rate` as sent (its unit is not documented), with its bounds; null when absent. */
  withdrawalRate: number | null;
  withdrawalFeeMin: number | null;
  withdrawalFeeMax: number | null;
  withdrawalMin: number | null;
}

/** Reads a /v2/fee/inout answer network by network: a currency or network that does not parse is skipped with its reason. */
export function readBithumbWithdrawalFees(up: UpstreamLike, path: string, body: unknown): { fees: BithumbNetworkFee[]; skipped: string[] } {
  checkV1Error(up, path, body);
  const list = up.parse(z.array(z.unknown()), body, `GET ${shownUrl(up, path)}`);
  const currencies = readRows(list, FeeCurrency, labelBy('currency'));
  const out = { fees: [] as BithumbNetworkFee[], skipped: [...currencies.skipped] };
  for (const c of currencies.rows) {
    const symbol = c.currency.toUpperCase();
    c.networks.forEach((item, i) => {
      const n = FeeNetwork.safeParse(item);
      if (!n.success) {
        out.skipped.push(`${symbol}.networks[${i}]: ${describeIssues(n.error.issues)}`);
        return;
      }
      out.fees.push({
        symbol,
        network: n.data.net_name,
        withdrawalFee: n.data.withdraw_fee_quantity,
        withdrawalRate: n.data.withdraw_rate,
        withdrawalFeeMin: n.data.withdraw_fee_min,
        withdrawalFeeMax: n.data.withdraw_fee_max,
        withdrawalMin: n.data.withdraw_minimum_quantity,
      });
    });
  }
  return out;
}

export async function fetchBithumbWithdrawalFees(
  up: Upstream,
  currency = 'ALL',
): Promise<{ fees: BithumbNetworkFee[]; skipped: string[] }> {
  const { path, query } = bithumbBookRequests.fees(currency);
  return readBithumbWithdrawalFees(up, path, await up.getJson(path, query, z.unknown()));
}

// ----------------------------------------------------------------------------------- joined

/** 'Arbitrum One' → 'ARBITRUMONE', 'ARB_ETH' → 'ARBETH': letters and digits, upper case. */
const normalise = (network: string) => network.toUpperCase().replace(/[^A-Z0-9]/g, '');

/**
 * One WalletStatus per (currency, network code), with the withdrawal fee when it can be joined
 * without guessing: the fee network's name equals the status network's code after normalising,
 * or the currency has exactly one network in both answers. Other fees stay null; each status left
 * without a fee that has fee rows for its currency is listed in `unmatched`.
 */
export function bithumbWalletStatuses(
  statuses: readonly BithumbNetworkStatus[],
  fees: readonly BithumbNetworkFee[] = [],
): { statuses: WalletStatus[]; unmatched: string[] } {
  const count = (symbol: string) => statuses.filter((s) => s.symbol === symbol).length;
  const unmatched: string[] = [];
  const out = statuses.map((s): WalletStatus => {
    const candidates = fees.filter((f) => f.symbol === s.symbol);
    const fee =
      candidates.find((f) => normalise(f.network) === normalise(s.net_type)) ??
      (candidates.length === 1 && count(s.symbol) === 1 ? candidates[0] : undefined);
    if (!fee && candidates.length)
      unmatched.push(`${s.symbol}/${s.net_type} (fee networks: ${candidates.map((f) => f.network).join(', ')})`);
    return {
      exchange: 'bithumb',
      symbol: s.symbol,
      network: s.net_type,
      depositEnabled: s.deposit_status.open,
      withdrawEnabled: s.withdrawal_status.open,
      depositStatus: s.deposit_status.raw,
      withdrawStatus: s.withdrawal_status.raw,
      withdrawalFee: fee?.withdrawalFee ?? null,
      withdrawalMin: fee?.withdrawalMin ?? null,
    };
  });
  return { statuses: out, unmatched };
}
