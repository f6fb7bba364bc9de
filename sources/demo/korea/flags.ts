/**
 * Market flags of the korea demo world at one instant: investment warnings from the listing
 * calendar, Upbit caution flags (주의 종목) and Bithumb virtual-asset alerts (경보제). Each kind of
 * flag has its own calendar of episodes (start in the k-th period, duration hours to weeks, seeded
 * by (seed, kind, k)); large planted 1-minute moves and volume spikes raise flags of their own.
 */

import { Rng } from '../random.ts';
import { HOUR_MS, MINUTE_MS, WORLD_EPOCH_MS, msOfMinute } from './calendar.ts';
import type { ListingSnapshot } from './listings.ts';
import type { MarketShock } from './prices.ts';
import { KOREA_EXCHANGES, KOREA_TOKENS, type KoreaExchange, type KoreaToken } from './tokens.ts';

export interface MarketFlag {
  exchange: KoreaExchange;
  symbol: string;
  /** investment_warning | caution:<UPBIT_CRITERION> | alert:<BITHUMB_WARNING_TYPE> */
  flag: string;
  startedAt: Date | null;
  endsAt: Date | null;
}

interface FlagCalendar {
  exchange: KoreaExchange;
  flag: string;
  periodHours: number;
  minHours: number;
  maxHours: number;
  /** Relative chance of each token being the flagged one. */
  weight: (token: KoreaToken, premiumBias: number) => number;
}

// Caution flags fall on small, volatile markets; majors almost never.
const smallCap = (token: KoreaToken): number => (token.core ? 0.05 : 1 + Math.min(1, token.popularity / 150));
// Upbit compares with the global average price, so only tokens with a global price qualify.
const priceGap = (token: KoreaToken, premiumBias: number): number =>
  token.globalVenue === null || token.stablecoin ? 0 : smallCap(token) * (0.3 + 60 * Math.abs(premiumBias));

const CALENDARS: readonly FlagCalendar[] = [
  { exchange: 'upbit', flag: 'caution:GLOBAL_PRICE_DIFFERENCES', periodHours: 3, minHours: 6, maxHours: 336, weight: priceGap },
  { exchange: 'upbit', flag: 'caution:PRICE_FLUCTUATIONS', periodHours: 5, minHours: 2, maxHours: 24, weight: smallCap },
  { exchange: 'upbit', flag: 'caution:TRADING_VOLUME_SOARING', periodHours: 4, minHours: 2, maxHours: 24, weight: smallCap },
  { exchange: 'upbit', flag: 'caution:DEPOSIT_AMOUNT_SOARING', periodHours: 6, minHours: 3, maxHours: 48, weight: smallCap },
  { exchange: 'upbit', flag: 'caution:CONCENTRATION_OF_SMALL_ACCOUNTS', periodHours: 12, minHours: 12, maxHours: 168, weight: smallCap },
  { exchange: 'bithumb', flag: 'alert:PRICE_SUDDEN_FLUCTUATION', periodHours: 8, minHours: 12, maxHours: 48, weight: smallCap },
  { exchange: 'bithumb', flag: 'alert:TRADING_VOLUME_SUDDEN_FLUCTUATION', periodHours: 8, minHours: 12, maxHours: 48, weight: smallCap },
  { exchange: 'bithumb', flag: 'alert:DEPOSIT_AMOUNT_SUDDEN_FLUCTUATION', periodHours: 8, minHours: 12, maxHours: 48, weight: smallCap },
  { exchange: 'bithumb', flag: 'alert:PRICE_DIFFERENCE_HIGH', periodHours: 8, minHours: 12, maxHours: 72, weight: priceGap },
  { exchange: 'bithumb', flag: 'alert:SPECIFIC_ACCOUNT_HIGH_TRANSACTION', periodHours: 12, minHours: 12, maxHours: 48, weight: smallCap },
  { exchange: 'bithumb', flag: 'alert:EXCHANGE_TRADING_CONCENTRATION', periodHours: 24, minHours: 12, maxHours: 48, weight: smallCap },
];

/**
 * Bithumb announces an alert's release as a KST wall-clock time ending in :x4:59 or :x9:59;
 * stored in UTC (the KST wall clock minus 9 h is the same instant).
 */
export function bithumbReleaseTime(endMs: number): number {
  const fiveMinutes = 5 * MINUTE_MS;
  return Math.ceil(endMs / fiveMinutes) * fiveMinutes - 1000;
}

interface FlagEpisode {
  symbol: string;
  start: number;
  end: number;
}

function calendarEpisodes(seed: number, calendar: FlagCalendar, atMs: number, premiumBias: ReadonlyMap<string, number>): FlagEpisode[] {
  const period = calendar.periodHours * HOUR_MS;
  const candidates = KOREA_TOKENS.filter((t) => t.exchanges.includes(calendar.exchange));
  const weights = candidates.map((t) => calendar.weight(t, premiumBias.get(t.symbol) ?? 0));
  const first = Math.floor((atMs - calendar.maxHours * HOUR_MS - WORLD_EPOCH_MS) / period) - 1;
  const last = Math.floor((atMs - WORLD_EPOCH_MS) / period);
  const episodes: FlagEpisode[] = [];
  for (let k = Math.max(0, first); k <= last; k++) {
    const rng = Rng.stream(seed, `korea:flag:${calendar.flag}:${k}`);
    const start = Math.round((WORLD_EPOCH_MS + (k + rng.next()) * period) / MINUTE_MS) * MINUTE_MS;
    const token = rng.weighted(candidates, weights);
    // Log-uniform duration: many short flags, a few that stay for days.
    const hours = calendar.minHours * Math.pow(calendar.maxHours / calendar.minHours, rng.next());
    episodes.push({ symbol: token.symbol, start, end: start + Math.round(hours * 60) * MINUTE_MS });
  }
  return episodes;
}

/** Flags raised by the planted 1-minute moves: big moves and big volume spikes trip the exchange's criteria. */
function shockEpisodes(seed: number, shocks: readonly MarketShock[], exchange: KoreaExchange): { flag: string; episode: FlagEpisode }[] {
  const raised: { flag: string; episode: FlagEpisode }[] = [];
  for (const shock of shocks) {
    if (!shock.exchanges.includes(exchange)) continue;
    const bigMove = shock.kind === 'price' && Math.abs(shock.jump) >= 0.07;
    const bigVolume = shock.volumeMultiplier >= 25;
    if (!bigMove && !bigVolume) continue;
    const rng = Rng.stream(seed, `korea:shock-flag:${exchange}:${shock.minute}:${shock.symbol}`);
    // Bithumb's alert criteria trip less often than Upbit's, but an alert stays up until the next morning.
    if (exchange === 'bithumb' && !rng.chance(0.25)) continue;
    const start = msOfMinute(shock.minute + 1);
    const hours = exchange === 'upbit' ? rng.uniform(1, 4) : rng.uniform(12, 24);
    const episode = { symbol: shock.symbol, start, end: start + Math.round(hours * 60) * MINUTE_MS };
    if (bigMove) raised.push({ flag: exchange === 'upbit' ? 'caution:PRICE_FLUCTUATIONS' : 'alert:PRICE_SUDDEN_FLUCTUATION', episode });
    if (bigVolume)
      raised.push({ flag: exchange === 'upbit' ? 'caution:TRADING_VOLUME_SOARING' : 'alert:TRADING_VOLUME_SUDDEN_FLUCTUATION', episode });
  }
  return raised;
}

/** How far back shocks can still hold a flag up. */
export const SHOCK_FLAG_LOOKBACK_MS = 24 * HOUR_MS;

/**
 * Active flags at `atMs` on listed markets, one per (exchange, symbol, flag), ordered by exchange,
 * token-table order and flag name. `recentShocks` must cover the last SHOCK_FLAG_LOOKBACK_MS.
 */
export function marketFlagsAt(
  seed: number,
  atMs: number,
  listings: ListingSnapshot,
  premiumBias: ReadonlyMap<string, number>,
  recentShocks: readonly MarketShock[],
): MarketFlag[] {
  const flags: MarketFlag[] = [];
  for (const exchange of KOREA_EXCHANGES) {
    const listed = new Set(listings.markets[exchange].map((m) => m.token.symbol));
    const active = new Map<string, MarketFlag>();
    const raise = (flag: MarketFlag): void => {
      const key = `${flag.symbol}|${flag.flag}`;
      const existing = active.get(key);
      if (!existing) {
        active.set(key, flag);
        return;
      }
      // Overlapping episodes of one flag read as one flag: earliest start, latest announced end.
      if (existing.startedAt && flag.startedAt && flag.startedAt < existing.startedAt) existing.startedAt = flag.startedAt;
      if (existing.endsAt && flag.endsAt && flag.endsAt > existing.endsAt) existing.endsAt = flag.endsAt;
    };
    for (const symbol of listings.warnings[exchange]) {
      raise({ exchange, symbol, flag: 'investment_warning', startedAt: null, endsAt: null });
    }
    const episodes: { flag: string; episode: FlagEpisode }[] = [];
    for (const calendar of CALENDARS) {
      if (calendar.exchange !== exchange) continue;
      for (const episode of calendarEpisodes(seed, calendar, atMs, premiumBias)) episodes.push({ flag: calendar.flag, episode });
    }
    episodes.push(...shockEpisodes(seed, recentShocks, exchange));
    for (const { flag, episode } of episodes) {
      if (!listed.has(episode.symbol)) continue;
      if (exchange === 'bithumb') {
        const endsAt = bithumbReleaseTime(episode.end);
        if (episode.start <= atMs && atMs < endsAt) {
          raise({ exchange, symbol: episode.symbol, flag, startedAt: new Date(episode.start), endsAt: new Date(endsAt) });
        }
      } else if (episode.start <= atMs && atMs < episode.end) {
        raise({ exchange, symbol: episode.symbol, flag, startedAt: null, endsAt: null });
      }
    }
    const order = new Map(KOREA_TOKENS.map((t, i) => [t.symbol, i]));
    const sorted = [...active.values()].sort(
      (a, b) => order.get(a.symbol)! - order.get(b.symbol)! || (a.flag < b.flag ? -1 : a.flag > b.flag ? 1 : 0),
    );
    flags.push(...sorted);
  }
  return flags;
}
