/**
 * Upbit (api.upbit.com/v1): the KRW market list with its alerts, every KRW ticker in one call, and
 * 1-minute candles. See docs/upstreams-korea.md, "Upbit". Each list is read row by row: a row that
 * does not parse is skipped and counted (lenient.ts), never the whole list.
 *
 * - /market/all?is_details=true: `market_event.warning` is 유의 (investment warning); each true
 *   `market_event.caution.*` is a 주의 flag, read as a record so a new criterion is kept.
 * - /ticker/all?quote_currencies=KRW: one request for all KRW pairs. Upbit's day (open, high,
 *   low, change) starts at 00:00 UTC; only turnover and volume are rolling 24h.
 * - /candles/minutes/1: one market per request, newest first, the newest still open; minutes
 *   without a trade have no candle.
 * - Rate limits are per IP and group (10/s). Over it: 429 (retried by the shared client with
 *   backoff); keep going: 418 and a temporary IP ban that grows on repeat, so a 418 stops every
 *   Upbit request for a cool-off kept in the warehouse (5 min, doubling per ban within a day).
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { z } from 'zod';
import { queryJson, type Row } from '../../../lib/duckdb.ts';
import { UpstreamError, type Upstream } from '../http.ts';
import { utcWallClock } from './kst.ts';
import { EpochMs, knownOr, labelBy, NumberOrDecimalString, readRows, unknownValues, type Known, type RowsRead } from './lenient.ts';

const SOURCE = 'live';

const Caution = z.record(z.string(), z.boolean());

const MarketCode = z.string().regex(/^[A-Z0-9]+-[A-Z0-9.]+$/, 'expected a QUOTE-BASE market code');

/** The legacy `market_warning` values (docs: NONE or CAUTION); another is kept as `other`. */
export const UPBIT_MARKET_WARNINGS = ['NONE', 'CAUTION'] as const;

export const UpbitMarket = z.object({
  market: MarketCode,
  korean_name: z.string(),
  english_name: z.string(),
  market_event: z.object({ warning: z.boolean(), caution: Caution }).optional(),
  /** Legacy (removed in Korea on 2024-11-20; regional deployments still send it). */
  market_warning: knownOr(UPBIT_MARKET_WARNINGS).optional(),
});
export type UpbitMarket = z.infer<typeof UpbitMarket>;

// Upbit documents numbers; a recorder that writes them as decimal strings is read the same way.
const Num = NumberOrDecimalString;

export const UpbitTicker = z.object({
  market: MarketCode,
  trade_price: Num.refine((n) => n > 0, 'expected a positive price'),
  prev_closing_price: Num,
  high_price: Num,
  low_price: Num,
  signed_change_rate: Num,
  acc_trade_volume_24h: Num,
  acc_trade_price_24h: Num,
  /** When Upbit built the snapshot: the price's source time. */
  timestamp: EpochMs,
  /** When the last trade happened (differs from `timestamp` on a quiet market); absent in some recordings. */
  trade_timestamp: EpochMs.optional(),
});
export type UpbitTicker = z.infer<typeof UpbitTicker>;

const UtcWallClock = z.string().refine((text) => {
  try {
    utcWallClock(text);
    return true;
  } catch {
    return false;
  }
}, "expected a UTC time 'yyyy-MM-ddTHH:mm:ss'");

export const UpbitCandle = z.object({
  market: z.string(),
  candle_date_time_utc: UtcWallClock,
  opening_price: Num,
  high_price: Num,
  low_price: Num,
  trade_price: Num,
  candle_acc_trade_price: Num,
  candle_acc_trade_volume: Num,
});
export type UpbitCandle = z.infer<typeof UpbitCandle>;

const market = labelBy('market');

/** Every pair of the market list; a row that does not parse is skipped and counted, not the list. */
export async function fetchUpbitMarkets(up: Upstream): Promise<RowsRead<UpbitMarket>> {
  return readRows(await up.getJson('/v1/market/all', { is_details: true }, z.array(z.unknown())), UpbitMarket, market);
}

/** Every KRW ticker; a ticker that does not parse is skipped and counted, not the list. */
export async function fetchUpbitTickers(up: Upstream): Promise<RowsRead<UpbitTicker>> {
  return readRows(await up.getJson('/v1/ticker/all', { quote_currencies: 'KRW' }, z.array(z.unknown())), UpbitTicker, market);
}

/** One market's candles; a candle that does not parse is skipped and counted. */
export async function fetchUpbitCandles(up: Upstream, market: string, count: number): Promise<RowsRead<UpbitCandle>> {
  return readRows(
    await up.getJson('/v1/candles/minutes/1', { market, count }, z.array(z.unknown())),
    UpbitCandle,
    labelBy('candle_date_time_utc'),
  );
}

/** 'KRW-BTC' → 'BTC'; null for a market quoted in anything but KRW. */
export function krwSymbol(market: string): string | null {
  return market.startsWith('KRW-') ? market.slice(4) : null;
}

/**
 * kr_markets and market_flags rows for the KRW markets (BTC- and USDT- markets are not KRW
 * prices). A legacy market_warning of CAUTION is the investment warning; an undocumented value is
 * kept as the flag `market_warning:<value>` and listed in `unknown` for the run's notes.
 */
export function upbitMarketRows(markets: readonly UpbitMarket[], observedAt: Date): { markets: Row[]; flags: Row[]; unknown: string[] } {
  const out = { markets: [] as Row[], flags: [] as Row[], unknown: [] as string[] };
  const warnings: Array<{ value: Known<string>; where: string }> = [];
  for (const m of markets) {
    const symbol = krwSymbol(m.market);
    if (!symbol) continue;
    out.markets.push(['upbit', symbol, m.market, m.korean_name, m.english_name, observedAt, SOURCE]);
    const flag = (name: string) => out.flags.push(['upbit', symbol, name, null, null, observedAt, SOURCE]);
    if (m.market_warning) warnings.push({ value: m.market_warning, where: m.market });
    if (m.market_event ? m.market_event.warning : m.market_warning?.value === 'CAUTION') flag('investment_warning');
    if (!m.market_event && m.market_warning?.value === 'other') flag(`market_warning:${m.market_warning.raw}`);
    for (const [criterion, raised] of Object.entries(m.market_event?.caution ?? {}).sort(([a], [b]) => a.localeCompare(b))) {
      if (raised) flag(`caution:${criterion}`);
    }
  }
  out.unknown = unknownValues('market_warning', warnings);
  return out;
}

/** kr_tickers rows; `signed_change_rate` is a fraction, the table wants percent. */
export function upbitTickerRows(tickers: readonly UpbitTicker[]): Row[] {
  const rows: Row[] = [];
  for (const t of tickers) {
    const symbol = krwSymbol(t.market);
    if (!symbol) continue;
    rows.push([
      'upbit',
      symbol,
      t.trade_price,
      t.prev_closing_price,
      t.high_price,
      t.low_price,
      Math.round(t.signed_change_rate * 100 * 1e8) / 1e8,
      t.acc_trade_volume_24h,
      t.acc_trade_price_24h,
      new Date(t.timestamp),
      t.trade_timestamp === undefined ? null : new Date(t.trade_timestamp),
      SOURCE,
    ]);
  }
  return rows;
}

/** candles_1m rows for the closed minutes only (the minute `now` falls in is still trading). */
export function upbitCandleRows(candles: readonly UpbitCandle[], now: Date): Row[] {
  const openMinute = Math.floor(now.getTime() / 60_000) * 60_000;
  const rows: Row[] = [];
  for (const c of candles) {
    const symbol = krwSymbol(c.market);
    const minute = utcWallClock(c.candle_date_time_utc);
    if (!symbol || minute.getTime() >= openMinute) continue;
    rows.push([
      'upbit',
      symbol,
      minute,
      c.opening_price,
      c.high_price,
      c.low_price,
      c.trade_price,
      c.candle_acc_trade_volume,
      c.candle_acc_trade_price,
      SOURCE,
    ]);
  }
  return rows;
}

// ------------------------------------------------------------------------------- 418 cool-off

const COOLOFF_BASE_MS = 5 * 60_000;
const COOLOFF_MAX_MS = 60 * 60_000;

export function isUpbitBan(err: unknown): boolean {
  return err instanceof UpstreamError && err.status === 418;
}

async function ensureCooloffTable(connection: DuckDBConnection): Promise<void> {
  await connection.run(
    `CREATE TABLE IF NOT EXISTS live_upstream_cooloff (
       upstream VARCHAR PRIMARY KEY, banned_at TIMESTAMP, until TIMESTAMP, bans INTEGER, reason VARCHAR)`,
  );
}

/** Why Upbit must not be called at `now` (a 418 cool-off still running), or null. */
export async function upbitCooloff(connection: DuckDBConnection, now: Date): Promise<string | null> {
  await ensureCooloffTable(connection);
  const [row] = await queryJson(
    connection,
    `SELECT strftime(banned_at, '%Y-%m-%dT%H:%M:%SZ') AS banned_at, strftime(until, '%Y-%m-%dT%H:%M:%SZ') AS until
       FROM live_upstream_cooloff WHERE upstream = 'upbit' AND until > $now::TIMESTAMP`,
    { now: now.toISOString() },
  );
  if (!row) return null;
  return `upbit: not called until ${String(row.until)}: Upbit answered HTTP 418 (IP temporarily banned for exceeding the rate limit) at ${String(row.banned_at)}, and calling again during a ban lengthens it`;
}

/** Starts (or lengthens) the cool-off after a 418; returns when it ends. */
export async function startUpbitCooloff(connection: DuckDBConnection, now: Date, reason: string): Promise<Date> {
  await ensureCooloffTable(connection);
  const [prev] = await queryJson(
    connection,
    `SELECT bans FROM live_upstream_cooloff WHERE upstream = 'upbit' AND banned_at > $since::TIMESTAMP`,
    { since: new Date(now.getTime() - 86_400_000).toISOString() },
  );
  const bans = Number(prev?.bans ?? 0) + 1;
  const until = new Date(now.getTime() + Math.min(COOLOFF_MAX_MS, COOLOFF_BASE_MS * 2 ** (bans - 1)));
  await connection.run(
    `INSERT OR REPLACE INTO live_upstream_cooloff VALUES ('upbit', $now::TIMESTAMP, $until::TIMESTAMP, $bans, $reason)`,
    { now: now.toISOString(), until: until.toISOString(), bans, reason: reason.slice(0, 500) },
  );
  return until;
}
