/**
 * Honest buyer populations of the demo x402 world (docs/wash-methodology.md §11.8): organic users, AI
 * agents, analytics bots, third-party developers and verifiers. The planted patterns reuse the
 * same builders for their honest look-alikes (hard negatives) so both sides behave alike.
 */
import type { AnalyticsChain } from '../../../catalog/categories.ts';
import { Rng } from '../random.ts';
import { addressFamily, newAddress, pickAgentPlatform, pickExchange, type AddressFamily } from './addresses.ts';
import { DAY, HISTORY_DAYS, HOUR, MINUTE, growthTime, pickChain, round6, type Service, upperBound } from './catalog.ts';
import { type BuyerPlan, clamp, type Difficulty, LegSet, type PlanContext, pickTimezone, retailAmount, type Timing } from './plans.ts';
import { FEED_CATEGORIES } from './vocabulary.ts';

/** Number of groups or wallets at a scale, never zero so every pattern exists in a small world. */
export function scaled(base: number, scale: number): number {
  return Math.max(1, Math.round(base * scale));
}

type SessionsTiming = Extract<Timing, { kind: 'sessions' }>;

export interface OrganicOptions {
  chain?: AnalyticsChain;
  start?: number;
  /** Payments to randomly chosen services (besides `forced`). */
  nTx?: number;
  /** Distinct sellers to choose at random (besides `forced`). */
  sellers?: number;
  /** Services the user certainly pays (they must be listed by `start`). */
  forced?: ReadonlyArray<{ service: number; count: number }>;
  pattern?: string;
  difficulty?: Difficulty;
  groupId?: string | null;
  /** false: the caller writes the wallet's funding. */
  fund?: boolean;
  timing?: Partial<Omit<SessionsTiming, 'kind'>>;
}

/**
 * An organic user: few payments (median 1-2, heavy tail), Zipf choice of popular services,
 * sessions separated by lognormal gaps, awake in its own time zone.
 */
export function planOrganic(ctx: PlanContext, rng: Rng, o: OrganicOptions = {}): BuyerPlan {
  const { catalog, pool, book, now } = ctx;
  const chain = o.chain ?? pickChain(rng);
  let start = o.start ?? growthTime(rng, now, 100);
  if (!o.forced && pool.available(chain, start) < 3) {
    start = Math.min(now - MINUTE, Math.max(start, pool.timeWithAtLeast(chain, 3) + rng.int(0, 3 * DAY)));
  }
  const n = o.nTx ?? clamp(Math.round(rng.logNormal(0.2, 1.25)), 1, 300);
  const sellersWanted = o.sellers ?? (n === 1 ? 1 : 1 + Math.min(n - 1, 11, Math.floor(rng.exponential(0.5 + 0.3 * Math.log(n)))));
  const legs = new LegSet(catalog);
  for (const f of o.forced ?? []) legs.add(f.service, f.count, 'organic_user');
  const randomLegs: number[] = [];
  for (let tries = 0; legs.sellerCount - (o.forced?.length ?? 0) < sellersWanted && tries < sellersWanted * 8; tries++) {
    let id = -1;
    if (randomLegs.length > 0 && rng.chance(0.3)) {
      // Another endpoint of a seller the user already likes.
      const seller = catalog.sellers[catalog.services[legs.legs[rng.pick(randomLegs)]!.service]!.seller]!;
      const candidate = rng.pick(seller.services);
      if (catalog.services[candidate]!.firstSeen <= start) id = candidate;
    } else {
      id = pool.sample(rng, chain, start);
    }
    if (id < 0) continue;
    const before = legs.legs.length;
    const leg = legs.add(id, 1, 'organic_user');
    if (leg >= 0 && legs.legs.length > before) randomLegs.push(leg);
  }
  if (legs.legs.length === 0) throw new Error(`x402 demo: no service for an organic user on ${chain}`);
  for (let extra = n - randomLegs.length; extra > 0 && randomLegs.length > 0; extra--) {
    legs.legs[randomLegs[rng.zipf(randomLegs.length, 1.2)]!]!.count++;
  }
  const plan = book.add({
    address: newAddress(rng, addressFamily(chain)),
    label: 'organic_user',
    pattern: o.pattern ?? 'organic',
    difficulty: o.difficulty ?? 'easy',
    groupId: o.groupId ?? null,
    start,
    legs: legs.legs,
    timing: {
      kind: 'sessions',
      end: now,
      sessionGapMedian: 1.5 * DAY,
      sessionGapSigma: 1.4,
      intraGapMedian: 40_000,
      intraGapSigma: 1.0,
      pNewSession: 0.45,
      fit: 'compress',
      tzHours: pickTimezone(rng),
      ...o.timing,
    },
  });
  if (o.fund !== false) {
    const family = addressFamily(chain);
    const funded = book.fundRetail(rng, plan.address, family, start, { exchange: 70, personal: 20, none: 10 });
    if (funded && legs.total > 25) addTopUps(ctx, rng, plan.address, family, start, rng.int(1, 3));
  }
  return plan;
}

/** Later deposits of a heavy user (after its first payment), mostly from exchanges. */
export function addTopUps(ctx: PlanContext, rng: Rng, address: string, family: AddressFamily, after: number, n: number): void {
  for (let i = 0; i < n; i++) {
    const time = after + Math.floor(rng.next() * (ctx.now - after));
    ctx.book.fund(address, rng.chance(0.8) ? pickExchange(rng, family) : newAddress(rng, family), retailAmount(rng), time);
  }
}

/**
 * An AI agent: 5-40 sellers across at least 4 categories, varied prices, irregular task sessions
 * (gap CV > 1) over at least a week. `heavy` agents reach >= 20 sellers and >= 500 payments.
 */
/** An agent's calls: sessions a couple of hours apart, calls seconds apart within one (fleet agents call the same way). */
export function agentSessions(end: number): Timing {
  return {
    kind: 'sessions',
    end,
    sessionGapMedian: 2 * HOUR,
    sessionGapSigma: 1.6,
    intraGapMedian: 5_000,
    intraGapSigma: 1.2,
    pNewSession: 0.3,
    fit: 'stretch',
    tzHours: null,
  };
}

export function planAgent(ctx: PlanContext, rng: Rng, heavy: boolean): BuyerPlan {
  const { catalog, pool, book, now } = ctx;
  const chain: AnalyticsChain = rng.weighted(['base', 'solana'] as const, [70, 30]);
  const spanDays = heavy ? rng.uniform(30, 120) : clamp(rng.logNormal(Math.log(30), 0.7), 7, 150);
  let start = growthTime(rng, now, 100, HISTORY_DAYS, spanDays + 0.1);
  start = Math.min(Math.max(start, pool.timeWithAtLeast(chain, 80) + rng.int(0, DAY)), now - 7 * DAY - MINUTE);
  const end = Math.min(now - MINUTE, start + spanDays * DAY);
  const wantSellers = heavy ? rng.int(20, 30) : Math.min(40, 5 + Math.floor(rng.logNormal(1.6, 0.8)));
  const legs = new LegSet(catalog);
  const categories = new Set<string>();
  for (let tries = 0; (legs.sellerCount < wantSellers || categories.size < 4) && tries < 800; tries++) {
    const id =
      categories.size < 4 && tries > 60
        ? pool.sampleWhere(rng, chain, start, (s) => !categories.has(s.trueCategory))
        : pool.sample(rng, chain, start);
    if (id < 0) continue;
    if (legs.hasSeller(id) && rng.chance(0.7)) continue;
    const count = heavy ? 1 : Math.min(150, 1 + Math.floor(rng.logNormal(1.0, 1.1)));
    if (legs.add(id, count, 'ai_agent') >= 0) categories.add(catalog.services[id]!.trueCategory);
  }
  if (heavy) for (let extra = rng.int(500, 900) - legs.total; extra > 0; extra--) legs.legs[rng.zipf(legs.legs.length, 0.8)]!.count++;
  const plan = book.add({
    address: newAddress(rng, addressFamily(chain)),
    label: 'ai_agent',
    pattern: heavy ? 'heavy_agent' : 'agent',
    difficulty: heavy ? 'hard' : 'easy',
    groupId: null,
    start,
    legs: legs.legs,
    timing: agentSessions(end),
  });
  const family = addressFamily(chain);
  const how = rng.weighted(['platform', 'exchange', 'personal'] as const, [45, 35, 20]);
  const funder =
    how === 'platform' ? pickAgentPlatform(rng, family) : how === 'exchange' ? pickExchange(rng, family) : newAddress(rng, family);
  book.fund(plan.address, funder, rng.weighted([50, 100, 250, 500], [30, 40, 20, 10]), start - rng.int(10 * MINUTE, 3 * DAY));
  if (legs.total > 150) addTopUps(ctx, rng, plan.address, family, start, rng.int(1, 4));
  return plan;
}

export interface BotOptions {
  chain?: AnalyticsChain;
  period?: number;
  start?: number;
  end?: number;
  /** Services the bot certainly polls (listed by `start`). */
  forced?: readonly number[];
  extraLegs?: number;
  pattern?: string;
  difficulty?: Difficulty;
}

/**
 * An analytics bot: a cron job every 1, 5 or 60 minutes (±10% jitter) polling 1-5 feeds for
 * weeks; some still running at `now`.
 */
/**
 * Pollers call cheap feeds: thousands of calls a month at a cent would cost more than the data is
 * worth. It keeps bots near the real market's share of volume (a few %, docs/wash-methodology.md §11.8).
 */
export const BOT_MAX_PRICE = 0.002;
const cheap = (s: Service): boolean => s.price <= BOT_MAX_PRICE;

export function planBot(ctx: PlanContext, rng: Rng, o: BotOptions = {}): BuyerPlan {
  const { catalog, pool, book, now } = ctx;
  // Minute-level pollers run about a week (10,000 calls); hourly ones for weeks.
  const period = o.period ?? rng.weighted([HOUR, 5 * MINUTE, MINUTE], [78, 19.5, 2.5]);
  const spanDays =
    period === HOUR ? clamp(rng.logNormal(Math.log(20), 0.4), 14, 60) : period === 5 * MINUTE ? rng.uniform(7, 9) : rng.uniform(7, 7.5);
  const chain = o.chain ?? pickChain(rng);
  // Room after the last tick for its jitter and the calls that follow it.
  const margin = Math.ceil(0.1 * period) + 20_000;
  let start: number;
  let end: number;
  if (o.start !== undefined) {
    start = o.start;
    end = o.end ?? start + spanDays * DAY;
  } else {
    if (rng.chance(0.4)) {
      end = now - margin - rng.int(0, period);
      start = end - spanDays * DAY;
    } else {
      start = growthTime(rng, now, 110, HISTORY_DAYS, spanDays + 0.2);
      end = start + spanDays * DAY;
    }
    const listed = pool.timeWithAtLeast(chain, 5);
    if (start < listed) {
      const shift = listed - start + rng.int(0, DAY);
      start += shift;
      end += shift;
    }
  }
  end = Math.min(end, now - margin);
  start = Math.min(start, end);
  const nLegs =
    o.extraLegs ??
    (period === MINUTE ? 1 : period === 5 * MINUTE ? rng.weighted([1, 2], [75, 25]) : rng.weighted([1, 2, 3, 4, 5], [35, 25, 20, 10, 10]));
  const legs = new LegSet(catalog);
  for (const s of o.forced ?? []) legs.add(s, 1, 'analytics_bot');
  let first = legs.legs[0]?.service ?? -1;
  for (let tries = 0; legs.legs.length < nLegs + (o.forced?.length ?? 0) && tries < 60; tries++) {
    let id: number;
    if (first < 0) {
      id = pool.sampleWhere(rng, chain, start, (s) => cheap(s) && (FEED_CATEGORIES as readonly string[]).includes(s.trueCategory));
      if (id < 0) id = pool.sampleWhere(rng, chain, start, cheap);
      if (id < 0) id = pool.sample(rng, chain, start);
    } else if (rng.chance(0.6)) {
      const category = catalog.services[first]!.trueCategory;
      id = pool.sampleWhere(rng, chain, start, (s) => cheap(s) && s.trueCategory === category, 15);
    } else {
      id = pool.sampleWhere(rng, chain, start, cheap);
    }
    if (id < 0) continue;
    legs.add(id, 1, 'analytics_bot');
    if (first < 0) first = id;
  }
  if (legs.legs.length === 0) throw new Error(`x402 demo: no service for a bot on ${chain}`);
  const rotate = legs.legs.length > 1 && rng.chance(0.4);
  const ticks = Math.floor((end - start) / period) + 1;
  for (const leg of legs.legs) leg.count = Math.max(1, rotate ? Math.floor(ticks / legs.legs.length) : ticks);
  const plan = book.add({
    address: newAddress(rng, addressFamily(chain)),
    label: 'analytics_bot',
    pattern: o.pattern ?? 'cron_bot',
    difficulty: o.difficulty ?? 'easy',
    groupId: null,
    start,
    legs: legs.legs,
    timing: { kind: 'cron', period, end, rotate, skip: 0.02 },
  });
  book.fundRetail(rng, plan.address, addressFamily(chain), start, { exchange: 55, personal: 35, none: 10 });
  return plan;
}

/**
 * A third-party developer load-testing one service: bursts of 10-60 calls a minute for minutes
 * (rarely a soak test of hours) within less than 14 days, plus a few casual calls elsewhere.
 */
export function planDeveloper(ctx: PlanContext, rng: Rng): BuyerPlan {
  const { catalog, pool, book, now } = ctx;
  const chain = pickChain(rng);
  const spanDays = clamp(rng.logNormal(Math.log(3), 0.9), 0.05, 13.5);
  let start = growthTime(rng, now, 100);
  start = Math.min(Math.max(start, pool.timeWithAtLeast(chain, 3) + rng.int(0, DAY)), now - 2 * HOUR);
  const end = Math.min(now - MINUTE, start + spanDays * DAY);
  const legs = new LegSet(catalog);
  // Load tests hit cheap endpoints (nobody runs 60 calls a minute against a $1 call for long).
  let main = pool.sampleWhere(rng, chain, start, (s) => s.price <= 0.05, 20);
  if (main < 0) main = pool.sample(rng, chain, start);
  if (main < 0) throw new Error(`x402 demo: no service for a developer on ${chain}`);
  legs.add(main, 1, 'developer');
  if (rng.chance(0.3)) {
    for (let k = rng.int(1, 2); k > 0; k--) {
      const id = pool.sample(rng, chain, start);
      if (id >= 0 && !legs.hasSeller(id)) legs.add(id, rng.int(1, 2), 'organic_user');
    }
  }
  const plan = book.add({
    address: newAddress(rng, addressFamily(chain)),
    label: 'developer',
    pattern: 'load_test',
    difficulty: 'easy',
    groupId: null,
    start,
    legs: legs.legs,
    timing: { kind: 'bursts', end, bursts: 1 + Math.min(5, rng.poisson(1)), soak: rng.chance(0.03), tzHours: pickTimezone(rng) },
  });
  book.fundRetail(rng, plan.address, addressFamily(chain), start, { exchange: 55, personal: 35, none: 10 });
  return plan;
}

/**
 * Verifiers (directories, health checkers): 1-3 paid calls to each new listing within 72 h of its
 * first_seen, across >= 20 sellers. EVM verifiers cover Base, Polygon and Arbitrum with one address.
 * Coverage shrinks with scale so verifier traffic grows linearly, not with services x verifiers.
 * They skip ring, concentration and B2B sellers: those are found from payments on chain, not
 * from a directory listing (and it keeps the planted volume shares and ring balances exact).
 */
export function planVerifiers(ctx: PlanContext, rng: Rng, count: number): void {
  const { catalog, book, now, scale } = ctx;
  const listings: Record<AddressFamily, Service[]> = { evm: [], solana: [] };
  for (const s of catalog.services) {
    const role = catalog.sellers[s.seller]!.role;
    if (role !== 'concentration' && role !== 'b2b' && role !== 'ring') listings[addressFamily(s.chain)].push(s);
  }
  for (const list of Object.values(listings)) list.sort((a, b) => a.firstSeen - b.firstSeen || a.index - b.index);
  const firstSeen = { evm: listings.evm.map((s) => s.firstSeen), solana: listings.solana.map((s) => s.firstSeen) };
  for (let i = 0; i < count; i++) {
    const family: AddressFamily = i % 5 === 4 ? 'solana' : 'evm';
    const list = listings[family];
    let coverage = Math.min(0.95, rng.uniform(0.5, 0.95) / Math.max(1, scale));
    let from = now - rng.uniform(40, 390) * DAY;
    let to = rng.chance(0.75) ? now : Math.min(now, from + rng.uniform(60, 200) * DAY);
    let legs = new LegSet(catalog);
    for (let attempt = 0; attempt < 8; attempt++) {
      legs = new LegSet(catalog);
      const hi = upperBound(firstSeen[family], to - 10 * MINUTE);
      for (let k = upperBound(firstSeen[family], from - 1); k < hi; k++) {
        if (rng.chance(coverage)) legs.add(list[k]!.index, rng.weighted([1, 2, 3], [60, 30, 10]), 'verifier');
      }
      if (legs.sellerCount >= 20) break;
      // Too few listings in the window (early history is thin): widen it both ways.
      from -= 60 * DAY;
      to = Math.min(now, to + 60 * DAY);
      coverage = Math.min(0.95, coverage * 1.5);
    }
    if (legs.legs.length === 0) continue;
    let start = now;
    for (const leg of legs.legs) start = Math.min(start, catalog.services[leg.service]!.firstSeen);
    const fast = rng.chance(0.3);
    const plan = book.add({
      address: newAddress(rng, family),
      label: 'verifier',
      pattern: 'new_service_verifier',
      difficulty: 'easy',
      groupId: null,
      start,
      legs: legs.legs,
      timing: { kind: 'verifier', delayMedian: fast ? 30 * MINUTE : 5 * HOUR, delaySigma: 1.1 },
    });
    // A treasury wallet tops the verifier up about monthly.
    const treasury = newAddress(rng, family);
    book.fund(plan.address, treasury, rng.weighted([100, 200, 500, 1000], [20, 40, 30, 10]), start - rng.int(HOUR, 5 * DAY));
    for (let t = start + rng.int(20, 40) * DAY; t < to; t += rng.int(20, 40) * DAY)
      book.fund(plan.address, treasury, round6(rng.weighted([100, 200, 500], [40, 40, 20])), t);
  }
}

/** The honest populations at their scale-1 sizes (listed in docs/wash-methodology.md §11.8). */
export function planHonestPopulations(ctx: PlanContext, seed: number): void {
  const { scale, now } = ctx;
  const organic = Rng.stream(seed, 'x402:organic');
  for (let i = scaled(13_000, scale); i > 0; i--) planOrganic(ctx, organic);
  // Honest heavy users that look bot-like: hundreds of calls on 1-2 services at a steady pace.
  const heavy = Rng.stream(seed, 'x402:heavy-organic');
  for (let i = scaled(12, scale); i > 0; i--) {
    planOrganic(ctx, heavy, {
      nTx: heavy.int(150, 600),
      sellers: heavy.int(1, 2),
      start: growthTime(heavy, now, 100, HISTORY_DAYS, 20),
      pattern: 'heavy_organic',
      difficulty: 'medium',
      timing: { sessionGapMedian: 3 * HOUR, sessionGapSigma: 0.5, intraGapMedian: 30_000, intraGapSigma: 0.8, pNewSession: 0.85 },
    });
  }
  const agents = Rng.stream(seed, 'x402:agents');
  for (let i = scaled(135, scale); i > 0; i--) planAgent(ctx, agents, false);
  for (let i = scaled(3, scale); i > 0; i--) planAgent(ctx, agents, true);
  const bots = Rng.stream(seed, 'x402:bots');
  for (let i = scaled(110, scale); i > 0; i--) planBot(ctx, bots);
  const developers = Rng.stream(seed, 'x402:developers');
  for (let i = scaled(90, scale); i > 0; i--) planDeveloper(ctx, developers);
}
