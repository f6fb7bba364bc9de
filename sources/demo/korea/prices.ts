/**
 * Prices of the korea demo world. A token's global USD price is a crypto-market factor times its
 * own walk; a Korean exchange's KRW price is that times USD/KRW times (1 + kimchi premium), plus
 * bid-ask noise and the planted 1-minute shocks: headline surges, crashes and volume spikes every
 * few minutes, and smaller moves and spikes in every minute of every exchange, so the last closed
 * minute always holds movers. Everything is read at minute boundaries from seeded bridges and
 * per-slot draws, so a minute looks the same from any `now`.
 */

import { Rng } from '../random.ts';
import { gaussian, interpolateDaily, minutePath, ouWalk } from './walks.ts';
import type { MacroHistory } from './macro.ts';
import type { ListingCalendar } from './listings.ts';
import { msOfMinute } from './calendar.ts';
import {
  KOREA_EXCHANGES,
  KOREA_TOKENS,
  type KoreaExchange,
  type KoreaPriceExchange,
  type KoreaPriceOnlyExchange,
  type KoreaToken,
} from './tokens.ts';

// ------------------------------------------------------------------ tick sizes

/**
 * KRW order-price unit by price (Upbit's KRW table as of the 2025-07-31 change for prices of
 * 100 KRW and up, the 2024 table below; USDT/USDC use 0.5 KRW between 1,000 and 10,000).
 * Bithumb's units are close enough that the demo uses the same table for both.
 */
export function krwTickSize(price: number, stablecoin = false): number {
  if (price >= 1_000_000) return 1000;
  if (price >= 500_000) return 500;
  if (price >= 100_000) return 100;
  if (price >= 50_000) return 50;
  if (price >= 10_000) return 10;
  if (price >= 5_000) return 5;
  if (price >= 1_000) return stablecoin ? 0.5 : 1;
  if (price >= 100) return 1;
  if (price >= 10) return 0.01;
  if (price >= 1) return 0.001;
  if (price >= 0.1) return 0.0001;
  if (price >= 0.01) return 0.00001;
  if (price >= 0.001) return 0.000001;
  if (price >= 0.0001) return 0.0000001;
  return 0.00000001;
}

/** Round to a tick without binary noise (0.1 + 0.2 style tails): decimal ticks divide by a power of ten. */
export function roundToTick(value: number, tick: number): number {
  const steps = Math.round(value / tick);
  if (tick >= 0.5) return steps * tick;
  return steps / Math.round(1 / tick);
}

export function roundKrw(price: number, stablecoin: boolean): number {
  return roundToTick(price, krwTickSize(price, stablecoin));
}

/** Six significant digits, like a Binance quote; never more than 8 decimals. */
export function roundUsd(price: number): number {
  return Number(Number(price.toPrecision(6)).toFixed(8));
}

// ------------------------------------------------------------------ per-token character

export interface TokenDynamics {
  logLevel: number;
  /** Sensitivity to the crypto-market factor. */
  beta: number;
  /** Daily sd of the token's own walk and how far it may wander from its level (log units). */
  idioDailySd: number;
  idioStationarySd: number;
  /** Premium of this token above the market-wide kimchi premium on Upbit (fraction). */
  premiumBias: number;
  /** Bithumb's premium minus Upbit's (fraction, a few tenths of a percent at most). */
  bithumbPremiumOffset: number;
  /** Bid-ask bounce at each minute boundary (log sd). */
  microSd: number;
}

/** Daily sd and stationary spread of the crypto-market factor (BTC-like). */
export const MARKET_DAILY_SD = 0.028;
const MARKET_STATIONARY_SD = 0.25;

export function tokenDynamics(seed: number, token: KoreaToken): TokenDynamics {
  const rng = Rng.stream(seed, `korea:token:${token.symbol}`);
  const rank = token.popularity;
  const illiquidity = Math.min(1, rank / 200);
  const microSd = 0.0002 + 0.0016 * illiquidity;
  if (token.stablecoin) {
    return {
      logLevel: 0,
      beta: 0,
      idioDailySd: token.symbol === 'USDT' ? 0 : 0.0002,
      idioStationarySd: 0.0003,
      premiumBias: 0,
      bithumbPremiumOffset: 0.0004 * gaussian(rng),
      microSd: 0.0002,
    };
  }
  const logLevel = Math.log(token.priceUsd) + 0.08 * gaussian(rng);
  const major = rank < 12;
  const beta = token.symbol === 'BTC' ? 1 : major ? rng.uniform(1, 1.2) : rng.uniform(0.9, 1.35);
  const idioDailySd = token.symbol === 'BTC' ? 0.006 : major ? rng.uniform(0.012, 0.02) : rng.uniform(0.025, 0.045);
  const idioStationarySd = token.symbol === 'BTC' ? 0.1 : major ? 0.2 : 0.3;
  const kind = rng.next();
  let premiumBias: number;
  if (major) premiumBias = 0.0012 * gaussian(rng);
  else if (kind < 0.035)
    premiumBias = -rng.uniform(0.017, 0.035); // reverse premium: cheaper in Korea
  else if (kind < 0.11)
    premiumBias = rng.uniform(0.02, 0.065); // Korean retail favourite
  else premiumBias = 0.005 * gaussian(rng);
  const bithumbPremiumOffset = (major ? 0.001 : 0.0025) * gaussian(rng);
  return { logLevel, beta, idioDailySd, idioStationarySd, premiumBias, bithumbPremiumOffset, microSd };
}

// ------------------------------------------------------------------ global USD prices

/**
 * The daily walks behind global prices, from the epoch through `days`, kept for reuse by windows
 * that end by then (a walk's value at a day does not depend on how far it was drawn).
 */
export class DailyWalks {
  private readonly walks = new Map<string, Float64Array>();

  constructor(
    readonly seed: number,
    readonly days: number,
  ) {}

  walk(name: string, dailySd: number, stationarySd: number): Float64Array {
    let walk = this.walks.get(name);
    if (!walk) {
      walk = ouWalk(Rng.stream(this.seed, name), this.days, dailySd, stationarySd);
      this.walks.set(name, walk);
    }
    return walk;
  }
}

let latestWalks: DailyWalks | null = null;

/**
 * The daily walks of (seed, days), kept from one call to the next: npm start re-runs the world
 * every minute, and the walks only change when the day does (one set is kept, about 6 MB).
 */
export function dailyWalks(seed: number, days: number): DailyWalks {
  if (latestWalks === null || latestWalks.seed !== seed || latestWalks.days !== days) latestWalks = new DailyWalks(seed, days);
  return latestWalks;
}

/** Global (Binance-like) log USD prices at minute boundaries of one window [m0, m1]. */
export class GlobalPriceWindow {
  private readonly market: Float64Array;
  private readonly cache = new Map<string, Float64Array>();
  private readonly walks: DailyWalks;

  /** `walks`, if given, must reach the day after m1's (several windows can share them). */
  constructor(
    private readonly seed: number,
    readonly m0: number,
    readonly m1: number,
    walks?: DailyWalks,
  ) {
    this.walks = walks ?? dailyWalks(seed, Math.floor(m1 / 1440) + 1);
    const marketDaily = this.walks.walk('korea:market', MARKET_DAILY_SD, MARKET_STATIONARY_SD);
    this.market = minutePath(seed, 'korea:market', marketDaily, MARKET_DAILY_SD, m0, m1);
  }

  logUsd(token: KoreaToken, dynamics: TokenDynamics): Float64Array {
    const cached = this.cache.get(token.symbol);
    if (cached) return cached;
    const out = new Float64Array(this.m1 - this.m0 + 1);
    if (dynamics.idioDailySd > 0) {
      const name = `korea:idio:${token.symbol}`;
      const daily = this.walks.walk(name, dynamics.idioDailySd, dynamics.idioStationarySd);
      const idio = minutePath(this.seed, name, daily, dynamics.idioDailySd, this.m0, this.m1);
      for (let i = 0; i < out.length; i++) out[i] = dynamics.logLevel + dynamics.beta * this.market[i]! + idio[i]!;
    }
    this.cache.set(token.symbol, out);
    return out;
  }
}

// ------------------------------------------------------------------ FX and premiums

const LOG_USD_KRW = new WeakMap<MacroHistory, Float64Array>();

/** ln(USD/KRW) at minute boundaries, interpolated from the daily macro series. */
export function logFxWindow(macro: MacroHistory, m0: number, m1: number): Float64Array {
  let logDaily = LOG_USD_KRW.get(macro);
  if (!logDaily) {
    logDaily = macro.usdKrw.map((rate) => Math.log(rate));
    LOG_USD_KRW.set(macro, logDaily);
  }
  return interpolateDaily(logDaily, m0, m1);
}

/** The market-wide premiums at minute boundaries m0..m1, shared by every token. */
export interface PremiumBackdrop {
  m0: number;
  m1: number;
  /** Stablecoin premium (fraction). */
  stablecoin: Float64Array;
  /** Kimchi premium of ordinary tokens above the stablecoin premium (fraction). */
  kimchiSpread: Float64Array;
}

export function premiumBackdrop(macro: MacroHistory, m0: number, m1: number): PremiumBackdrop {
  return {
    m0,
    m1,
    stablecoin: interpolateDaily(macro.stablecoinPremium, m0, m1),
    kimchiSpread: interpolateDaily(macro.kimchiSpread, m0, m1),
  };
}

/**
 * Kimchi premium (fraction) of a token on an exchange at minute boundaries m0..m1:
 * stablecoin premium + market-wide spread + token bias + a slow daily drift (+ Bithumb's offset).
 */
export function premiumWindow(
  seed: number,
  backdrop: PremiumBackdrop,
  token: KoreaToken,
  dynamics: TokenDynamics,
  exchange: KoreaPriceExchange,
  out: Float64Array = new Float64Array(backdrop.m1 - backdrop.m0 + 1),
): Float64Array {
  const { m0, m1 } = backdrop;
  const offset =
    exchange === 'upbit' ? 0 : exchange === 'bithumb' ? dynamics.bithumbPremiumOffset : priceOnlyPremiumOffset(seed, token, exchange);
  if (token.stablecoin) {
    for (let i = 0; i < out.length; i++) out[i] = backdrop.stablecoin[i]! + offset;
    return out;
  }
  // The token's own drift: one value per day start, linear in between.
  const firstDay = Math.floor(m0 / 1440);
  const lastDay = Math.floor(m1 / 1440) + 1;
  const drift: number[] = [];
  for (let d = firstDay; d <= lastDay; d++) drift.push(0.0015 * gaussian(Rng.stream(seed, `korea:premium:${token.symbol}:d${d}`)));
  const base = dynamics.premiumBias + offset;
  for (let i = 0; i < out.length; i++) {
    const m = m0 + i;
    const day = Math.floor(m / 1440);
    const f = (m - day * 1440) / 1440;
    const d0 = drift[day - firstDay]!;
    const tokenDrift = d0 + (drift[day - firstDay + 1]! - d0) * f;
    out[i] = backdrop.stablecoin[i]! + backdrop.kimchiSpread[i]! + base + tokenDrift;
  }
  return out;
}

/** Coinone's or Korbit's premium minus Upbit's (fraction): a few tenths of a percent, less for the majors. */
function priceOnlyPremiumOffset(seed: number, token: KoreaToken, exchange: KoreaPriceOnlyExchange): number {
  const sd = token.stablecoin ? 0.0004 : token.popularity < 12 ? 0.0012 : 0.003;
  return sd * gaussian(Rng.stream(seed, `korea:premium-offset:${exchange}:${token.symbol}`));
}

// ------------------------------------------------------------------ per-minute exchange noise

/** Per-minute draws of one market, read from per-hour streams so any window sees the same minute. */
export interface MinuteNoise {
  /** Bid-ask bounce at the minute boundary (standard normal). */
  micro: Float64Array;
  /** Uniform deciding whether any trade happened in the minute. */
  presence: Float64Array;
  /** Standard normal for the minute's volume. */
  volume: Float64Array;
  /** Uniforms for the wicks above and below the body. */
  wickUp: Float64Array;
  wickDown: Float64Array;
}

export function emptyMinuteNoise(n: number): MinuteNoise {
  return {
    micro: new Float64Array(n),
    presence: new Float64Array(n),
    volume: new Float64Array(n),
    wickUp: new Float64Array(n),
    wickDown: new Float64Array(n),
  };
}

/** Fill `into` (or a new buffer) with the draws of minutes m0..m1; every slot gets written. */
export function minuteNoise(
  seed: number,
  exchange: KoreaPriceExchange,
  symbol: string,
  m0: number,
  m1: number,
  into: MinuteNoise = emptyMinuteNoise(m1 - m0 + 1),
): MinuteNoise {
  const n = m1 - m0 + 1;
  const noise = into;
  for (let hour = Math.floor(m0 / 60); hour <= Math.floor(m1 / 60); hour++) {
    const rng = Rng.stream(seed, `korea:${exchange}:${symbol}:h${hour}`);
    for (let k = 0; k < 60; k++) {
      // One Box-Muller draw gives both normals of the minute.
      let u = rng.next();
      while (u === 0) u = rng.next();
      const radius = Math.sqrt(-2 * Math.log(u));
      const angle = 2 * Math.PI * rng.next();
      const presence = rng.next();
      const wickUp = rng.next();
      const wickDown = rng.next();
      const i = hour * 60 + k - m0;
      if (i < 0 || i >= n) continue;
      noise.micro[i] = radius * Math.cos(angle);
      noise.volume[i] = radius * Math.sin(angle);
      noise.presence[i] = presence;
      noise.wickUp[i] = wickUp;
      noise.wickDown[i] = wickDown;
    }
  }
  return noise;
}

// ------------------------------------------------------------------ planted surges, crashes, volume spikes

export interface MarketShock {
  /** Minute index of the candle that shows the move. */
  minute: number;
  symbol: string;
  exchanges: readonly KoreaExchange[];
  kind: 'price' | 'volume';
  /** Price move within that minute (fraction, +0.05 = +5 %); fades back over decayMinutes. */
  jump: number;
  decayMinutes: number;
  /** That minute's volume relative to its usual level. */
  volumeMultiplier: number;
}

const PRICE_SHOCK_EVERY = 4; // one headline surge or crash per 4-minute slot
const VOLUME_SPIKE_EVERY = 5; // one headline volume spike per 5-minute slot
export const MAX_SHOCK_DECAY_MINUTES = 360;

/** Tokens that can surge, crash or spike: not the stablecoins, and not BTC, XRP and ETH (too deep to jump). */
export function canShock(token: KoreaToken): boolean {
  return !token.stablecoin && token.popularity >= 3;
}

// Majors rarely jump 5 % in a minute; small Korean alts do.
const shockWeight = (token: KoreaToken): number => (token.popularity < 30 ? 0.25 : 1);

/** Tokens with the running sum of their weights, for a weighted draw by bisection (drawn thousands of times a run). */
interface WeightedTokens {
  tokens: readonly KoreaToken[];
  cumulative: Float64Array;
}

function weightedTokens(tokens: readonly KoreaToken[]): WeightedTokens {
  const cumulative = new Float64Array(tokens.length);
  let total = 0;
  tokens.forEach((t, i) => {
    total += shockWeight(t);
    cumulative[i] = total;
  });
  return { tokens, cumulative };
}

/** One weighted draw from one uniform, like Rng.weighted. */
function drawToken(rng: Rng, { tokens, cumulative }: WeightedTokens): KoreaToken {
  const x = rng.next() * cumulative[cumulative.length - 1]!;
  let lo = 0;
  let hi = cumulative.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (cumulative[mid]! <= x) lo = mid + 1;
    else hi = mid;
  }
  return tokens[lo]!;
}

const SHOCK_CANDIDATES = weightedTokens(KOREA_TOKENS.filter((t) => canShock(t) && t.exchanges.length > 0));

/**
 * Pick a market that is open at the shock's minute: a token and the exchanges it jumps on
 * (both, or one of them). Draws depend only on (seed, slot) and the listing calendar.
 */
function pickShockMarket(
  rng: Rng,
  listings: ListingCalendar,
  minute: number,
  bothShare: number,
): { token: KoreaToken; exchanges: readonly KoreaExchange[] } | null {
  const atMs = msOfMinute(minute);
  for (let attempt = 0; attempt < 6; attempt++) {
    const token = drawToken(rng, SHOCK_CANDIDATES);
    const u = rng.next();
    const open = (['upbit', 'bithumb'] as const).filter((e) => listings.isListed(e, token, atMs));
    if (open.length === 0) continue;
    if (open.length === 1) return { token, exchanges: open };
    if (u < bothShare) return { token, exchanges: open };
    return { token, exchanges: [u < bothShare + (1 - bothShare) * 0.6 ? 'upbit' : 'bithumb'] };
  }
  return null;
}

/**
 * Headline shocks (one surge or crash of 2.5 to 8 % per 4 minutes, one volume spike per 5) whose
 * minute lies in [fromMinute, toMinute), in minute order. `listings` must cover the span, so every
 * shock lands on a market that is open at its minute. Big ones trip the exchanges' caution flags.
 */
export function marketShocks(seed: number, fromMinute: number, toMinute: number, listings: ListingCalendar): MarketShock[] {
  const shocks: MarketShock[] = [];
  for (let slot = Math.floor(fromMinute / PRICE_SHOCK_EVERY); slot * PRICE_SHOCK_EVERY < toMinute; slot++) {
    const rng = Rng.stream(seed, `korea:shock:${slot}`);
    const minute = slot * PRICE_SHOCK_EVERY + rng.int(0, PRICE_SHOCK_EVERY - 1);
    if (minute < fromMinute || minute >= toMinute) continue;
    const size = 0.025 + 0.055 * rng.next() ** 2; // 2.5 % to 8 %, mostly small
    const jump = rng.chance(0.55) ? size : -size;
    const decayMinutes = Math.round(30 + (MAX_SHOCK_DECAY_MINUTES - 30) * rng.next());
    const volumeMultiplier = 4 + 8 * rng.next();
    const market = pickShockMarket(rng, listings, minute, 0.5);
    if (market)
      shocks.push({
        minute,
        symbol: market.token.symbol,
        exchanges: market.exchanges,
        kind: 'price',
        jump,
        decayMinutes,
        volumeMultiplier,
      });
  }
  for (let slot = Math.floor(fromMinute / VOLUME_SPIKE_EVERY); slot * VOLUME_SPIKE_EVERY < toMinute; slot++) {
    const rng = Rng.stream(seed, `korea:spike:${slot}`);
    const minute = slot * VOLUME_SPIKE_EVERY + rng.int(0, VOLUME_SPIKE_EVERY - 1);
    if (minute < fromMinute || minute >= toMinute) continue;
    const size = rng.uniform(0.003, 0.012);
    const jump = rng.chance(0.6) ? size : -size;
    const decayMinutes = Math.round(rng.uniform(10, 40));
    const volumeMultiplier = 6 + 24 * rng.next() ** 1.5;
    const market = pickShockMarket(rng, listings, minute, 0);
    if (market)
      shocks.push({
        minute,
        symbol: market.token.symbol,
        exchanges: market.exchanges,
        kind: 'volume',
        jump,
        decayMinutes,
        volumeMultiplier,
      });
  }
  return shocks.sort(byMinuteAndKind);
}

// ------------------------------------------------------------------ minute moves

/** Longest fade of a minute move: a window needs this much history of them. */
export const MINUTE_MOVE_MAX_DECAY_MINUTES = 45;

// Every token that can shock may be listed on either exchange; the calendar says whether it is.
const MOVE_CANDIDATES = weightedTokens(KOREA_TOKENS.filter(canShock));

/** A weighted draw of a move candidate open on the exchange at `atMs` and not in `taken` (null after 8 misses). */
function pickOpenToken(
  rng: Rng,
  exchange: KoreaExchange,
  listings: ListingCalendar,
  atMs: number,
  taken: readonly string[],
): KoreaToken | null {
  for (let attempt = 0; attempt < 8; attempt++) {
    const token = drawToken(rng, MOVE_CANDIDATES);
    if (!taken.includes(token.symbol) && listings.isListed(exchange, token, atMs)) return token;
  }
  return null;
}

/**
 * Minute moves whose minute lies in [fromMinute, toMinute), on the given exchanges, in minute
 * order: every minute of every exchange has 1 to 3 surges or crashes of 1.8 to 6.8 % (mostly near
 * 2 %) on small markets, with 3 to 10 times their usual volume, and most minutes 1 or 2 volume
 * spikes of 12 to 24 times the usual volume with a small price move. They fade within 45 minutes
 * and stay under the headline shocks' flag thresholds, so the market-movers dataset finds movers at
 * whatever minute it looks. Draws depend only on (seed, exchange, minute) and the listing calendar.
 */
export function minuteMoves(
  seed: number,
  fromMinute: number,
  toMinute: number,
  listings: ListingCalendar,
  exchanges: readonly KoreaExchange[] = KOREA_EXCHANGES,
): MarketShock[] {
  const moves: MarketShock[] = [];
  for (let minute = fromMinute; minute < toMinute; minute++) {
    const atMs = msOfMinute(minute);
    for (const exchange of exchanges) {
      const rng = Rng.stream(seed, `korea:minute-move:${exchange}:${minute}`);
      const movers = 1 + (rng.next() < 0.6 ? 1 : 0) + (rng.next() < 0.25 ? 1 : 0);
      const spikes = rng.next() < 0.85 ? 1 + (rng.next() < 0.4 ? 1 : 0) : 0;
      const taken: string[] = [];
      for (let k = 0; k < movers + spikes; k++) {
        const price = k < movers;
        const size = price ? 0.018 + 0.05 * rng.next() ** 3 : rng.uniform(0.002, 0.008);
        const jump = rng.chance(0.5) ? size : -size;
        const decayMinutes = price ? rng.int(8, MINUTE_MOVE_MAX_DECAY_MINUTES) : rng.int(10, 30);
        const volumeMultiplier = price ? rng.uniform(3, 10) : rng.uniform(12, 24);
        const token = pickOpenToken(rng, exchange, listings, atMs, taken);
        if (!token) continue;
        taken.push(token.symbol);
        moves.push({
          minute,
          symbol: token.symbol,
          exchanges: [exchange],
          kind: price ? 'price' : 'volume',
          jump,
          decayMinutes,
          volumeMultiplier,
        });
      }
    }
  }
  return moves;
}

/**
 * Every planted shock that moves a price or a volume in minutes [fromMinute, toMinute): headline
 * shocks from MAX_SHOCK_DECAY_MINUTES before, minute moves from MINUTE_MOVE_MAX_DECAY_MINUTES
 * before (on `exchanges` only), in minute order. A market's list is the same whatever span it
 * is read from, so its price offsets add up in the same order.
 */
export function shocksAffecting(
  seed: number,
  fromMinute: number,
  toMinute: number,
  listings: ListingCalendar,
  exchanges: readonly KoreaExchange[] = KOREA_EXCHANGES,
): MarketShock[] {
  const headline = marketShocks(seed, fromMinute - MAX_SHOCK_DECAY_MINUTES, toMinute, listings);
  return mergeShocks(headline, minuteMoves(seed, fromMinute - MINUTE_MOVE_MAX_DECAY_MINUTES, toMinute, listings, exchanges));
}

const byMinuteAndKind = (a: MarketShock, b: MarketShock): number => a.minute - b.minute || (a.kind < b.kind ? -1 : a.kind > b.kind ? 1 : 0);

/**
 * Headline shocks and minute moves (each in minute order) in one list ordered by minute and kind;
 * within a minute and kind, headline shocks first, each list in its own order (a stable sort of
 * the two, merged minute by minute).
 */
export function mergeShocks(headline: readonly MarketShock[], minute: readonly MarketShock[]): MarketShock[] {
  const merged: MarketShock[] = [];
  let h = 0;
  let m = 0;
  while (h < headline.length || m < minute.length) {
    const at = Math.min(headline[h]?.minute ?? Infinity, minute[m]?.minute ?? Infinity);
    const bucket: MarketShock[] = [];
    while (h < headline.length && headline[h]!.minute === at) bucket.push(headline[h++]!);
    while (m < minute.length && minute[m]!.minute === at) bucket.push(minute[m++]!);
    merged.push(...bucket.sort(byMinuteAndKind));
  }
  return merged;
}

/** Log-price offset of the shocks at each minute boundary m0..m1: full at minute+1, fading to 0. */
export function shockOffsets(
  shocks: readonly MarketShock[],
  m0: number,
  m1: number,
  out: Float64Array = new Float64Array(m1 - m0 + 1),
): Float64Array {
  out.fill(0);
  for (const shock of shocks) {
    const logJump = Math.log(1 + shock.jump);
    const start = shock.minute + 1;
    for (let m = Math.max(m0, start); m <= m1 && m < start + shock.decayMinutes; m++) {
      const fade = 1 - (m - start) / shock.decayMinutes;
      out[m - m0] = out[m - m0]! + logJump * fade * fade;
    }
  }
  return out;
}

// ------------------------------------------------------------------ traded volume

/** Usual 24h KRW turnover of a market: Zipf-like in popularity, Upbit bigger than Bithumb. */
export function baseDailyVolumeKrw(seed: number, token: KoreaToken, exchange: KoreaPriceExchange): number {
  const rng = Rng.stream(seed, `korea:volume:${exchange}:${token.symbol}`);
  if (exchange === 'coinone' || exchange === 'korbit') {
    // A share of what Upbit trades: Coinone a few percent, Korbit about half of that.
    const share = (exchange === 'coinone' ? 0.05 : 0.025) * Math.exp(0.5 * gaussian(rng));
    return baseDailyVolumeKrw(seed, token, token.exchanges.includes('upbit') || !token.exchanges.length ? 'upbit' : 'bithumb') * share;
  }
  const TOP: Readonly<Record<string, number>> = { BTC: 3.2e11, XRP: 2.8e11, ETH: 1.8e11, USDT: 1.5e11, SOL: 7e10, DOGE: 5.5e10 };
  const top = TOP[token.symbol];
  const homeOnHere = token.exchanges.includes(exchange);
  // A market outside the token's home listing is a recent listing: mid-table interest.
  const rank = homeOnHere ? token.popularity : 40 + (token.popularity % 60);
  let upbitLevel =
    top !== undefined ? top * Math.exp(0.12 * gaussian(rng)) : 3e11 * Math.pow(rank + 1, -1.45) * Math.exp(0.7 * gaussian(rng));
  if (top === undefined) upbitLevel = Math.min(upbitLevel, 4.5e10);
  if (exchange === 'upbit') return upbitLevel;
  // Bithumb-only tokens carry Bithumb's own interest; shared ones trade a fraction of Upbit's.
  const share = token.exchanges.includes('upbit') ? 0.45 * Math.exp(0.5 * gaussian(rng)) : 0.6 * Math.exp(0.4 * gaussian(rng));
  return upbitLevel * Math.min(1.6, share);
}

/** Day-to-day variation of a market's turnover (mean 1). */
export function dailyVolumeFactor(seed: number, token: KoreaToken, exchange: KoreaPriceExchange, day: number): number {
  return Math.exp(0.35 * gaussian(Rng.stream(seed, `korea:volume:${exchange}:${token.symbol}:d${day}`)) - 0.06);
}

/** Intraday activity by KST hour: busiest late evening and at the 09:00 KST daily reset. */
export function kstHourActivity(kstHour: number): number {
  return 1 + 0.35 * Math.cos((2 * Math.PI * (kstHour - 22)) / 24) + (kstHour === 9 ? 0.3 : 0);
}

/** 24h USD turnover on the global venue (Binance spot is deep; OKX fallbacks thinner). */
export function globalDailyVolumeUsd(seed: number, token: KoreaToken, day: number): number {
  const rng = Rng.stream(seed, `korea:global-volume:${token.symbol}`);
  const level = 1.5e9 * Math.pow(token.popularity + 1, -1.1) * Math.exp((token.popularity < 10 ? 0.25 : 0.6) * gaussian(rng));
  const venueShare = token.globalVenue === 'okx' ? 0.25 : 1;
  const today = Math.exp(0.3 * gaussian(Rng.stream(seed, `korea:global-volume:${token.symbol}:d${day}`)) - 0.045);
  return level * venueShare * today;
}
