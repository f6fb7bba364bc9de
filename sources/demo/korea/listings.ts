/**
 * Listing calendar of the korea demo world, in two layers of episodes around each token's home
 * listing. Long episodes (event k of a kind starts in the k-th 10-day period, lasts 50 to 150
 * days) delist a home token for a while or list a token from elsewhere. Short episodes keep the
 * market lists moving while a demo runs, as the listing alerts need changes between runs minutes
 * apart: one starts in the first half of every 10-minute slot and one ends in the second half
 * (a seeded shuffle within blocks of slots pairs each end with an earlier start), so some market
 * opens or closes at least every 9 minutes, and a short episode lasts 70 minutes to 5 hours.
 * Investment warnings (Upbit 유의 종목 / Bithumb 투자유의) precede every delisting, and some are
 * designated and lifted without one. The layers draw from disjoint halves of the tokens and a short
 * sequence walks its pool in a seeded rotation, so episodes never overlap on one market and every
 * start and end is a real change. No state is carried from event to event: the listings at any
 * instant cost a few hundred draws.
 */

import { Rng } from '../random.ts';
import { DAY_MS, MINUTE_MS, WORLD_EPOCH_MS } from './calendar.ts';
import { KOREA_EXCHANGES, KOREA_TOKENS, KOREA_TOKEN_BY_SYMBOL, type KoreaExchange, type KoreaToken } from './tokens.ts';

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

/** A market opening or closing, as the exchange's market list shows it. */
export interface ListingChange {
  exchange: KoreaExchange;
  token: KoreaToken;
  change: 'new_listing' | 'delisting';
  /** A home token coming back after a delisting (재상장), rather than a token new to the exchange. */
  relisting: boolean;
  atMs: number;
  /** When the investment warning before a delisting was designated; null for listings. */
  warnedFromMs: number | null;
}

/** An investment warning episode: designated at fromMs, over at toMs by a delisting or by being lifted. */
export interface WarningEpisode {
  exchange: KoreaExchange;
  token: KoreaToken;
  fromMs: number;
  toMs: number;
  outcome: 'delisting' | 'lifted';
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

// Short episodes: slot i starts episode i; its end lies in slot SHORT_BLOCK * b + SHORT_BASE_SLOTS + shuffle_b(r)
// (b, r = block and rank of i), so every slot also holds exactly one end, 7 to 29 slots after the start.
const SHORT_SLOT_MS = 10 * MINUTE_MS;
const SHORT_BLOCK = 12;
const SHORT_BASE_SLOTS = 18;
const SHORT_MAX_MS = (SHORT_BASE_SLOTS + SHORT_BLOCK) * SHORT_SLOT_MS;
const SHORT_WARNING_MIN_MS = 30 * MINUTE_MS;
const SHORT_WARNING_MAX_MS = 120 * MINUTE_MS;
// Slot i's episode by i mod 4: each (exchange, kind) sequence gets one every 40 minutes.
const SHORT_KINDS: readonly (readonly [KoreaExchange, 'listing' | 'delisting'])[] = [
  ['upbit', 'listing'],
  ['bithumb', 'delisting'],
  ['bithumb', 'listing'],
  ['upbit', 'delisting'],
];

/** The half of the tokens each layer draws from: long episodes the even table ranks, short ones the odd. */
const inLayer = (token: KoreaToken, layer: 'long' | 'short'): boolean => (token.popularity % 2 === 1) === (layer === 'short');

function delistingPool(exchange: KoreaExchange, layer: 'long' | 'short'): readonly KoreaToken[] {
  return KOREA_TOKENS.filter((t) => !t.core && t.exchanges.includes(exchange) && inLayer(t, layer));
}

function listingPool(exchange: KoreaExchange, layer: 'long' | 'short'): readonly KoreaToken[] {
  return KOREA_TOKENS.filter((t) => !t.stablecoin && !t.exchanges.includes(exchange) && inLayer(t, layer));
}

const DELISTING_POOL: Record<KoreaExchange, readonly KoreaToken[]> = {
  upbit: delistingPool('upbit', 'long'),
  bithumb: delistingPool('bithumb', 'long'),
};
const LISTING_POOL: Record<KoreaExchange, readonly KoreaToken[]> = {
  upbit: listingPool('upbit', 'long'),
  bithumb: listingPool('bithumb', 'long'),
};
// Exchanges mostly list what already trades on the other Korean exchange.
const LISTING_WEIGHTS: Record<KoreaExchange, readonly number[]> = {
  upbit: LISTING_POOL.upbit.map((t) => (t.exchanges.length > 0 ? 3 : 1)),
  bithumb: LISTING_POOL.bithumb.map((t) => (t.exchanges.length > 0 ? 3 : 1)),
};
// Any token an exchange may delist can be warned and cleared again.
const WARNING_POOL: Record<KoreaExchange, readonly KoreaToken[]> = {
  upbit: KOREA_TOKENS.filter((t) => !t.core && t.exchanges.includes('upbit')),
  bithumb: KOREA_TOKENS.filter((t) => !t.core && t.exchanges.includes('bithumb')),
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
    episodes.push({
      symbol: token.symbol,
      start: roundToMinute(start),
      end: roundToMinute(end),
      warningFrom: roundToMinute(start - lead),
      warningTo: roundToMinute(start),
    });
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
    episodes.push({
      symbol: token.symbol,
      start: roundToMinute(start),
      end: roundToMinute(end),
      warningFrom: roundToMinute(end - lead),
      warningTo: roundToMinute(end),
    });
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
    const token = rng.pick(WARNING_POOL[exchange]);
    const end = start + rng.uniform(LIFTED_WARNING_MIN_MS, LIFTED_WARNING_MAX_MS);
    episodes.push({
      symbol: token.symbol,
      start: roundToMinute(start),
      end: roundToMinute(end),
      warningFrom: roundToMinute(start),
      warningTo: roundToMinute(end),
    });
  }
  return episodes;
}

/**
 * One (exchange, kind) sequence of short episodes walks its half of the pool with a seeded offset
 * and a stride prime to the pool size: episodes 1 to pool size - 1 apart never share a token, and
 * episodes of one sequence are 40 minutes apart while one lasts 5 hours at most.
 */
interface Rotation {
  pool: readonly KoreaToken[];
  offset: number;
  stride: number;
}

function gcd(a: number, b: number): number {
  return b === 0 ? a : gcd(b, a % b);
}

function rotation(seed: number, exchange: KoreaExchange, kind: 'listing' | 'delisting'): Rotation {
  const pool = kind === 'listing' ? listingPool(exchange, 'short') : delistingPool(exchange, 'short');
  const rng = Rng.stream(seed, `korea:short-listing:${exchange}:${kind}`);
  const strides = Array.from({ length: pool.length }, (_, k) => k).filter(
    (k) => k > pool.length / 4 && k < (3 * pool.length) / 4 && gcd(k, pool.length) === 1,
  );
  return { pool, offset: rng.int(0, pool.length - 1), stride: rng.pick(strides) };
}

/** Slot index of the end of short episode i (see SHORT_BLOCK). */
function shortEndSlot(i: number, shuffles: Map<number, number[]>, seed: number): number {
  const block = Math.floor(i / SHORT_BLOCK);
  let shuffle = shuffles.get(block);
  if (!shuffle) {
    shuffle = Rng.stream(seed, `korea:short-listing:block:${block}`).shuffle(Array.from({ length: SHORT_BLOCK }, (_, k) => k));
    shuffles.set(block, shuffle);
  }
  return block * SHORT_BLOCK + SHORT_BASE_SLOTS + shuffle[i - block * SHORT_BLOCK]!;
}

/** Short episodes of both exchanges that matter for instants in [fromMs, toMs], by exchange. */
function shortEpisodes(seed: number, fromMs: number, toMs: number): Record<KoreaExchange, ExchangeEpisodes> {
  const out: Record<KoreaExchange, ExchangeEpisodes> = {
    upbit: { delistings: [], listings: [], lifted: [] },
    bithumb: { delistings: [], listings: [], lifted: [] },
  };
  const rotations = new Map<string, Rotation>();
  const shuffles = new Map<number, number[]>();
  const first = Math.max(0, Math.floor((fromMs - SHORT_MAX_MS - WORLD_EPOCH_MS) / SHORT_SLOT_MS) - 1);
  const last = Math.floor((toMs + SHORT_WARNING_MAX_MS - WORLD_EPOCH_MS) / SHORT_SLOT_MS) + 1;
  for (let i = first; i <= last; i++) {
    const [exchange, kind] = SHORT_KINDS[i % SHORT_KINDS.length]!;
    const key = `${exchange}:${kind}`;
    let turn = rotations.get(key);
    if (!turn) {
      turn = rotation(seed, exchange, kind);
      rotations.set(key, turn);
    }
    const n = Math.floor(i / SHORT_KINDS.length);
    const token = turn.pool[(turn.offset + n * turn.stride) % turn.pool.length]!;
    const rng = Rng.stream(seed, `korea:short-listing:${i}`);
    const start = WORLD_EPOCH_MS + i * SHORT_SLOT_MS + rng.int(0, 4) * MINUTE_MS;
    const end = WORLD_EPOCH_MS + shortEndSlot(i, shuffles, seed) * SHORT_SLOT_MS + rng.int(5, 9) * MINUTE_MS;
    const lead = roundToMinute(rng.uniform(SHORT_WARNING_MIN_MS, SHORT_WARNING_MAX_MS));
    if (kind === 'delisting') {
      out[exchange].delistings.push({ symbol: token.symbol, start, end, warningFrom: start - lead, warningTo: start });
    } else {
      // A market listed for a few hours is warned over its last hour or so, at most its second half.
      const warned = Math.min(lead, roundToMinute((end - start) / 2));
      out[exchange].listings.push({ symbol: token.symbol, start, end, warningFrom: end - warned, warningTo: end });
    }
  }
  return out;
}

const within = (t: number, from: number, to: number): boolean => from <= t && t < to;

interface ExchangeEpisodes {
  delistings: Episode[];
  listings: Episode[];
  lifted: Episode[];
}

function bySymbol(episodes: readonly Episode[]): Map<string, Episode[]> {
  const index = new Map<string, Episode[]>();
  for (const e of episodes) {
    const list = index.get(e.symbol);
    if (list) list.push(e);
    else index.set(e.symbol, [e]);
  }
  return index;
}

const NO_EPISODES: readonly Episode[] = [];

/**
 * The listing episodes that matter for instants in [fromMs, toMs]; answers "is this market open
 * at t" for any t in that span, the same way whatever span it was built for.
 */
export class ListingCalendar {
  private readonly episodes: Record<KoreaExchange, ExchangeEpisodes>;
  private readonly delistingsOf: Record<KoreaExchange, Map<string, Episode[]>>;
  private readonly listingsOf: Record<KoreaExchange, Map<string, Episode[]>>;
  private readonly warningsOf: Record<KoreaExchange, Map<string, Episode[]>>;

  constructor(seed: number, fromMs: number, toMs: number) {
    const short = shortEpisodes(seed, fromMs, toMs);
    const build = (exchange: KoreaExchange): ExchangeEpisodes => ({
      delistings: [...delistingEpisodes(seed, exchange, fromMs, toMs), ...short[exchange].delistings],
      listings: [...listingEpisodes(seed, exchange, fromMs, toMs), ...short[exchange].listings],
      lifted: liftedWarnings(seed, exchange, fromMs, toMs),
    });
    this.episodes = { upbit: build('upbit'), bithumb: build('bithumb') };
    this.delistingsOf = { upbit: bySymbol(this.episodes.upbit.delistings), bithumb: bySymbol(this.episodes.bithumb.delistings) };
    this.listingsOf = { upbit: bySymbol(this.episodes.upbit.listings), bithumb: bySymbol(this.episodes.bithumb.listings) };
    const warnings = ({ delistings, listings, lifted }: ExchangeEpisodes): Map<string, Episode[]> =>
      bySymbol([...delistings, ...listings, ...lifted]);
    this.warningsOf = { upbit: warnings(this.episodes.upbit), bithumb: warnings(this.episodes.bithumb) };
  }

  /** Whether the market is open at `atMs`, and since when (-Infinity: since before the calendar). */
  listing(exchange: KoreaExchange, token: KoreaToken, atMs: number): { listed: boolean; listedSince: number } {
    if (token.exchanges.includes(exchange)) {
      let listed = true;
      let listedSince = -Infinity;
      for (const e of this.delistingsOf[exchange].get(token.symbol) ?? NO_EPISODES) {
        if (within(atMs, e.start, e.end)) listed = false;
        else if (e.end <= atMs) listedSince = Math.max(listedSince, e.end);
      }
      return { listed, listedSince };
    }
    let listedSince = Infinity;
    for (const e of this.listingsOf[exchange].get(token.symbol) ?? NO_EPISODES) {
      if (within(atMs, e.start, e.end)) listedSince = Math.min(listedSince, e.start);
    }
    return { listed: listedSince !== Infinity, listedSince };
  }

  /** Same answer as listing(...).listed, without building the answer (the shock draws ask it thousands of times a run). */
  isListed(exchange: KoreaExchange, token: KoreaToken, atMs: number): boolean {
    if (token.exchanges.includes(exchange)) {
      for (const e of this.delistingsOf[exchange].get(token.symbol) ?? NO_EPISODES) if (within(atMs, e.start, e.end)) return false;
      return true;
    }
    for (const e of this.listingsOf[exchange].get(token.symbol) ?? NO_EPISODES) if (within(atMs, e.start, e.end)) return true;
    return false;
  }

  /** Whether a listed market is under investment warning at `atMs`. */
  isWarned(exchange: KoreaExchange, token: KoreaToken, atMs: number): boolean {
    if (token.core || !this.isListed(exchange, token, atMs)) return false;
    return (this.warningsOf[exchange].get(token.symbol) ?? NO_EPISODES).some((e) => within(atMs, e.warningFrom, e.warningTo));
  }

  /** Markets and investment warnings of both exchanges at `atMs`. */
  snapshot(atMs: number): ListingSnapshot {
    const snapshot: ListingSnapshot = { markets: { upbit: [], bithumb: [] }, warnings: { upbit: [], bithumb: [] } };
    for (const exchange of KOREA_EXCHANGES) {
      const { delistings, listings, lifted } = this.episodes[exchange];
      const warned = new Set<string>();
      for (const list of [delistings, listings, lifted]) {
        for (const e of list) if (within(atMs, e.warningFrom, e.warningTo)) warned.add(e.symbol);
      }
      for (const token of KOREA_TOKENS) {
        const { listed, listedSince } = this.listing(exchange, token, atMs);
        if (!listed) continue;
        snapshot.markets[exchange].push({ token, listedSince });
        if (!token.core && warned.has(token.symbol)) snapshot.warnings[exchange].push(token.symbol);
      }
    }
    return snapshot;
  }

  /**
   * Markets that opened or closed in [fromMs, toMs), in time order (exchange, then token order
   * within a minute). Only real changes: the market list just before differs from the one at the time.
   */
  changesBetween(fromMs: number, toMs: number): ListingChange[] {
    const changes: ListingChange[] = [];
    const order = new Map(KOREA_TOKENS.map((t, i) => [t.symbol, i]));
    for (const exchange of KOREA_EXCHANGES) {
      const { delistings, listings } = this.episodes[exchange];
      const candidates: Omit<ListingChange, 'exchange'>[] = [];
      for (const e of delistings) {
        const token = KOREA_TOKEN_BY_SYMBOL.get(e.symbol)!;
        candidates.push({ token, change: 'delisting', relisting: false, atMs: e.start, warnedFromMs: e.warningFrom });
        candidates.push({ token, change: 'new_listing', relisting: true, atMs: e.end, warnedFromMs: null });
      }
      for (const e of listings) {
        const token = KOREA_TOKEN_BY_SYMBOL.get(e.symbol)!;
        candidates.push({ token, change: 'new_listing', relisting: false, atMs: e.start, warnedFromMs: null });
        candidates.push({ token, change: 'delisting', relisting: false, atMs: e.end, warnedFromMs: e.warningFrom });
      }
      for (const c of candidates) {
        if (!within(c.atMs, fromMs, toMs)) continue;
        const before = this.isListed(exchange, c.token, c.atMs - 1);
        const after = this.isListed(exchange, c.token, c.atMs);
        if (before !== after && after === (c.change === 'new_listing')) changes.push({ exchange, ...c });
      }
    }
    return changes.sort(
      (a, b) =>
        a.atMs - b.atMs ||
        KOREA_EXCHANGES.indexOf(a.exchange) - KOREA_EXCHANGES.indexOf(b.exchange) ||
        order.get(a.token.symbol)! - order.get(b.token.symbol)!,
    );
  }

  /**
   * Investment warnings designated or ended in [fromMs, toMs), in order of designation. Only
   * warnings that show: on a listed market not already under warning when designated.
   */
  warningsBetween(fromMs: number, toMs: number): WarningEpisode[] {
    const warnings: WarningEpisode[] = [];
    for (const exchange of KOREA_EXCHANGES) {
      const { delistings, listings, lifted } = this.episodes[exchange];
      const all: [Episode, WarningEpisode['outcome']][] = [
        ...delistings.map((e) => [e, 'delisting'] as [Episode, WarningEpisode['outcome']]),
        ...listings.map((e) => [e, 'delisting'] as [Episode, WarningEpisode['outcome']]),
        ...lifted.map((e) => [e, 'lifted'] as [Episode, WarningEpisode['outcome']]),
      ];
      for (const [e, outcome] of all) {
        if (!within(e.warningFrom, fromMs, toMs) && !within(e.warningTo, fromMs, toMs)) continue;
        const token = KOREA_TOKEN_BY_SYMBOL.get(e.symbol)!;
        if (token.core || !this.isListed(exchange, token, e.warningFrom) || this.isWarned(exchange, token, e.warningFrom - 1)) continue;
        // A lifted warning shows as lifted only if nothing else keeps the token warned.
        if (outcome === 'lifted' && (!this.isListed(exchange, token, e.warningTo) || this.isWarned(exchange, token, e.warningTo))) continue;
        warnings.push({ exchange, token, fromMs: e.warningFrom, toMs: e.warningTo, outcome });
      }
    }
    return warnings.sort((a, b) => a.fromMs - b.fromMs || KOREA_EXCHANGES.indexOf(a.exchange) - KOREA_EXCHANGES.indexOf(b.exchange));
  }
}

/** Markets and investment warnings of both exchanges at `atMs`. */
export function listingsAt(seed: number, atMs: number): ListingSnapshot {
  return new ListingCalendar(seed, atMs, atMs).snapshot(atMs);
}
