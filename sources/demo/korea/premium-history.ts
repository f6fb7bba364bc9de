/**
 * The demo world's premium archive before the run: what a korea pipeline running every minute
 * would have kept by `now`, so the archive's history and stats endpoints answer on the demo
 * (synthetic, source 'demo'; pipelines/korea/archive.ts merges these rows into the warehouse's
 * archive once, where it has none of its own).
 *
 * Per (exchange, symbol) listed now on that exchange with a global reference (Coinone and Korbit
 * where they quote a token Upbit or Bithumb lists), the world's kimchi premium backdrop (prices.ts
 * premiumWindow: the stablecoin premium, the market-wide spread, the token's bias and daily drift,
 * the exchange's offset) per minute, and the Korea index over them (exchange 'korea'; symbol 'ALL'
 * for the market-wide one), aggregated as the archive aggregates:
 *   1m  the DEMO_HISTORY.minutes minutes before the run's minute
 *   1h  the DEMO_HISTORY.hours closed hours before the run's hour
 *   1d  the DEMO_HISTORY.days closed UTC days before the run's day
 * Each row: mean, min, max and last of the minutes in it, and their count. The run's own minute,
 * hour and day come from the pipeline's real premiums, not from here.
 */
import { appendRows, queryJson, tableExists, type Row } from '../../../lib/duckdb.ts';
import type { IngestContext, IngestStep } from '../../contract.ts';
import { RAW_TABLES } from '../../raw-tables.ts';
import { DAY_MS, HOUR_MS, MINUTE_MS, MINUTES_PER_DAY, minuteIndexOf, msOfMinute } from './calendar.ts';
import { ListingCalendar } from './listings.ts';
import { macroHistory } from './macro.ts';
import { PREMIUM_ARCHIVE } from '../../../catalog/korea.ts';
import { baseDailyVolumeKrw, premiumBackdrop, premiumWindow, tokenDynamics } from './prices.ts';
import { KOREA_EXCHANGES, KOREA_PRICE_ONLY_EXCHANGES, KOREA_TOKENS, type KoreaPriceExchange, pricedOn } from './tokens.ts';

/** How far back the demo archive goes at each interval (small enough for every demo run's warehouse). */
export const DEMO_HISTORY = { minutes: 120, hours: 14 * 24, days: 90 } as const;

const SOURCE = 'demo';

/** kr_premium_history rows (raw-tables.ts): interval, t, exchange, symbol, premium_pct, min_pct, max_pct, last_pct, samples, source. */
export function premiumHistoryRows(seed: number, nowMs: number): Row[] {
  const mNow = minuteIndexOf(nowMs);
  const dayStartMs = Math.floor(nowMs / DAY_MS) * DAY_MS;
  const hourStartMs = Math.floor(nowMs / HOUR_MS) * HOUR_MS;
  const m0 = minuteIndexOf(dayStartMs - DEMO_HISTORY.days * DAY_MS);
  const m1 = mNow - 1; // the run's own minute is the pipeline's
  const macro = macroHistory(seed, Math.floor(mNow / MINUTES_PER_DAY) + 1);
  const backdrop = premiumBackdrop(macro, m0, m1);
  const listings = new ListingCalendar(seed, msOfMinute(m0), nowMs).snapshot(nowMs);
  const n = m1 - m0 + 1;
  const rows: Row[] = [];
  const pct = (x: number) => Math.round(x * 1e6) / 1e4; // percent, 4 decimals
  /** Pushes the rows of one series: per interval, the aggregate over the minutes [fromMs, toMs) since `sinceMs`. */
  const pushSeries = (exchange: string, symbol: string, premium: Float64Array, sinceMs: number) => {
    const push = (interval: string, fromMs: number, toMs: number) => {
      const a = Math.max(minuteIndexOf(Math.max(fromMs, sinceMs)), m0) - m0;
      const b = Math.min(minuteIndexOf(toMs) - 1, m1) - m0;
      if (b < a) return;
      let sum = 0;
      let min = Infinity;
      let max = -Infinity;
      for (let i = a; i <= b; i++) {
        const x = premium[i]!;
        sum += x;
        if (x < min) min = x;
        if (x > max) max = x;
      }
      const count = b - a + 1;
      rows.push([interval, new Date(fromMs), exchange, symbol, pct(sum / count), pct(min), pct(max), pct(premium[b]!), count, SOURCE]);
    };
    for (let d = DEMO_HISTORY.days; d >= 1; d--) push('1d', dayStartMs - d * DAY_MS, dayStartMs - (d - 1) * DAY_MS);
    for (let h = DEMO_HISTORY.hours; h >= 1; h--) push('1h', hourStartMs - h * HOUR_MS, hourStartMs - (h - 1) * HOUR_MS);
    for (let m = DEMO_HISTORY.minutes; m >= 1; m--) {
      const at = msOfMinute(mNow - m);
      push('1m', at, at + MINUTE_MS);
    }
  };
  // The Korea index (exchange 'korea') per symbol: the exchanges' premiums weighted by their usual
  // KRW volume; the market-wide one (symbol 'ALL') weights the symbols' by theirs, stablecoins out.
  const market = new Float64Array(n);
  let marketWeight = 0;
  const premium = new Float64Array(n);
  for (const token of KOREA_TOKENS) {
    if (token.globalVenue === null) continue;
    const dynamics = tokenDynamics(seed, token);
    const index = new Float64Array(n);
    let weight = 0;
    let since = Infinity;
    const onBoth = KOREA_EXCHANGES.map((e) => listings.markets[e].find((l) => l.token.symbol === token.symbol)).filter(
      (l) => l !== undefined,
    );
    const listedSince = Math.min(...onBoth.map((l) => l.listedSince));
    const quotes: Array<[KoreaPriceExchange, number]> = [
      ...KOREA_EXCHANGES.flatMap((e): Array<[KoreaPriceExchange, number]> => {
        const l = listings.markets[e].find((x) => x.token.symbol === token.symbol);
        return l ? [[e, l.listedSince]] : [];
      }),
      ...(onBoth.length
        ? KOREA_PRICE_ONLY_EXCHANGES.filter((e) => pricedOn(e, token)).map((e): [KoreaPriceExchange, number] => [e, listedSince])
        : []),
    ];
    for (const [exchange, sinceMs] of quotes) {
      premiumWindow(seed, backdrop, token, dynamics, exchange, premium);
      pushSeries(exchange, token.symbol, premium, sinceMs);
      const w = baseDailyVolumeKrw(seed, token, exchange);
      for (let i = 0; i < n; i++) index[i] = index[i]! + w * premium[i]!;
      weight += w;
      since = Math.min(since, sinceMs);
    }
    if (weight === 0) continue;
    for (let i = 0; i < n; i++) index[i] = index[i]! / weight;
    pushSeries(PREMIUM_ARCHIVE.indexExchange, token.symbol, index, since);
    if (token.stablecoin) continue;
    for (let i = 0; i < n; i++) market[i] = market[i]! + weight * index[i]!;
    marketWeight += weight;
  }
  if (marketWeight > 0) {
    for (let i = 0; i < n; i++) market[i] = market[i]! / marketWeight;
    pushSeries(PREMIUM_ARCHIVE.indexExchange, PREMIUM_ARCHIVE.marketIndexSymbol, market, -Infinity);
  }
  return rows;
}

/**
 * The demo source's ingest step for kr_premium_history: the rows above while the warehouse's
 * archive has none of its own (its first run), none after, so later runs keep what they recorded.
 */
export const demoPremiumHistoryStep: IngestStep = {
  name: 'ingest:kr_premium_history',
  tables: [RAW_TABLES.kr_premium_history.name],
  async run(ctx: IngestContext) {
    const c = ctx.connection;
    const started = (await tableExists(c, 'premium_1d')) && (await queryJson(c, 'SELECT count(*)::INTEGER AS n FROM premium_1d'))[0]?.n;
    return appendRows(c, RAW_TABLES.kr_premium_history, started ? [] : premiumHistoryRows(ctx.seed, ctx.now.getTime()), { create: true });
  },
};
