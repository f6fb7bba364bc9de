/**
 * Bithumb (api.bithumb.com): every KRW ticker in one legacy call, the market list with 유의
 * designations, and the 경보제 alert feed. See docs/upstreams-korea.md, "Bithumb".
 *
 * - /public/ticker/ALL_KRW: `{status, data: {<SYMBOL>: {...}, date}}`, every number a string,
 *   `fluctate_rate_24H` already in percent, `date` an epoch stamp Bithumb takes from the KST wall
 *   clock. Errors come as HTTP 200 with a status other than "0000" (5600: maintenance or too many
 *   connections): a failure, not retried (the next run is a minute away).
 * - /v1/market/all?isDetails=true: `market_warning: "CAUTION"` is 유의 (investment warning).
 * - /v1/market/virtual_asset_warning: one row per active (market, criterion) with its step and
 *   an `end_date` in KST wall-clock time. v1 errors can arrive with HTTP 2xx as `{error: {...}}`.
 * - 150 requests/s per category and IP: three requests need no pacing.
 */
import { z } from 'zod';
import type { Row } from '../../../lib/duckdb.ts';
import type { RawTable } from '../../raw-tables.ts';
import { describeIssues } from '../../../lib/zod-issues.ts';
import { UpstreamError, type Upstream } from '../http.ts';
import { bithumbStampToUtc, kstWallClockToUtc } from './kst.ts';
import { shownUrl } from './shown-url.ts';

const SOURCE = 'live';

/** A decimal number sent as a string ("91171000", "-4.06", "761.45977429"). */
const DecimalString = z
  .string()
  .regex(/^-?\d+(\.\d+)?([eE][-+]?\d+)?$/, 'expected a decimal number in a string')
  .transform(Number);

const BithumbCoin = z.object({
  closing_price: DecimalString,
  prev_closing_price: DecimalString,
  max_price: DecimalString,
  min_price: DecimalString,
  fluctate_rate_24H: DecimalString,
  units_traded_24H: DecimalString,
  acc_trade_value_24H: DecimalString,
});
export type BithumbCoin = z.infer<typeof BithumbCoin> & { symbol: string };

const LegacyEnvelope = z.object({
  status: z.string(),
  message: z.string().optional(),
  data: z.unknown().optional(),
});

const V1Error = z.object({ error: z.object({ name: z.union([z.string(), z.number()]), message: z.string().optional() }) });

export const BithumbMarket = z.object({
  market: z.string(),
  korean_name: z.string(),
  english_name: z.string(),
  market_warning: z.enum(['NONE', 'CAUTION']).optional(),
});
export type BithumbMarket = z.infer<typeof BithumbMarket>;

export const BithumbAlert = z.object({
  market: z.string(),
  warning_type: z.string(),
  warning_step: z.string(), // CAUTION < WARNING < DANGER; kept as sent
  end_date: z.string(),
});
export type BithumbAlert = z.infer<typeof BithumbAlert>;

export interface BithumbTickers {
  coins: BithumbCoin[];
  /** `data.date`, as sent (epoch ms from the KST wall clock). */
  stampMs: number;
  /** Coins left out because a field did not parse ("XYZ.closing_price: …"). */
  skipped: string[];
}

function statusError(up: Upstream, path: string, status: string, message: string | undefined): UpstreamError {
  const shown = shownUrl(up, path);
  return new UpstreamError(
    up.name,
    shown,
    `${up.name}: GET ${shown} answered HTTP 200 with status ${status}${message ? ` (${JSON.stringify(message)})` : ''}; Bithumb reports errors in the body and only "0000" is success`,
  );
}

export async function fetchBithumbTickers(up: Upstream): Promise<BithumbTickers> {
  const path = '/public/ticker/ALL_KRW';
  const envelope = await up.getJson(path, {}, LegacyEnvelope);
  if (envelope.status !== '0000') throw statusError(up, path, envelope.status, envelope.message);
  const where = `GET ${shownUrl(up, path)}`;
  const data = up.parse(z.object({ data: z.record(z.string(), z.unknown()) }), { data: envelope.data }, where).data;
  const { date } = up.parse(
    z.object({ date: z.string().regex(/^\d+$/, 'expected epoch milliseconds in a string') }),
    data,
    `${where} (data)`,
  );
  const out: BithumbTickers = { coins: [], stampMs: Number(date), skipped: [] };
  for (const [symbol, value] of Object.entries(data)) {
    if (symbol === 'date') continue; // a sibling of the coins, not a coin
    const coin = BithumbCoin.safeParse(value);
    if (!/^[A-Z0-9]+$/.test(symbol)) out.skipped.push(`${JSON.stringify(symbol)}: not a coin symbol`);
    else if (!coin.success) out.skipped.push(`${symbol}.${describeIssues(coin.error.issues)}`);
    else out.coins.push({ symbol, ...coin.data });
  }
  return out;
}

async function getV1<T>(up: Upstream, path: string, query: Record<string, string | boolean>, schema: z.ZodType<T>): Promise<T> {
  const body = await up.getJson(path, query, z.unknown());
  const shown = shownUrl(up, path);
  const failed = V1Error.safeParse(body);
  if (failed.success) {
    const { name, message } = failed.data.error;
    throw new UpstreamError(up.name, shown, `${up.name}: GET ${shown} answered with error ${name}${message ? `: ${message}` : ''}`);
  }
  return up.parse(schema, body, `GET ${shown}`);
}

export function fetchBithumbMarkets(up: Upstream): Promise<BithumbMarket[]> {
  return getV1(up, '/v1/market/all', { isDetails: true }, z.array(BithumbMarket));
}

export function fetchBithumbAlerts(up: Upstream): Promise<BithumbAlert[]> {
  return getV1(up, '/v1/market/virtual_asset_warning', {}, z.array(BithumbAlert));
}

/** kr_tickers rows. max/min_price cover the KST day (Bithumb's day starts at 00:00 KST). */
export function bithumbTickerRows(tickers: BithumbTickers, now: Date): Row[] {
  const asOf = bithumbStampToUtc(tickers.stampMs, now.getTime());
  return tickers.coins.map((c) => [
    'bithumb',
    c.symbol,
    c.closing_price,
    c.prev_closing_price,
    c.max_price,
    c.min_price,
    c.fluctate_rate_24H,
    c.units_traded_24H,
    c.acc_trade_value_24H,
    asOf,
    SOURCE,
  ]);
}

const krwSymbol = (market: string) => (market.startsWith('KRW-') ? market.slice(4) : null);

export function bithumbMarketRows(markets: readonly BithumbMarket[], observedAt: Date): Row[] {
  const rows: Row[] = [];
  for (const m of markets) {
    const symbol = krwSymbol(m.market);
    if (symbol) rows.push(['bithumb', symbol, m.market, m.korean_name, m.english_name, observedAt, SOURCE]);
  }
  return rows;
}

/**
 * market_flags rows: 유의 as `investment_warning`, each active alert as `alert:<warning_type>`
 * ending at its end_date (KST → UTC).
 */
export function bithumbFlagRows(markets: readonly BithumbMarket[], alerts: readonly BithumbAlert[], observedAt: Date): Row[] {
  const rows: Row[] = [];
  for (const m of markets) {
    const symbol = krwSymbol(m.market);
    if (symbol && m.market_warning === 'CAUTION') rows.push(['bithumb', symbol, 'investment_warning', null, null, observedAt, SOURCE]);
  }
  for (const a of alerts) {
    const symbol = krwSymbol(a.market);
    if (symbol) rows.push(['bithumb', symbol, `alert:${a.warning_type}`, null, kstWallClockToUtc(a.end_date), observedAt, SOURCE]);
  }
  return rows;
}

/**
 * Bithumb's alert step (CAUTION < WARNING < DANGER) has no column in market_flags; it is kept
 * here, one row per active alert, replaced every run with the flags.
 */
export const BITHUMB_ALERT_STEPS: RawTable = {
  name: 'bithumb_alert_steps',
  service: 'korea',
  description: 'Step of each active Bithumb virtual-asset alert (live source only).',
  columns: [
    ['symbol', 'VARCHAR'],
    ['flag', 'VARCHAR'], // as in market_flags: alert:<warning_type>
    ['step', 'VARCHAR'], // CAUTION | WARNING | DANGER
    ['ends_at', 'TIMESTAMP'],
    ['observed_at', 'TIMESTAMP'],
  ],
};

export function bithumbAlertStepRows(alerts: readonly BithumbAlert[], observedAt: Date): Row[] {
  const rows: Row[] = [];
  for (const a of alerts) {
    const symbol = krwSymbol(a.market);
    if (symbol) rows.push([symbol, `alert:${a.warning_type}`, a.warning_step, kstWallClockToUtc(a.end_date), observedAt]);
  }
  return rows;
}
