/**
 * Bithumb (api.bithumb.com): every KRW ticker in one legacy call, the market list with 유의
 * designations, and the 경보제 alert feed. See docs/upstreams-korea.md, "Bithumb".
 *
 * - /public/ticker/ALL_KRW: `{status, data: {<SYMBOL>: {...}, date?}}`, every number a string,
 *   `fluctate_rate_24H` already in percent, `date` (not in every answer) an epoch stamp Bithumb
 *   takes from the KST wall clock. Errors come as HTTP 200 with a status other than "0000" (5600:
 *   maintenance or too many connections): a failure, not retried (the next run is a minute away).
 * - /v1/market/all?isDetails=true: `market_warning: "CAUTION"` is 유의 (investment warning).
 * - /v1/market/virtual_asset_warning: one row per (market, criterion) with an `end_date` in KST
 *   wall-clock time and, in some versions of the answer, its step. v1 errors can arrive with HTTP
 *   2xx as `{error: {...}}`.
 * - 150 requests/s per category and IP: three requests need no pacing.
 *
 * The three calls feed different rows and fail alone (index.ts); each list is read row by row,
 * a row that does not parse skipped and counted (lenient.ts).
 */
import { z } from 'zod';
import type { Row } from '../../../lib/duckdb.ts';
import type { RawTable } from '../../raw-tables.ts';
import { describeIssues } from '../../../lib/zod-issues.ts';
import { UpstreamError, type Upstream } from '../http.ts';
import { bithumbStampToUtc, kstWallClockToUtc } from './kst.ts';
import { knownOr, labelBy, readRows, unknownValues, type Known, type RowsRead } from './lenient.ts';
import { shownUrl } from './shown-url.ts';

const SOURCE = 'live';

/** A decimal number sent as a string ("91171000", "-4.06", "761.45977429"). */
const DecimalString = z
  .string()
  .regex(/^-?\d+(\.\d+)?([eE][-+]?\d+)?$/, 'expected a decimal number in a string')
  .transform(Number);

const BithumbCoin = z.object({
  closing_price: DecimalString.refine((n) => n > 0, 'expected a positive price'),
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

const KrwMarketCode = z.string().regex(/^[A-Z0-9]+-[A-Z0-9.]+$/, 'expected a QUOTE-BASE market code');

/** `market_warning` as documented: NONE or CAUTION (유의); another value is kept as `other`. */
export const BITHUMB_MARKET_WARNINGS = ['NONE', 'CAUTION'] as const;

export const BithumbMarket = z.object({
  market: KrwMarketCode,
  korean_name: z.string(),
  english_name: z.string(),
  market_warning: knownOr(BITHUMB_MARKET_WARNINGS).optional(),
});
export type BithumbMarket = z.infer<typeof BithumbMarket>;

/** 경보제 alert types listed in the docs page "경보제"; another is kept as sent and noted. */
export const BITHUMB_ALERT_TYPES = [
  'PRICE_SUDDEN_FLUCTUATION',
  'TRADING_VOLUME_SUDDEN_FLUCTUATION',
  'DEPOSIT_AMOUNT_SUDDEN_FLUCTUATION',
  'PRICE_DIFFERENCE_HIGH',
  'SPECIFIC_ACCOUNT_HIGH_TRANSACTION',
  'EXCHANGE_TRADING_CONCENTRATION',
] as const;
/** Alert steps, CAUTION < WARNING < DANGER. */
export const BITHUMB_ALERT_STEPS_KNOWN = ['CAUTION', 'WARNING', 'DANGER'] as const;

const KstWallClock = z.string().transform((text, ctx) => {
  try {
    return kstWallClockToUtc(text);
  } catch {
    ctx.addIssue({ code: 'custom', message: "expected a KST time 'yyyy-MM-dd HH:mm:ss'" });
    return z.NEVER;
  }
});

export const BithumbAlert = z.object({
  market: KrwMarketCode,
  warning_type: knownOr(BITHUMB_ALERT_TYPES),
  // Not in every version of the documented answer: absent is no step, not a broken row.
  warning_step: knownOr(BITHUMB_ALERT_STEPS_KNOWN).optional(),
  /** The automatic release time, KST wall clock, as a UTC instant. */
  end_date: KstWallClock,
});
export type BithumbAlert = z.infer<typeof BithumbAlert>;

export interface BithumbTickers extends RowsRead<BithumbCoin> {
  /**
   * `data.date` as sent (epoch ms from the KST wall clock), or null when the answer has none (the
   * documented examples do not promise it): the prices are then stamped with the time received.
   */
  stampMs: number | null;
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
  const date = typeof data.date === 'string' && /^\d{10,}$/.test(data.date) ? Number(data.date) : null;
  const out: BithumbTickers = { rows: [], total: 0, skipped: [], stampMs: date };
  for (const [symbol, value] of Object.entries(data)) {
    if (symbol === 'date') continue; // a sibling of the coins, not a coin
    out.total++;
    const coin = BithumbCoin.safeParse(value);
    if (!/^[A-Z0-9]+$/.test(symbol)) out.skipped.push(`${JSON.stringify(symbol.slice(0, 40))}: not a coin symbol`);
    else if (!coin.success) out.skipped.push(`${symbol}.${describeIssues(coin.error.issues)}`);
    else out.rows.push({ symbol, ...coin.data });
  }
  return out;
}

async function getV1List(up: Upstream, path: string, query: Record<string, string | boolean>): Promise<unknown[]> {
  const body = await up.getJson(path, query, z.unknown());
  const shown = shownUrl(up, path);
  const failed = V1Error.safeParse(body);
  if (failed.success) {
    const { name, message } = failed.data.error;
    throw new UpstreamError(up.name, shown, `${up.name}: GET ${shown} answered with error ${name}${message ? `: ${message}` : ''}`);
  }
  return up.parse(z.array(z.unknown()), body, `GET ${shown}`);
}

const byMarket = labelBy('market');

/** The market list; a row that does not parse is skipped and counted, not the list. */
export async function fetchBithumbMarkets(up: Upstream): Promise<RowsRead<BithumbMarket>> {
  return readRows(await getV1List(up, '/v1/market/all', { isDetails: true }), BithumbMarket, byMarket);
}

/** The 경보제 feed; a row that does not parse is skipped and counted, not the feed. */
export async function fetchBithumbAlerts(up: Upstream): Promise<RowsRead<BithumbAlert>> {
  return readRows(await getV1List(up, '/v1/market/virtual_asset_warning', {}), BithumbAlert, byMarket);
}

/**
 * kr_tickers rows. max/min_price cover the KST day (Bithumb's day starts at 00:00 KST). The
 * prices' source time is `data.date`, or `receivedAt` when the answer carries none.
 */
export function bithumbTickerRows(tickers: BithumbTickers, receivedAt: Date): Row[] {
  const asOf = tickers.stampMs === null ? receivedAt : bithumbStampToUtc(tickers.stampMs, receivedAt.getTime());
  return tickers.rows.map((c) => [
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
    null, // the ALL_KRW ticker does not say when the last trade was
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
 * market_flags rows of the market list: 유의 (market_warning CAUTION) as `investment_warning`, an
 * undocumented market_warning value as `market_warning:<value>` (listed in `unknown`).
 */
export function bithumbWarningFlagRows(markets: readonly BithumbMarket[], observedAt: Date): { flags: Row[]; unknown: string[] } {
  const flags: Row[] = [];
  const seen: Array<{ value: Known<string>; where: string }> = [];
  for (const m of markets) {
    const symbol = krwSymbol(m.market);
    if (!symbol || !m.market_warning) continue;
    seen.push({ value: m.market_warning, where: m.market });
    const { value, raw } = m.market_warning;
    if (value === 'CAUTION') flags.push(['bithumb', symbol, 'investment_warning', null, null, observedAt, SOURCE]);
    else if (value === 'other') flags.push(['bithumb', symbol, `market_warning:${raw}`, null, null, observedAt, SOURCE]);
  }
  return { flags, unknown: unknownValues('market_warning', seen) };
}

/**
 * The alerts active at `observedAt`: an alert whose end_date has passed is over, whatever the feed
 * still says. `expired` lists those left out.
 */
export function activeBithumbAlerts(
  alerts: readonly BithumbAlert[],
  observedAt: Date,
): { active: BithumbAlert[]; expired: string[]; unknown: string[] } {
  const active: BithumbAlert[] = [];
  const expired: string[] = [];
  for (const a of alerts) {
    if (!krwSymbol(a.market)) continue;
    if (a.end_date.getTime() <= observedAt.getTime()) expired.push(`${a.market} ${a.warning_type.raw} (ended ${a.end_date.toISOString()})`);
    else active.push(a);
  }
  const unknown = [
    ...unknownValues(
      'warning_type',
      alerts.map((a) => ({ value: a.warning_type, where: a.market })),
    ),
    ...unknownValues(
      'warning_step',
      alerts.flatMap((a) => (a.warning_step ? [{ value: a.warning_step, where: a.market }] : [])),
    ),
  ];
  return { active, expired, unknown };
}

/** market_flags rows of the active alerts: `alert:<warning_type>` ending at its end_date. */
export function bithumbAlertFlagRows(active: readonly BithumbAlert[], observedAt: Date): Row[] {
  return active.map((a) => ['bithumb', krwSymbol(a.market)!, `alert:${a.warning_type.raw}`, null, a.end_date, observedAt, SOURCE]);
}

/**
 * Bithumb's alert step (CAUTION < WARNING < DANGER) has no column in market_flags; it is kept
 * here, one row per active alert, replaced every run with the flags. `step` is the documented
 * value, `other` for an undocumented one (its text in `step_raw`), NULL when the feed sends none.
 */
export const BITHUMB_ALERT_STEPS: RawTable = {
  name: 'bithumb_alert_steps',
  service: 'korea',
  description: 'Step of each active Bithumb virtual-asset alert (live source only).',
  columns: [
    ['symbol', 'VARCHAR'],
    ['flag', 'VARCHAR'], // as in market_flags: alert:<warning_type>
    ['step', 'VARCHAR'], // CAUTION | WARNING | DANGER | other | NULL
    ['step_raw', 'VARCHAR'], // as sent
    ['ends_at', 'TIMESTAMP'],
    ['observed_at', 'TIMESTAMP'],
  ],
};

export function bithumbAlertStepRows(active: readonly BithumbAlert[], observedAt: Date): Row[] {
  return active.map((a) => [
    krwSymbol(a.market)!,
    `alert:${a.warning_type.raw}`,
    a.warning_step?.value ?? null,
    a.warning_step?.raw ?? null,
    a.end_date,
    observedAt,
  ]);
}
