/**
 * Upbit (api.upbit.com/v1): the KRW market list with its alerts, every KRW ticker in one call, and
 * 1-minute candles. See docs/upstreams-korea.md, "Upbit".
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

const SOURCE = 'live';

const Caution = z.record(z.string(), z.boolean());

export const UpbitMarket = z.object({
  market: z.string().regex(/^[A-Z0-9]+-[A-Z0-9.]+$/, 'expected a QUOTE-BASE market code'),
  korean_name: z.string(),
  english_name: z.string(),
  market_event: z.object({ warning: z.boolean(), caution: Caution }).optional(),
  /** Legacy (removed in Korea on 2024-11-20; regional deployments still send it). */
  market_warning: z.enum(['NONE', 'CAUTION']).optional(),
});
export type UpbitMarket = z.infer<typeof UpbitMarket>;

export const UpbitTicker = z.object({
  market: z.string(),
  trade_price: z.number(),
  prev_closing_price: z.number(),
  high_price: z.number(),
  low_price: z.number(),
  signed_change_rate: z.number(),
  acc_trade_volume_24h: z.number(),
  acc_trade_price_24h: z.number(),
  timestamp: z.number().int(),
});
export type UpbitTicker = z.infer<typeof UpbitTicker>;

export const UpbitCandle = z.object({
  market: z.string(),
  candle_date_time_utc: z.string(),
  opening_price: z.number(),
  high_price: z.number(),
  low_price: z.number(),
  trade_price: z.number(),
  candle_acc_trade_price: z.number(),
  candle_acc_trade_volume: z.number(),
});
export type UpbitCandle = z.infer<typeof UpbitCandle>;

export function fetchUpbitMarkets(up: Upstream): Promise<UpbitMarket[]> {
  return up.getJson('/v1/market/all', { is_details: true }, z.array(UpbitMarket));
}

export function fetchUpbitTickers(up: Upstream): Promise<UpbitTicker[]> {
  return up.getJson('/v1/ticker/all', { quote_currencies: 'KRW' }, z.array(UpbitTicker));
}

export function fetchUpbitCandles(up: Upstream, market: string, count: number): Promise<UpbitCandle[]> {
  return up.getJson('/v1/candles/minutes/1', { market, count }, z.array(UpbitCandle));
}

/** 'KRW-BTC' → 'BTC'; null for a market quoted in anything but KRW. */
export function krwSymbol(market: string): string | null {
  return market.startsWith('KRW-') ? market.slice(4) : null;
}

/** kr_markets and market_flags rows for the KRW markets (BTC- and USDT- markets are not KRW prices). */
export function upbitMarketRows(markets: readonly UpbitMarket[], observedAt: Date): { markets: Row[]; flags: Row[] } {
  const out = { markets: [] as Row[], flags: [] as Row[] };
  for (const m of markets) {
    const symbol = krwSymbol(m.market);
    if (!symbol) continue;
    out.markets.push(['upbit', symbol, m.market, m.korean_name, m.english_name, observedAt, SOURCE]);
    const flag = (name: string) => out.flags.push(['upbit', symbol, name, null, null, observedAt, SOURCE]);
    if (m.market_event ? m.market_event.warning : m.market_warning === 'CAUTION') flag('investment_warning');
    for (const [criterion, raised] of Object.entries(m.market_event?.caution ?? {}).sort(([a], [b]) => a.localeCompare(b))) {
      if (raised) flag(`caution:${criterion}`);
    }
  }
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
