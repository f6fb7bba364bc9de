/**
 * The korea half of the demo world: rows for the korea raw tables at one simulated `now`.
 * The world is a function of (seed, time): prices, FX, macro series, listings, flags and news are
 * each read from seeded calendars and bridges on a fixed epoch, so two runs at different `now`
 * show the same world evolved (a minute's candle is the same from both). Planted events give every
 * product something to show at any minute: surges, crashes and volume spikes in every minute
 * (prices.ts), a listing or delisting every few minutes (listings.ts), and crypto news
 * reporting them with the world's own numbers (news-crypto.ts, reading through newsWorld).
 */

import type { WorldOptions } from '../world.ts';
import { Rng } from '../random.ts';
import { gaussian } from './walks.ts';
import { DEMO_BOOK_SYMBOLS, demoBookRows, demoWalletRow } from './books.ts';
import type { Row } from '../../../lib/duckdb.ts';
import { DAY_MS, EARLIEST_NOW_MS, MINUTES_PER_DAY, dayIndexOf, minuteIndexOf, msOfMinute } from './calendar.ts';
import { marketFlagsAt } from './flags.ts';
import { ListingCalendar, type MarketListing } from './listings.ts';
import { macroDailyRows, macroHistory, type MacroHistory } from './macro.ts';
import { recentArticles, type MarketView, type NewsArticle, type NewsWorld } from './news.ts';
import {
  GlobalPriceWindow,
  MAX_SHOCK_DECAY_MINUTES,
  MARKET_DAILY_SD,
  MINUTE_MOVE_MAX_DECAY_MINUTES,
  baseDailyVolumeKrw,
  canShock,
  dailyVolumeFactor,
  dailyWalks,
  globalDailyVolumeUsd,
  kstHourActivity,
  logFxWindow,
  emptyMinuteNoise,
  marketShocks,
  mergeShocks,
  minuteMoves,
  minuteNoise,
  premiumBackdrop,
  premiumWindow,
  roundKrw,
  roundUsd,
  shockOffsets,
  shocksAffecting,
  tokenDynamics,
  type MarketShock,
  type MinuteNoise,
  type PremiumBackdrop,
  type TokenDynamics,
} from './prices.ts';
import {
  KOREA_EXCHANGES,
  KOREA_PRICE_ONLY_EXCHANGES,
  KOREA_TOKENS,
  KOREA_TOKEN_BY_SYMBOL,
  type KoreaExchange,
  type KoreaPriceExchange,
  pricedOn,
} from './tokens.ts';

export { DIVERGENCE_SYMBOLS, KOREA_TOKENS, type KoreaExchange, type KoreaToken } from './tokens.ts';

export type KoreaRawTable =
  | 'kr_markets'
  | 'kr_tickers'
  | 'global_prices'
  | 'fx_rates'
  | 'candles_1m'
  | 'market_flags'
  | 'macro_daily'
  | 'news_articles'
  | 'order_books'
  | 'wallet_status';

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
function simulateMarket(
  w: WorldWindow,
  exchange: KoreaPriceExchange,
  listing: MarketListing,
  dynamics: TokenDynamics,
  /** Coinone and Korbit: the market whose shocks they follow (arbitrage carries a jump over), and no candles. */
  follows?: KoreaExchange,
): MarketRows {
  const { token } = listing;
  const { m0, mNow } = w;
  const n = mNow - m0 + 1;
  const logUsd = w.global.logUsd(token, dynamics);
  const { scratch } = w;
  const premium = premiumWindow(w.seed, w.premiums, token, dynamics, exchange, scratch.premium);
  const noise = minuteNoise(w.seed, exchange, token.symbol, m0, mNow, scratch.noise);
  const shocks = w.shocksByMarket.get(marketKey(follows ?? (exchange as KoreaExchange), token.symbol)) ?? [];
  const jumps = shockOffsets(shocks, m0, mNow, scratch.jumps);
  const microSd = dynamics.microSd * (exchange === 'upbit' ? 1 : exchange === 'bithumb' ? 1.3 : 1.6);

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
  const firstCandle = follows ? mNow : mNow - w.candleMinutes;
  const stable = token.stablecoin;

  const candles: Row[] = [];
  // Rounding to the tick is monotone, so the 24h extremes can be rounded once at the end.
  let rawHigh24h = -Infinity;
  let rawLow24h = Infinity;
  let volumeBase = 0;
  let volumeKrw = 0;
  let lastRawClose = -1;
  /** The last minute with a trade (-1: none in the window). */
  let lastTradeMinute = -1;
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
    // A shocked minute's volume varies less around its multiple, so a planted spike reads as one.
    const turnover =
      (expectedKrw / tradeChance) *
      (shock ? Math.exp(0.25 * noise.volume[i]! - 0.03125) * shock.volumeMultiplier : Math.exp(0.6 * noise.volume[i]! - 0.18));
    const rawVwap = (rawOpen + rawHigh + rawLow + rawClose) / 4;

    if (rawHigh > rawHigh24h) rawHigh24h = rawHigh;
    if (rawLow < rawLow24h) rawLow24h = rawLow;
    volumeBase += turnover / rawVwap;
    volumeKrw += turnover;
    lastRawClose = rawClose;
    lastTradeMinute = m;
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
  const dayStart =
    exchange === 'upbit'
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
    // the last trade: within its minute (a trade near its end); none in the window: the window's start at
    // the latest. Coinone does not say when it last traded (sources/live/korea/coinone-korbit.md).
    exchange === 'coinone' ? null : new Date(lastTradeMinute >= 0 ? msOfMinute(lastTradeMinute) + 45_000 : msOfMinute(firstTraded)),
    SOURCE,
  ];
  return { ticker, candles };
}

/** Group shocks by the markets they hit. */
function shocksByMarketOf(shocks: readonly MarketShock[]): Map<string, MarketShock[]> {
  const byMarket = new Map<string, MarketShock[]>();
  for (const shock of shocks) {
    for (const exchange of shock.exchanges) {
      const key = marketKey(exchange, shock.symbol);
      const list = byMarket.get(key);
      if (list) list.push(shock);
      else byMarket.set(key, [shock]);
    }
  }
  return byMarket;
}

/** Headline shocks are drawn for the news desk in blocks of this many minutes, each block once per run. */
const NEWS_SHOCK_BLOCK_MINUTES = 240;

/**
 * The world as the news desk reads it at `nowMs`: listing calendars and headline shocks shared
 * by every read of the run, and any market over minutes [fromMinute, toMinute) exactly as
 * koreaWorld with `now` at toMinute shows it (the same candles and last price), simulated over
 * that span alone. `macro` must reach the day after every toMinute read.
 */
function newsWorld(seed: number, macro: MacroHistory, nowMs: number): NewsWorld {
  const dynamics = new Map<string, TokenDynamics>();
  const walks = dailyWalks(seed, macro.lastDay);
  const calendars: { fromMs: number; toMs: number; calendar: ListingCalendar }[] = [];
  const calendar = (fromMs: number, toMs: number): ListingCalendar => {
    const known = calendars.find((c) => c.fromMs <= fromMs && toMs <= c.toMs);
    if (known) return known.calendar;
    // One calendar usually serves the whole run: three days of news, what they report from before and announce after.
    const span = { fromMs: Math.min(fromMs, nowMs - 4 * DAY_MS), toMs: Math.max(toMs, nowMs + 1.5 * DAY_MS) };
    const built = new ListingCalendar(seed, span.fromMs, span.toMs);
    calendars.push({ ...span, calendar: built });
    return built;
  };
  const headlineBlocks = new Map<number, MarketShock[]>();
  const headlineShocks = (fromMinute: number, toMinute: number): MarketShock[] => {
    const shocks: MarketShock[] = [];
    for (let block = Math.floor(fromMinute / NEWS_SHOCK_BLOCK_MINUTES); block * NEWS_SHOCK_BLOCK_MINUTES < toMinute; block++) {
      let list = headlineBlocks.get(block);
      if (!list) {
        const [from, to] = [block * NEWS_SHOCK_BLOCK_MINUTES, (block + 1) * NEWS_SHOCK_BLOCK_MINUTES];
        list = marketShocks(seed, from, to, calendar(msOfMinute(from), msOfMinute(to)));
        headlineBlocks.set(block, list);
      }
      for (const shock of list) if (shock.minute >= fromMinute && shock.minute < toMinute) shocks.push(shock);
    }
    return shocks;
  };
  const market = (exchange: KoreaExchange, symbol: string, fromMinute: number, toMinute: number): MarketView | null => {
    const token = KOREA_TOKEN_BY_SYMBOL.get(symbol);
    if (!token || !(fromMinute < toMinute)) return null;
    // Only a token that can shock needs the shocks drawn (BTC and the stablecoins never do).
    const shocking = canShock(token);
    const listings = calendar(msOfMinute(shocking ? fromMinute - MAX_SHOCK_DECAY_MINUTES : toMinute), msOfMinute(toMinute));
    const listing = listings.listing(exchange, token, msOfMinute(toMinute));
    if (!listing.listed) return null;
    let character = dynamics.get(symbol);
    if (!character) {
      character = tokenDynamics(seed, token);
      dynamics.set(symbol, character);
    }
    const shocks = shocking
      ? mergeShocks(
          headlineShocks(fromMinute - MAX_SHOCK_DECAY_MINUTES, toMinute),
          minuteMoves(seed, fromMinute - MINUTE_MOVE_MAX_DECAY_MINUTES, toMinute, listings, [exchange]),
        ).filter((s) => s.symbol === symbol)
      : [];
    const n = toMinute - fromMinute + 1;
    const w: WorldWindow = {
      seed,
      now: new Date(msOfMinute(toMinute)),
      mNow: toMinute,
      m0: fromMinute,
      candleMinutes: toMinute - fromMinute,
      macro,
      logFx: logFxWindow(macro, fromMinute, toMinute),
      premiums: premiumBackdrop(macro, fromMinute, toMinute),
      global: new GlobalPriceWindow(seed, fromMinute, toMinute, walks),
      shocksByMarket: shocksByMarketOf(shocks),
      scratch: { premium: new Float64Array(n), noise: emptyMinuteNoise(n), jumps: new Float64Array(n), price: new Float64Array(n) },
    };
    const rows = simulateMarket(w, exchange, { token, listedSince: listing.listedSince }, character);
    const logUsd = w.global.logUsd(token, character);
    return {
      candles: rows.candles.map((c) => ({
        minute: minuteIndexOf((c[2] as Date).getTime()),
        openKrw: c[3] as number,
        closeKrw: c[6] as number,
        volumeKrw: c[8] as number,
      })),
      priceKrw: rows.ticker[2] as number,
      globalUsd: token.globalVenue === null ? null : roundUsd(Math.exp(logUsd[logUsd.length - 1]!)),
      usdKrw: round2(Math.exp(w.logFx[w.logFx.length - 1]!)),
    };
  };
  return { calendar, headlineShocks, market };
}

/**
 * The articles behind `news_articles` at `opts.now` (published by then, last three KST days), with
 * what each reports of the world in `mentions`: the demo's own truth for tests, never in a row.
 */
export function koreaNews(opts: WorldOptions): NewsArticle[] {
  const { seed, nowMs } = checkOptions(opts);
  const macro = macroHistory(seed, Math.floor(minuteIndexOf(nowMs) / MINUTES_PER_DAY) + 1);
  return recentArticles(seed, nowMs, macro, newsWorld(seed, macro, nowMs));
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

  const shocks = shocksAffecting(seed, m0, mNow, calendar);
  const shocksByMarket = shocksByMarketOf(shocks);

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

  // Coinone and Korbit quote part of what Upbit or Bithumb list (prices only: no market list, flags or candles).
  for (const exchange of KOREA_PRICE_ONLY_EXCHANGES) {
    const seen = new Set<string>();
    for (const lead of KOREA_EXCHANGES) {
      for (const listing of listings.markets[lead]) {
        const { token } = listing;
        if (seen.has(token.symbol) || !pricedOn(exchange, token)) continue;
        seen.add(token.symbol);
        krTickers.push(simulateMarket(w, exchange, listing, dynamics.get(token.symbol)!, lead).ticker);
      }
    }
  }

  const globalPrices: Row[] = [];
  const today = dayIndexOf(nowMs);
  for (const token of KOREA_TOKENS) {
    if (token.globalVenue === null || !listedAnywhere.has(token.symbol)) continue;
    const logUsd = w.global.logUsd(token, dynamics.get(token.symbol)!);
    const usd = Math.exp(logUsd[logUsd.length - 1]!);
    const volume = globalDailyVolumeUsd(seed, token, today);
    globalPrices.push([token.symbol, roundUsd(usd), Math.round(volume), token.globalVenue, now, SOURCE]);
    // OKX also quotes Binance's tokens, a few basis points away, with about a quarter of the volume.
    if (token.globalVenue === 'binance') {
      const rng = Rng.stream(seed, `korea:okx:${token.symbol}:${mNow}`);
      globalPrices.push([token.symbol, roundUsd(usd * (1 + 0.0004 * gaussian(rng))), Math.round(volume * 0.25), 'okx', now, SOURCE]);
    }
  }

  const fxRates: Row[] = [['USDKRW', round2(Math.exp(w.logFx[w.logFx.length - 1]!)), 'demo', now, SOURCE]];

  // Books of the most traded symbols with a Binance market, on every venue quoting them; wallets
  // where the exchanges publish them without a key.
  const orderBooks: Row[] = [];
  const walletStatus: Row[] = [];
  const koreanVolume = new Map<string, number>();
  for (const t of krTickers) koreanVolume.set(String(t[1]), (koreanVolume.get(String(t[1])) ?? 0) + Number(t[8]));
  const binance = new Map(globalPrices.filter((g) => g[3] === 'binance').map((g) => [String(g[0]), g]));
  const bookSymbols = [...koreanVolume]
    .filter(([symbol]) => binance.has(symbol) && !KOREA_TOKEN_BY_SYMBOL.get(symbol)?.stablecoin)
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .slice(0, DEMO_BOOK_SYMBOLS)
    .map(([symbol]) => symbol);
  for (const symbol of bookSymbols) {
    const g = binance.get(symbol)!;
    orderBooks.push(
      ...demoBookRows(seed, mNow, { exchange: 'binance', symbol, price: Number(g[1]), volume: Number(g[2]), quote: 'USDT' }, now),
    );
    for (const t of krTickers.filter((r) => r[1] === symbol)) {
      const exchange = String(t[0]);
      orderBooks.push(...demoBookRows(seed, mNow, { exchange, symbol, price: Number(t[2]), volume: Number(t[8]), quote: 'KRW' }, now));
      if (exchange !== 'upbit') walletStatus.push(demoWalletRow(seed, today, exchange, symbol, Number(g[1]), now));
    }
  }

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

  const newsArticles: Row[] = recentArticles(seed, nowMs, macro, newsWorld(seed, macro, nowMs)).map((a) => [
    a.articleId,
    a.topic,
    a.publishedAt,
    a.url,
    a.url, // demo URLs are already canonical
    a.articleId, // demo titles repeat across days (daily market reports): the id keeps them apart
    a.sourceKr,
    a.sourceEn,
    a.titleKr,
    a.bodyKr,
    a.titleEn,
    a.bodyEn,
    'demo',
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
    order_books: orderBooks,
    wallet_status: walletStatus,
  };
}
