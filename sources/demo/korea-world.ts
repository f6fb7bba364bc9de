/**
 * The korea half of the demo world: rows for the korea raw tables at one simulated `now`.
 * The world is a function of (seed, time): prices, FX, macro series, listings, flags and news are
 * each read from seeded calendars and bridges on a fixed epoch, so two runs at different `now`
 * show the same world evolved (a minute's candle is the same from both).
 */

import type { Row, WorldOptions } from './world.ts';
import {
  EARLIEST_NOW_MS,
  MINUTES_PER_DAY,
  dayIndexOf,
  minuteIndexOf,
  msOfMinute,
} from './korea-calendar.ts';
import { marketFlagsAt } from './korea-flags.ts';
import { ListingCalendar, type MarketListing } from './korea-listings.ts';
import { macroDailyRows, macroHistory, type MacroHistory } from './korea-macro.ts';
import { recentArticles } from './korea-news.ts';
import {
  GlobalPriceWindow,
  MAX_SHOCK_DECAY_MINUTES,
  MARKET_DAILY_SD,
  baseDailyVolumeKrw,
  dailyVolumeFactor,
  globalDailyVolumeUsd,
  kstHourActivity,
  logFxWindow,
  emptyMinuteNoise,
  marketShocks,
  minuteNoise,
  premiumBackdrop,
  premiumWindow,
  roundKrw,
  roundUsd,
  shockOffsets,
  tokenDynamics,
  type MarketShock,
  type MinuteNoise,
  type PremiumBackdrop,
  type TokenDynamics,
} from './korea-prices.ts';
import { KOREA_EXCHANGES, KOREA_TOKENS, type KoreaExchange, type KoreaToken } from './korea-tokens.ts';

export { DIVERGENCE_SYMBOLS, KOREA_TOKENS, type KoreaExchange, type KoreaToken } from './korea-tokens.ts';

export type KoreaRawTable =
  | 'kr_markets'
  | 'kr_tickers'
  | 'global_prices'
  | 'fx_rates'
  | 'candles_1m'
  | 'market_flags'
  | 'macro_daily'
  | 'news_articles';

const SOURCE = 'demo';
/** Candles returned at scale 1 (the last hour); `scale` multiplies it up to a full day. */
const CANDLE_MINUTES = 60;
/** Average KRW size of a trade: sets how often a thin market goes a minute without any trade. */
const AVERAGE_TRADE_KRW = 120_000;
// Local copies: hot loops read them millions of times.
const DAY_MINUTES = MINUTES_PER_DAY;
const KST_MINUTES = 9 * 60;
/** Activity by KST hour, normalised to a mean of 1. */
const HOURLY_ACTIVITY: readonly number[] = (() => {
  const raw = Array.from({ length: 24 }, (_, hour) => kstHourActivity(hour));
  const mean = raw.reduce((a, b) => a + b, 0) / 24;
  return raw.map((a) => a / mean);
})();

const round2 = (value: number): number => Math.round(value * 100) / 100;
/** Up to 8 decimals but never more than 15 significant digits, so large volumes print cleanly. */
function roundVolume(value: number): number {
  const integerDigits = value >= 1 ? Math.floor(Math.log10(value)) + 1 : 0;
  return Number(value.toFixed(Math.min(8, Math.max(0, 15 - integerDigits))));
}

function checkOptions(opts: WorldOptions): { seed: number; nowMs: number; candleMinutes: number } {
  const nowMs = opts.now instanceof Date ? opts.now.getTime() : Number.NaN;
  if (!Number.isFinite(nowMs)) throw new Error('koreaWorld: `now` must be a valid Date');
  if (nowMs < EARLIEST_NOW_MS) {
    throw new Error(`koreaWorld: \`now\` must be on or after ${new Date(EARLIEST_NOW_MS).toISOString()} (got ${opts.now.toISOString()})`);
  }
  if (!Number.isFinite(opts.seed)) throw new Error('koreaWorld: `seed` must be a finite number');
  if (!Number.isFinite(opts.scale) || opts.scale <= 0) throw new Error('koreaWorld: `scale` must be a positive number');
  const candleMinutes = Math.min(MINUTES_PER_DAY, CANDLE_MINUTES * Math.max(1, Math.round(opts.scale)));
  return { seed: opts.seed, nowMs, candleMinutes };
}

/** Everything one market (exchange, token) contributes: its ticker row and its recent candles. */
interface MarketRows {
  ticker: Row;
  candles: Row[];
}

interface WorldWindow {
  seed: number;
  now: Date;
  /** Start of the current minute (its boundary) and 24 hours before it, as minute indices. */
  mNow: number;
  m0: number;
  candleMinutes: number;
  macro: MacroHistory;
  logFx: Float64Array;
  premiums: PremiumBackdrop;
  global: GlobalPriceWindow;
  shocksByMarket: Map<string, MarketShock[]>;
  /** Per-minute buffers reused market after market (every slot is rewritten). */
  scratch: { premium: Float64Array; noise: MinuteNoise; jumps: Float64Array; price: Float64Array };
}

function marketKey(exchange: KoreaExchange, symbol: string): string {
  return `${exchange}:${symbol}`;
}

/**
 * Simulate one market over the last 24 hours: minute prices from the global path, FX, premium,
 * bid-ask bounce and shocks; a candle for each minute that saw a trade; the 24h ticker from them.
 */
function simulateMarket(w: WorldWindow, exchange: KoreaExchange, listing: MarketListing, dynamics: TokenDynamics): MarketRows {
  const { token } = listing;
  const { m0, mNow } = w;
  const n = mNow - m0 + 1;
  const logUsd = w.global.logUsd(token, dynamics);
  const { scratch } = w;
  const premium = premiumWindow(w.seed, w.premiums, token, dynamics, exchange, scratch.premium);
  const noise = minuteNoise(w.seed, exchange, token.symbol, m0, mNow, scratch.noise);
  const shocks = w.shocksByMarket.get(marketKey(exchange, token.symbol)) ?? [];
  const jumps = shockOffsets(shocks, m0, mNow, scratch.jumps);
  const microSd = dynamics.microSd * (exchange === 'bithumb' ? 1.3 : 1);

  const price = scratch.price;
  for (let i = 0; i < n; i++) {
    price[i] = Math.exp(logUsd[i]! + w.logFx[i]! + jumps[i]! + microSd * noise.micro[i]!) * (1 + premium[i]!);
  }

  // A surge and a volume spike may share a minute: the candle shows the bigger move.
  const shockAt = new Map<number, MarketShock>();
  for (const shock of shocks) {
    const other = shockAt.get(shock.minute);
    if (!other || Math.abs(shock.jump) > Math.abs(other.jump)) shockAt.set(shock.minute, shock);
  }
  const dailyBase = baseDailyVolumeKrw(w.seed, token, exchange);
  const firstDay = Math.floor(m0 / DAY_MINUTES);
  const dayFactors = [0, 1, 2].map((k) => dailyVolumeFactor(w.seed, token, exchange, firstDay + k));
  const minuteSd = Math.sqrt((dynamics.beta * MARKET_DAILY_SD) ** 2 + dynamics.idioDailySd ** 2) / Math.sqrt(DAY_MINUTES);
  const firstTraded = listing.listedSince === -Infinity ? m0 : Math.max(m0, minuteIndexOf(listing.listedSince));
  const firstCandle = mNow - w.candleMinutes;
  const stable = token.stablecoin;

  const candles: Row[] = [];
  // Rounding to the tick is monotone, so the 24h extremes can be rounded once at the end.
  let rawHigh24h = -Infinity;
  let rawLow24h = Infinity;
  let volumeBase = 0;
  let volumeKrw = 0;
  let lastRawClose = -1;
  let rateHour = -1;
  let expectedKrw = 0;
  let tradeChance = 0;
  for (let m = firstTraded; m < mNow; m++) {
    const i = m - m0;
    const hour = Math.floor(m / 60);
    if (hour !== rateHour) {
      // Expected turnover depends on the day's level and the KST hour only.
      const kstHour = Math.floor((((m % DAY_MINUTES) + KST_MINUTES) % DAY_MINUTES) / 60);
      expectedKrw = (dailyBase * dayFactors[Math.floor(m / DAY_MINUTES) - firstDay]! * HOURLY_ACTIVITY[kstHour]!) / DAY_MINUTES;
      tradeChance = 1 - Math.exp(-expectedKrw / AVERAGE_TRADE_KRW);
      rateHour = hour;
    }
    const shock = shockAt.get(m);
    if (shock === undefined && noise.presence[i]! >= tradeChance) continue; // no trade, no candle

    const rawOpen = price[i]!;
    const rawClose = price[i + 1]!;
    const overshoot = shock ? Math.abs(shock.jump) * 0.3 * noise.wickUp[i]! : 0;
    const rawHigh = Math.max(rawOpen, rawClose) * (1 + minuteSd * 1.5 * noise.wickUp[i]! ** 2 + (shock && shock.jump > 0 ? overshoot : 0));
    const rawLow = Math.min(rawOpen, rawClose) * (1 - minuteSd * 1.5 * noise.wickDown[i]! ** 2 - (shock && shock.jump < 0 ? overshoot : 0));
    const turnover = (expectedKrw / tradeChance) * Math.exp(0.6 * noise.volume[i]! - 0.18) * (shock ? shock.volumeMultiplier : 1);
    const rawVwap = (rawOpen + rawHigh + rawLow + rawClose) / 4;

    if (rawHigh > rawHigh24h) rawHigh24h = rawHigh;
    if (rawLow < rawLow24h) rawLow24h = rawLow;
    volumeBase += turnover / rawVwap;
    volumeKrw += turnover;
    lastRawClose = rawClose;
    if (m >= firstCandle) {
      const open = roundKrw(rawOpen, stable);
      const close = roundKrw(rawClose, stable);
      const high = roundKrw(rawHigh, stable);
      const low = roundKrw(rawLow, stable);
      const base = roundVolume(turnover / rawVwap);
      candles.push([exchange, token.symbol, new Date(msOfMinute(m)), open, high, low, close, base, round2(turnover), SOURCE]);
    }
  }

  const firstIndex = firstTraded - m0;
  const last = roundKrw(lastRawClose > 0 ? lastRawClose : price[n - 1]!, stable);
  const dayAgo = roundKrw(price[firstIndex]!, stable);
  // Upbit's day starts at 00:00 UTC, Bithumb's at 00:00 KST (15:00 UTC the day before).
  const dayStart = exchange === 'upbit'
    ? Math.floor(mNow / DAY_MINUTES) * DAY_MINUTES
    : Math.floor((mNow + KST_MINUTES) / DAY_MINUTES) * DAY_MINUTES - KST_MINUTES;
  const prevClose = roundKrw(price[Math.max(dayStart - m0, firstIndex)]!, stable);
  const ticker: Row = [
    exchange,
    token.symbol,
    last,
    prevClose,
    rawHigh24h > 0 ? Math.max(roundKrw(rawHigh24h, stable), last) : last,
    rawLow24h < Infinity ? Math.min(roundKrw(rawLow24h, stable), last) : last,
    round2((last / dayAgo - 1) * 100),
    roundVolume(volumeBase),
    round2(volumeKrw),
    w.now,
    SOURCE,
  ];
  return { ticker, candles };
}

/** Rows of every korea raw table at `opts.now`, each row in its table's column order. */
export function koreaWorld(opts: WorldOptions): Record<KoreaRawTable, Row[]> {
  const { seed, nowMs, candleMinutes } = checkOptions(opts);
  const now = new Date(nowMs);
  const mNow = minuteIndexOf(nowMs);
  const m0 = mNow - MINUTES_PER_DAY;
  // One day past the current one: minute paths and FX interpolate toward tomorrow's value.
  const macro = macroHistory(seed, Math.floor(mNow / MINUTES_PER_DAY) + 1);
  // One calendar for the whole window: shocks in the last 30 hours land only on open markets.
  const calendar = new ListingCalendar(seed, msOfMinute(m0 - MAX_SHOCK_DECAY_MINUTES), nowMs);
  const listings = calendar.snapshot(nowMs);
  const dynamics = new Map<string, TokenDynamics>(KOREA_TOKENS.map((t) => [t.symbol, tokenDynamics(seed, t)]));

  const shocks = marketShocks(seed, m0 - MAX_SHOCK_DECAY_MINUTES, mNow, calendar);
  const shocksByMarket = new Map<string, MarketShock[]>();
  for (const shock of shocks) {
    for (const exchange of shock.exchanges) {
      const key = marketKey(exchange, shock.symbol);
      const list = shocksByMarket.get(key);
      if (list) list.push(shock);
      else shocksByMarket.set(key, [shock]);
    }
  }

  const w: WorldWindow = {
    seed,
    now,
    mNow,
    m0,
    candleMinutes,
    macro,
    logFx: logFxWindow(macro, m0, mNow),
    premiums: premiumBackdrop(macro, m0, mNow),
    global: new GlobalPriceWindow(seed, m0, mNow),
    shocksByMarket,
    scratch: {
      premium: new Float64Array(mNow - m0 + 1),
      noise: emptyMinuteNoise(mNow - m0 + 1),
      jumps: new Float64Array(mNow - m0 + 1),
      price: new Float64Array(mNow - m0 + 1),
    },
  };

  const krMarkets: Row[] = [];
  const krTickers: Row[] = [];
  const candles: Row[] = [];
  const listedAnywhere = new Set<string>();
  for (const exchange of KOREA_EXCHANGES) {
    for (const listing of listings.markets[exchange]) {
      const { token } = listing;
      listedAnywhere.add(token.symbol);
      krMarkets.push([exchange, token.symbol, `KRW-${token.symbol}`, token.koreanName, token.englishName, now, SOURCE]);
      const rows = simulateMarket(w, exchange, listing, dynamics.get(token.symbol)!);
      krTickers.push(rows.ticker);
      candles.push(...rows.candles);
    }
  }

  const globalPrices: Row[] = [];
  const today = dayIndexOf(nowMs);
  for (const token of KOREA_TOKENS) {
    if (token.globalVenue === null || !listedAnywhere.has(token.symbol)) continue;
    const logUsd = w.global.logUsd(token, dynamics.get(token.symbol)!);
    globalPrices.push([
      token.symbol,
      roundUsd(Math.exp(logUsd[logUsd.length - 1]!)),
      Math.round(globalDailyVolumeUsd(seed, token, today)),
      token.globalVenue,
      now,
      SOURCE,
    ]);
  }

  const fxRates: Row[] = [['USDKRW', round2(Math.exp(w.logFx[w.logFx.length - 1]!)), 'demo', now, SOURCE]];

  const premiumBias = new Map<string, number>();
  for (const token of KOREA_TOKENS) premiumBias.set(token.symbol, dynamics.get(token.symbol)!.premiumBias);
  const flagShocks = shocks.filter((s) => s.minute >= mNow - MINUTES_PER_DAY);
  const marketFlags: Row[] = marketFlagsAt(seed, nowMs, listings, premiumBias, flagShocks).map((f) => [
    f.exchange,
    f.symbol,
    f.flag,
    f.startedAt,
    f.endsAt,
    now,
    SOURCE,
  ]);

  const newsArticles: Row[] = recentArticles(seed, nowMs, macro).map((a) => [
    a.articleId,
    a.topic,
    a.publishedAt,
    a.url,
    a.sourceKr,
    a.sourceEn,
    a.titleKr,
    a.bodyKr,
    a.titleEn,
    a.bodyEn,
    SOURCE,
  ]);

  return {
    kr_markets: krMarkets,
    kr_tickers: krTickers,
    global_prices: globalPrices,
    fx_rates: fxRates,
    candles_1m: candles,
    market_flags: marketFlags,
    macro_daily: macroDailyRows(macro, nowMs),
    news_articles: newsArticles,
  };
}

