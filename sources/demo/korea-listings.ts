/**
 * Listing calendar of the korea demo world. Around each token's home listing, episodes on a fixed
 * calendar (event k of a kind starts in the k-th period after the epoch, details seeded by
 * (seed, exchange, kind, k)) delist a home token for a while or list a token from elsewhere, and
 * investment warnings (Upbit 유의 종목 / Bithumb 투자유의) precede every delisting or clear again.
 * No state is carried from event to event, so the listings at any instant cost a few dozen draws.
 */

import { Rng } from './random.ts';
import { DAY_MS, WORLD_EPOCH_MS } from './korea-calendar.ts';
import { KOREA_EXCHANGES, KOREA_TOKENS, type KoreaExchange, type KoreaToken } from './korea-tokens.ts';

export interface MarketListing {
  token: KoreaToken;
  /** When the market (re)opened, ms; -Infinity when it has been listed since before the calendar. */
  listedSince: number;
}

export interface ListingSnapshot {
  /** Listed markets per exchange, in token-table order. */
  markets: Record<KoreaExchange, MarketListing[]>;
  /** Symbols under investment warning per exchange, in token-table order. */
  warnings: Record<KoreaExchange, string[]>;
}

interface Episode {
  symbol: string;
  start: number;
  end: number;
  /** Warning window before the delisting moment of this episode. */
  warningFrom: number;
  warningTo: number;
}

// Two delist/list episodes per 10 days, each opening and closing a market: a change every ~2.5 days.
const EPISODE_PERIOD_MS = 10 * DAY_MS;
const EPISODE_MIN_MS = 50 * DAY_MS;
const EPISODE_MAX_MS = 150 * DAY_MS;
const WARNING_LEAD_MIN_MS = 7 * DAY_MS;
const WARNING_LEAD_MAX_MS = 28 * DAY_MS;
// Warnings that are lifted without a delisting.
const LIFTED_WARNING_PERIOD_MS = 4 * DAY_MS;
const LIFTED_WARNING_MIN_MS = 7 * DAY_MS;
const LIFTED_WARNING_MAX_MS = 35 * DAY_MS;

function delistingPool(exchange: KoreaExchange): readonly KoreaToken[] {
  return KOREA_TOKENS.filter((t) => !t.core && t.exchanges.includes(exchange));
}

function listingPool(exchange: KoreaExchange): readonly KoreaToken[] {
  return KOREA_TOKENS.filter((t) => !t.stablecoin && !t.exchanges.includes(exchange));
}

const DELISTING_POOL: Record<KoreaExchange, readonly KoreaToken[]> = {
  upbit: delistingPool('upbit'),
  bithumb: delistingPool('bithumb'),
};
const LISTING_POOL: Record<KoreaExchange, readonly KoreaToken[]> = {
  upbit: listingPool('upbit'),
  bithumb: listingPool('bithumb'),
};
// Exchanges mostly list what already trades on the other Korean exchange.
const LISTING_WEIGHTS: Record<KoreaExchange, readonly number[]> = {
  upbit: LISTING_POOL.upbit.map((t) => (t.exchanges.length > 0 ? 3 : 1)),
  bithumb: LISTING_POOL.bithumb.map((t) => (t.exchanges.length > 0 ? 3 : 1)),
};

function episodeIndexRange(fromMs: number, toMs: number, period: number, lookBack: number, lookAhead: number): [number, number] {
  const first = Math.floor((fromMs - lookBack - WORLD_EPOCH_MS) / period) - 1;
  return [Math.max(0, first), Math.floor((toMs + lookAhead - WORLD_EPOCH_MS) / period) + 1];
}

function roundToMinute(ms: number): number {
  return Math.round(ms / 60_000) * 60_000;
}

/** Home tokens taken off an exchange for a while: closed during [start, end), warned before start. */
function delistingEpisodes(seed: number, exchange: KoreaExchange, fromMs: number, toMs: number): Episode[] {
  const [first, last] = episodeIndexRange(fromMs, toMs, EPISODE_PERIOD_MS, EPISODE_MAX_MS, WARNING_LEAD_MAX_MS);
  const episodes: Episode[] = [];
  for (let k = first; k <= last; k++) {
    const rng = Rng.stream(seed, `korea:delisting:${exchange}:${k}`);
    const start = WORLD_EPOCH_MS + (k + rng.next()) * EPISODE_PERIOD_MS;
    const token = rng.pick(DELISTING_POOL[exchange]);
    const end = start + rng.uniform(EPISODE_MIN_MS, EPISODE_MAX_MS);
    const lead = rng.uniform(WARNING_LEAD_MIN_MS, WARNING_LEAD_MAX_MS);
    episodes.push({ symbol: token.symbol, start: roundToMinute(start), end: roundToMinute(end), warningFrom: roundToMinute(start - lead), warningTo: roundToMinute(start) });
  }
  return episodes;
}

/** Tokens from elsewhere listed for a while: open during [start, end), warned before end. */
function listingEpisodes(seed: number, exchange: KoreaExchange, fromMs: number, toMs: number): Episode[] {
  const [first, last] = episodeIndexRange(fromMs, toMs, EPISODE_PERIOD_MS, EPISODE_MAX_MS, 0);
  const episodes: Episode[] = [];
  for (let k = first; k <= last; k++) {
    const rng = Rng.stream(seed, `korea:listing:${exchange}:${k}`);
    const start = WORLD_EPOCH_MS + (k + rng.next()) * EPISODE_PERIOD_MS;
    const token = rng.weighted(LISTING_POOL[exchange], LISTING_WEIGHTS[exchange]);
    const end = start + rng.uniform(EPISODE_MIN_MS, EPISODE_MAX_MS);
    const lead = rng.uniform(WARNING_LEAD_MIN_MS, WARNING_LEAD_MAX_MS);
    episodes.push({ symbol: token.symbol, start: roundToMinute(start), end: roundToMinute(end), warningFrom: roundToMinute(end - lead), warningTo: roundToMinute(end) });
  }
  return episodes;
}

/** Warnings designated and lifted again without a delisting. */
function liftedWarnings(seed: number, exchange: KoreaExchange, fromMs: number, toMs: number): Episode[] {
  const [first, last] = episodeIndexRange(fromMs, toMs, LIFTED_WARNING_PERIOD_MS, LIFTED_WARNING_MAX_MS, 0);
  const episodes: Episode[] = [];
  for (let k = first; k <= last; k++) {
    const rng = Rng.stream(seed, `korea:warning:${exchange}:${k}`);
    const start = WORLD_EPOCH_MS + (k + rng.next()) * LIFTED_WARNING_PERIOD_MS;
    const token = rng.pick(DELISTING_POOL[exchange]);
    const end = start + rng.uniform(LIFTED_WARNING_MIN_MS, LIFTED_WARNING_MAX_MS);
    episodes.push({ symbol: token.symbol, start: roundToMinute(start), end: roundToMinute(end), warningFrom: roundToMinute(start), warningTo: roundToMinute(end) });
  }
  return episodes;
}

const within = (t: number, from: number, to: number): boolean => from <= t && t < to;

interface ExchangeEpisodes {
  delistings: Episode[];
  listings: Episode[];
  lifted: Episode[];
}

/**
 * The listing episodes that matter for instants in [fromMs, toMs]; answers "is this market open
 * at t" for any t in that span, the same way whatever span it was built for.
 */
export class ListingCalendar {
  private readonly episodes: Record<KoreaExchange, ExchangeEpisodes>;

  constructor(seed: number, fromMs: number, toMs: number) {
    const build = (exchange: KoreaExchange): ExchangeEpisodes => ({
      delistings: delistingEpisodes(seed, exchange, fromMs, toMs),
      listings: listingEpisodes(seed, exchange, fromMs, toMs),
      lifted: liftedWarnings(seed, exchange, fromMs, toMs),
    });
    this.episodes = { upbit: build('upbit'), bithumb: build('bithumb') };
  }

  /** Whether the market is open at `atMs`, and since when (-Infinity: since before the calendar). */
  listing(exchange: KoreaExchange, token: KoreaToken, atMs: number): { listed: boolean; listedSince: number } {
    const { delistings, listings } = this.episodes[exchange];
    if (token.exchanges.includes(exchange)) {
      let listed = true;
      let listedSince = -Infinity;
      for (const e of delistings) {
        if (e.symbol !== token.symbol) continue;
        if (within(atMs, e.start, e.end)) listed = false;
        else if (e.end <= atMs) listedSince = Math.max(listedSince, e.end);
      }
      return { listed, listedSince };
    }
    let listedSince = Infinity;
    for (const e of listings) {
      if (e.symbol === token.symbol && within(atMs, e.start, e.end)) listedSince = Math.min(listedSince, e.start);
    }
    return { listed: listedSince !== Infinity, listedSince };
  }

  isListed(exchange: KoreaExchange, token: KoreaToken, atMs: number): boolean {
    return this.listing(exchange, token, atMs).listed;
  }

  /** Markets and investment warnings of both exchanges at `atMs`. */
  snapshot(atMs: number): ListingSnapshot {
    const snapshot: ListingSnapshot = { markets: { upbit: [], bithumb: [] }, warnings: { upbit: [], bithumb: [] } };
    for (const exchange of KOREA_EXCHANGES) {
      const { delistings, listings, lifted } = this.episodes[exchange];
      const warnings = [...delistings, ...listings, ...lifted].filter((e) => within(atMs, e.warningFrom, e.warningTo));
      for (const token of KOREA_TOKENS) {
        const { listed, listedSince } = this.listing(exchange, token, atMs);
        if (!listed) continue;
        snapshot.markets[exchange].push({ token, listedSince });
        if (!token.core && warnings.some((e) => e.symbol === token.symbol)) snapshot.warnings[exchange].push(token.symbol);
      }
    }
    return snapshot;
  }
}

/** Markets and investment warnings of both exchanges at `atMs`. */
export function listingsAt(seed: number, atMs: number): ListingSnapshot {
  return new ListingCalendar(seed, atMs, atMs).snapshot(atMs);
}
