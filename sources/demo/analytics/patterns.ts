/**
 * Planted patterns of the demo x402 world (docs/wash-methodology.md §11.8): self-testing, wash farms at
 * easy / medium / hard camouflage, and the honest look-alikes (hard negatives) a classifier must
 * leave alone. Every wallet planted here carries its truth label, pattern, difficulty and group.
 *
 * Truth conventions a classifier author relies on:
 * - A wash wallet is `suspected_wash` on every pair it has, including the sprinkle payments a
 *   camouflaged farm makes to popular honest sellers (that money is manufactured, not demand).
 * - The operator's main wallet inside an easy vanity cohort (strict and broad; it shares the
 *   cohort's prefix/suffix, funds the members and makes >= 6x their median payments) is
 *   `self_test` (pattern vanity_operator, same group), as in x402watch's vanity rule.
 * - group_id: wash groups `<pattern>-<difficulty>-<n>` (camouflaged farms `<pattern>-<hops>hop-<n>`),
 *   other groups `<pattern>-<n>`; independent wallets have none.
 * - Seller-funded loops: 1-5 wallets `self_test` (seller_funded_test), 6-9 wallets `self_test`
 *   (funded_loop_boundary, difficulty hard: below the 10-wallet cohort cut-off of docs/wash-methodology.md §11.7),
 *   10+ wallets `suspected_wash` (funded_loop).
 * - Self-test wallets that also use other sellers are `organic_user` on those other pairs.
 * - Hard negatives keep their honest label on every pair, including a bot's pair with a farm seller.
 */
import type { AnalyticsChain } from '../../../catalog/categories.ts';
import { Rng, evmAddress } from '../random.ts';
import { addressFamily, newAddress, pickExchange } from './addresses.ts';
import { DAY, HISTORY_DAYS, HOUR, MINUTE, growthTime, round6, type Seller } from './catalog.ts';
import { planBot, planOrganic, scaled } from './honest.ts';
import { type BuyerPlan, clamp, type Difficulty, LegSet, type Piece, type PlanContext, retailAmount, type TruthLabel } from './plans.ts';

const DIFFICULTIES: readonly Difficulty[] = ['easy', 'medium', 'hard'];

/** A farm seller and the period its farm pays it (for honest bots that touch it). */
interface FarmRecord {
  seller: Seller;
  from: number;
}

export interface PatternState {
  ctx: PlanContext;
  /** Honest sellers already given a role in a pattern, so patterns do not overlap. */
  claimed: Set<number>;
  farms: FarmRecord[];
}

export function plantPatterns(ctx: PlanContext, seed: number): void {
  const state: PatternState = { ctx, claimed: new Set(), farms: [] };
  plantSelfPay(state, Rng.stream(seed, 'x402:self-pay'));
  plantSellerVanity(state, Rng.stream(seed, 'x402:seller-vanity'));
  plantSybilCohorts(state, Rng.stream(seed, 'x402:sybil'));
  plantFundedLoops(state, Rng.stream(seed, 'x402:funded-loop'));
  plantRings(state, Rng.stream(seed, 'x402:ring'));
  plantConcentration(state, Rng.stream(seed, 'x402:concentration'));
  plantVanityCohorts(state, Rng.stream(seed, 'x402:vanity'));
  plantCamouflagedFarms(state, Rng.stream(seed, 'x402:camouflage'));
  plantHardNegatives(state, Rng.stream(seed, 'x402:hard-negatives'));
}

// ------------------------------------------------------------------------ helpers
// (exported for challenge-patterns.ts, which plants the challenge world's patterns alike)

/**
 * When a group starts. The real market's wash is about 1 % of a month's buyers (x402watch, docs/
 * wash-methodology.md §11.8), so only the first group of the few kinds marked `recent` runs in the
 * last few weeks (inside a 30-day window); the others ran 7 weeks to a year ago.
 */
export function groupStart(state: PatternState, rng: Rng, g: number, recent = false, oldestDays = 360): number {
  const now = state.ctx.now;
  return g === 0 && recent ? Math.floor(now - rng.uniform(3, 24) * DAY) : growthTime(rng, now, 150, oldestDays, 50);
}

export function launchBefore(state: PatternState, rng: Rng, t: number, minDays: number, maxDays: number): number {
  return Math.max(state.ctx.now - (HISTORY_DAYS - 1) * DAY, Math.floor(t - rng.uniform(minDays, maxDays) * DAY));
}

export function latest(state: PatternState, t: number): number {
  return Math.min(t, state.ctx.now - HOUR);
}

function claimHonestSeller(
  state: PatternState,
  rng: Rng,
  accept: (s: Seller) => boolean,
  roles: readonly Seller['role'][] = ['honest'],
): Seller | null {
  const candidates = state.ctx.catalog.sellers.filter((s) => roles.includes(s.role) && !state.claimed.has(s.index) && accept(s));
  if (candidates.length === 0) return null;
  const seller = rng.pick(candidates);
  state.claimed.add(seller.index);
  return seller;
}

/** Services of a seller listed by `at` (at least its first listing). */
function listedBy(state: PatternState, seller: Seller, at: number): number[] {
  const services = seller.services.filter((s) => state.ctx.catalog.services[s]!.firstSeen <= at);
  return services.length > 0 ? services : [seller.services[0]!];
}

export function farmSeller(state: PatternState, rng: Rng, chain: AnalyticsChain, launch: number, prices: readonly number[]): Seller {
  return state.ctx.catalog.addSeller({ role: 'farm', chain, launch, endpoints: prices.length, prices, listAllAtLaunch: true });
}

/** The member's payments: pieces over a window, with the plan's legs. */
export class MemberBuilder {
  readonly legs: LegSet;
  readonly pieces: Piece[] = [];

  constructor(private readonly state: PatternState) {
    this.legs = new LegSet(state.ctx.catalog);
  }

  /** `count` payments spread over `services` (each payment picks one; weights optional), in [from, to]. */
  pay(
    rng: Rng,
    services: readonly number[],
    count: number,
    from: number,
    to: number,
    label: TruthLabel,
    weights?: readonly number[],
  ): void {
    const counts = new Map<number, number>();
    for (let k = 0; k < count; k++) {
      const s = weights ? rng.weighted(services, weights) : services.length === 1 ? services[0]! : rng.pick(services);
      counts.set(s, (counts.get(s) ?? 0) + 1);
    }
    for (const [service, c] of counts) {
      const leg = this.legs.add(service, c, label);
      if (leg >= 0) this.pieces.push({ leg, count: c, from, to });
    }
  }

  /** Payments to popular honest services on `chain`, `sellers` distinct ones, `perSeller()` each. */
  sprinkle(rng: Rng, chain: AnalyticsChain, sellers: number, perSeller: () => number, from: number, to: number, label: TruthLabel): void {
    const pool = this.state.ctx.pool;
    const before = this.legs.sellerCount;
    for (let tries = 0; this.legs.sellerCount - before < sellers && tries < sellers * 10; tries++) {
      const id = pool.sample(rng, chain, from);
      if (id < 0 || this.legs.hasSeller(id)) continue;
      const c = perSeller();
      const leg = this.legs.add(id, c, label);
      if (leg >= 0) this.pieces.push({ leg, count: c, from, to });
    }
  }

  add(address: string, label: TruthLabel, pattern: string, difficulty: Difficulty, groupId: string | null): BuyerPlan {
    let start = Infinity;
    for (const p of this.pieces) start = Math.min(start, p.from);
    return this.state.ctx.book.add({
      address,
      label,
      pattern,
      difficulty,
      groupId,
      start,
      legs: this.legs.legs,
      timing: { kind: 'pieces', pieces: this.pieces },
    });
  }
}

function varied(rng: Rng, base: number, cv: number, min = 1): number {
  return Math.max(min, Math.round(base * (1 + cv * rng.normal())));
}

export function distinctPrices(rng: Rng, n: number): number[] {
  return rng.shuffle([0.005, 0.01, 0.02, 0.05, 0.1, 0.25]).slice(0, n);
}

// ---------------------------------------------------------------------- self-test

/** payer == seller: operators paying their own listings at launch (many of them placeholders). */
function plantSelfPay(state: PatternState, rng: Rng): void {
  const { now } = state.ctx;
  const n = scaled(60, state.ctx.scale);
  for (let g = 0; g < n; g++) {
    const roles: Seller['role'][] = g % 3 === 0 ? ['placeholder'] : ['honest'];
    const seller =
      claimHonestSeller(state, rng, (s) => s.launch <= now - 2 * HOUR, roles) ??
      claimHonestSeller(state, rng, (s) => s.launch <= now - 2 * HOUR, ['honest', 'placeholder']);
    if (!seller) return;
    const m = new MemberBuilder(state);
    const from = latest(state, seller.launch + rng.int(0, 2 * HOUR));
    const to = latest(state, seller.launch + rng.int(2 * HOUR, 5 * DAY));
    const services = rng.shuffle(listedBy(state, seller, from)).slice(0, rng.int(1, 3));
    m.pay(rng, services, clamp(Math.round(rng.logNormal(1.5, 0.8)), 1, 40), from, Math.max(from, to), 'self_test');
    const retest = seller.launch + rng.uniform(5, 90) * DAY;
    if (rng.chance(0.3) && retest <= now - HOUR)
      m.pay(rng, [services[0]!], rng.int(1, 3), retest, latest(state, retest + HOUR), 'self_test');
    m.add(seller.address, 'self_test', 'self_pay', 'easy', null);
  }
}

/** Test wallets mined to share the seller's own 4-hex prefix and suffix (operator branding). */
function plantSellerVanity(state: PatternState, rng: Rng): void {
  const { now, book } = state.ctx;
  const evm = (s: Seller): boolean => addressFamily(s.chain) === 'evm' && s.launch <= now - 2 * DAY;
  for (let g = 0; g < scaled(10, state.ctx.scale); g++) {
    const seller = claimHonestSeller(state, rng, (s) => evm(s) && s.branded) ?? claimHonestSeller(state, rng, evm);
    if (!seller) return;
    const groupId = `seller_vanity-${g + 1}`;
    for (let w = rng.int(1, 2); w > 0; w--) {
      const address = evmAddress(rng, seller.address.slice(2, 6), seller.address.slice(-4));
      const from = latest(state, seller.launch + rng.int(0, 12 * HOUR));
      const m = new MemberBuilder(state);
      m.pay(
        rng,
        rng.shuffle(listedBy(state, seller, from)).slice(0, 2),
        rng.int(3, 20),
        from,
        latest(state, from + rng.uniform(1, 30) * DAY),
        'self_test',
      );
      const plan = m.add(address, 'self_test', 'seller_vanity', 'medium', groupId);
      book.fund(
        address,
        rng.chance(0.7) ? seller.address : pickExchange(rng, 'evm'),
        rng.weighted([10, 20, 50], [40, 40, 20]),
        plan.start - rng.int(10 * MINUTE, DAY),
      );
    }
  }
}

// ------------------------------------------------------------------ (a) sybil cohorts

const SYBIL: Record<
  Difficulty,
  {
    groups: number;
    size: [number, number];
    startWindow: number;
    prices: number;
    countCv: number;
    days: [number, number];
    fundSpread: number;
    equalFunding: boolean;
    sprinkle: number;
  }
> = {
  easy: {
    groups: 2,
    size: [45, 90],
    startWindow: 10 * MINUTE,
    prices: 1,
    countCv: 0,
    days: [2, 5],
    fundSpread: 10 * MINUTE,
    equalFunding: true,
    sprinkle: 0,
  },
  medium: {
    groups: 1,
    size: [25, 45],
    startWindow: 28 * MINUTE,
    prices: 2,
    countCv: 0.12,
    days: [3, 8],
    fundSpread: 2 * HOUR,
    equalFunding: true,
    sprinkle: 0,
  },
  hard: {
    groups: 1,
    size: [10, 16],
    startWindow: 29 * MINUTE,
    prices: 3,
    countCv: 0.35,
    days: [5, 14],
    fundSpread: 24 * HOUR,
    equalFunding: false,
    sprinkle: 0.2,
  },
};

/** One operator funds 10-200 wallets that start paying one farm seller within 30 minutes. */
function plantSybilCohorts(state: PatternState, rng: Rng): void {
  const { book, now } = state.ctx;
  for (const d of DIFFICULTIES) {
    const p = SYBIL[d];
    for (let g = 0; g < scaled(p.groups, state.ctx.scale); g++) {
      const groupId = `sybil_cohort-${d}-${g + 1}`;
      const chain: AnalyticsChain = rng.weighted(['base', 'solana', 'polygon'] as const, [60, 30, 10]);
      const family = addressFamily(chain);
      const t0 = groupStart(state, rng, g, d === 'hard');
      const farm = farmSeller(
        state,
        rng,
        chain,
        launchBefore(state, rng, t0, 1, 20),
        d === 'easy' ? [rng.pick([0.01, 0.05, 0.1])] : distinctPrices(rng, p.prices),
      );
      state.farms.push({ seller: farm, from: t0 });
      const size = rng.int(g === 0 ? p.size[0] : Math.round(p.size[0] * 0.7), g === 0 ? p.size[1] : Math.round(p.size[1] * 0.7));
      const baseCount = rng.int(20, 40);
      const groupDays = rng.uniform(p.days[0], p.days[1]);
      const equalAmount = rng.weighted([5, 10, 20], [30, 50, 20]);
      const fundBase = t0 - p.fundSpread - rng.int(30 * MINUTE, 4 * HOUR);
      const operator = newAddress(rng, family);
      book.fund(operator, pickExchange(rng, family), Math.ceil(size * equalAmount * 1.2), fundBase - rng.int(DAY, 5 * DAY));
      const mix = farm.services.map(() => rng.uniform(0.5, 1.5));
      for (let i = 0; i < size; i++) {
        const address = newAddress(rng, family);
        const start = t0 + rng.int(0, p.startWindow);
        const to = Math.min(now, start + (d === 'hard' ? rng.uniform(p.days[0], p.days[1]) : groupDays) * DAY);
        const n = p.countCv === 0 ? baseCount : varied(rng, baseCount, p.countCv, 3);
        const m = new MemberBuilder(state);
        m.pay(rng, farm.services, n, start, to, 'suspected_wash', d === 'hard' ? farm.services.map(() => rng.uniform(0.2, 1.8)) : mix);
        if (p.sprinkle > 0) m.sprinkle(rng, chain, rng.int(1, 3), () => rng.int(1, 3), start, to, 'suspected_wash');
        m.add(address, 'suspected_wash', 'sybil_cohort', d, groupId);
        const amount = p.equalFunding ? equalAmount : round6(Math.round(rng.uniform(5, 30) * 100) / 100);
        book.fund(address, operator, amount, fundBase + Math.floor((i / size) * p.fundSpread) + rng.int(0, 60_000));
      }
    }
  }
}

// ------------------------------------------------------------------ (b) funded loops

/** The seller funds buyer wallets that pay it back. Size decides the truth (see file header). */
function plantFundedLoops(state: PatternState, rng: Rng): void {
  const { book, now, scale } = state.ctx;
  // Wash loops of 10-100 wallets.
  for (const d of DIFFICULTIES) {
    for (let g = 0; g < scaled(1, scale); g++) {
      const groupId = `funded_loop-${d}-${g + 1}`;
      const t0 = groupStart(state, rng, g, d === 'hard');
      let seller: Seller | null;
      if (d === 'easy') {
        const chain: AnalyticsChain = rng.weighted(['base', 'solana'] as const, [70, 30]);
        seller = farmSeller(state, rng, chain, launchBefore(state, rng, t0, 2, 15), [rng.pick([0.01, 0.02, 0.05, 0.1])]);
      } else {
        // An existing seller with real customers inflating its own numbers.
        seller = claimHonestSeller(state, rng, (s) => s.launch <= t0 - 10 * DAY && s.chain !== 'arbitrum');
        if (!seller) continue;
      }
      const family = addressFamily(seller.chain);
      const size = d === 'easy' ? rng.int(30, 60) : d === 'medium' ? rng.int(15, 30) : rng.int(10, 14);
      const baseCount = rng.int(15, 35);
      const equalAmount = rng.weighted([10, 20, 50], [40, 40, 20]);
      const groupDays = rng.uniform(3, 7);
      let hop: string | null = null;
      if (d === 'hard') {
        hop = newAddress(rng, family);
        book.fund(hop, seller.address, Math.ceil(size * 30), t0 - rng.int(3 * DAY, 6 * DAY));
      }
      for (let i = 0; i < size; i++) {
        const address = newAddress(rng, family);
        const start = latest(state, d === 'easy' ? t0 + rng.int(0, 2 * HOUR) : t0 + rng.int(0, (d === 'medium' ? 2 : 5) * DAY));
        const to = Math.min(now, start + (d === 'easy' ? groupDays : rng.uniform(4, 10)) * DAY);
        const n = d === 'easy' ? baseCount : varied(rng, baseCount, d === 'medium' ? 0.3 : 0.5, 3);
        const services = d === 'easy' ? seller.services : rng.shuffle(listedBy(state, seller, start)).slice(0, rng.int(1, 3));
        const m = new MemberBuilder(state);
        m.pay(rng, services, n, start, to, 'suspected_wash');
        if (d === 'hard') m.sprinkle(rng, seller.chain, rng.int(1, 2), () => rng.int(1, 3), start, to, 'suspected_wash');
        m.add(address, 'suspected_wash', 'funded_loop', d, groupId);
        const fundTime = d === 'easy' ? t0 - rng.int(20 * MINUTE, 50 * MINUTE) : start - rng.int(HOUR, 12 * HOUR);
        const amount =
          d === 'easy'
            ? equalAmount
            : d === 'medium'
              ? rng.weighted([5, 10, 20], [30, 50, 20])
              : round6(Math.round(rng.uniform(6, 40) * 100) / 100);
        book.fund(address, hop ?? seller.address, amount, fundTime);
      }
    }
  }
  // Launch test wallets funded by the seller: 1-5 (self_test) and the 6-9 boundary (self_test).
  const small = scaled(25, scale);
  const boundary = scaled(2, scale);
  for (let g = 0; g < small + boundary; g++) {
    const isBoundary = g >= small;
    const seller = claimHonestSeller(state, rng, (s) => s.launch >= now - 380 * DAY && s.launch <= now - 2 * DAY);
    if (!seller) return;
    const size = isBoundary ? ((g - small) % 2 === 0 ? rng.int(6, 7) : rng.int(8, 9)) : rng.weighted([1, 2, 3, 4, 5], [30, 25, 20, 15, 10]);
    const pattern = isBoundary ? 'funded_loop_boundary' : 'seller_funded_test';
    const groupId = `${pattern}-${(isBoundary ? g - small : g) + 1}`;
    const difficulty: Difficulty = isBoundary ? 'hard' : size <= 3 ? 'easy' : 'medium';
    const family = addressFamily(seller.chain);
    for (let i = 0; i < size; i++) {
      const address = newAddress(rng, family);
      const from = latest(state, seller.launch + rng.int(0, 6 * HOUR));
      const to = latest(state, seller.launch + rng.int(DAY, 7 * DAY));
      const m = new MemberBuilder(state);
      m.pay(rng, rng.shuffle(listedBy(state, seller, from)).slice(0, rng.int(1, 2)), rng.int(2, 15), from, Math.max(from, to), 'self_test');
      const retest = seller.launch + rng.uniform(10, 60) * DAY;
      if (rng.chance(0.25) && retest <= now - HOUR)
        m.pay(rng, [seller.services[0]!], rng.int(1, 3), retest, latest(state, retest + 2 * HOUR), 'self_test');
      if (rng.chance(0.3))
        m.sprinkle(rng, seller.chain, rng.int(1, 3), () => rng.int(1, 3), from, latest(state, from + 60 * DAY), 'organic_user');
      m.add(address, 'self_test', pattern, difficulty, groupId);
      book.fund(address, seller.address, rng.weighted([5, 10, 20, 50], [20, 40, 30, 10]), seller.launch - rng.int(10 * MINUTE, 12 * HOUR));
    }
  }
}

// ---------------------------------------------------------------------- (c) rings

/** 2-6 wallets that are each a seller and pay the next one: what comes in goes out. */
function plantRings(state: PatternState, rng: Rng): void {
  const { book, catalog, now, scale } = state.ctx;
  const kinds: Array<{ d: Difficulty; groups: number }> = [
    { d: 'easy', groups: 2 },
    { d: 'medium', groups: 2 },
    { d: 'hard', groups: 1 },
  ];
  for (const { d, groups } of kinds) {
    for (let g = 0; g < scaled(groups, scale); g++) {
      const groupId = `ring-${d}-${g + 1}`;
      const chain: AnalyticsChain = d === 'medium' ? 'polygon' : rng.weighted(['base', 'solana'] as const, [70, 30]);
      const family = addressFamily(chain);
      const size = d === 'easy' ? rng.int(2, 3) : d === 'medium' ? rng.int(4, 5) : 6;
      const t0 = groupStart(state, rng, g, d !== 'medium');
      const prices = Array.from({ length: size }, () =>
        d === 'easy' ? [1] : d === 'medium' ? [0.25, 0.5] : [rng.pick([0.1, 0.25, 0.5, 1])],
      );
      const members = prices.map((p) => {
        const address = newAddress(rng, family);
        catalog.addSeller({
          role: 'ring',
          chain,
          launch: launchBefore(state, rng, t0, 1, 10),
          endpoints: p.length,
          prices: p,
          address,
          listAllAtLaunch: true,
        });
        return catalog.sellers[catalog.sellers.length - 1]!;
      });
      // Balanced: every member passes on the same value it receives.
      const counts = d === 'easy' ? [rng.int(120, 200)] : d === 'medium' ? [rng.int(150, 250), rng.int(100, 140)] : [];
      const value = rng.uniform(40, 60);
      const operator = newAddress(rng, family);
      const groupDays = rng.uniform(5, 15);
      if (d !== 'hard') book.fund(operator, pickExchange(rng, family), 50 * size, t0 - rng.int(3 * DAY, 8 * DAY));
      members.forEach((member, i) => {
        const next = members[(i + 1) % size]!;
        const start = latest(state, t0 + rng.int(0, d === 'hard' ? 3 * DAY : 2 * HOUR));
        const to = Math.min(now, start + groupDays * DAY);
        const m = new MemberBuilder(state);
        if (d === 'hard') {
          const price = catalog.services[next.services[0]!]!.price;
          m.pay(rng, next.services, varied(rng, value / price, 0.02), start, to, 'suspected_wash');
          m.sprinkle(rng, chain, rng.int(1, 2), () => rng.int(1, 4), start, to, 'suspected_wash');
        } else {
          next.services.forEach((s, j) => m.pay(rng, [s], counts[j]!, start, to, 'suspected_wash'));
        }
        m.add(member.address, 'suspected_wash', 'ring', d, groupId);
        const funder = d === 'hard' ? pickExchange(rng, family) : operator;
        book.fund(member.address, funder, d === 'hard' ? retailAmount(rng) : 50, start - rng.int(HOUR, 2 * DAY));
      });
    }
  }
}

// ------------------------------------------------------- (d) single-payer concentration

/** A fresh wallet makes >= 95% of a seller's volume with >= 200 payments. */
function plantConcentration(state: PatternState, rng: Rng): void {
  const { book, catalog, now, scale } = state.ctx;
  for (const d of DIFFICULTIES) {
    for (let g = 0; g < scaled(1, scale); g++) {
      const groupId = `single_payer_concentration-${d}-${g + 1}`;
      const chain: AnalyticsChain = d === 'medium' ? 'solana' : 'base';
      const family = addressFamily(chain);
      const t0 = groupStart(state, rng, g, d === 'hard');
      const seller = catalog.addSeller({
        role: 'concentration',
        chain,
        launch: launchBefore(state, rng, t0, 1, 10),
        endpoints: d === 'medium' ? 2 : 1,
        prices: d === 'medium' ? [1, 0.5] : [1],
        listAllAtLaunch: true,
      });
      const address = newAddress(rng, family);
      const start = latest(state, t0 + rng.int(0, 6 * HOUR));
      const to = Math.min(now, start + rng.uniform(10, 20) * DAY);
      const n = d === 'easy' ? rng.int(700, 900) : d === 'medium' ? rng.int(600, 700) : rng.int(210, 260);
      const m = new MemberBuilder(state);
      m.pay(rng, seller.services, n, start, to, 'suspected_wash', d === 'medium' ? [80, 20] : undefined);
      if (d === 'hard') m.sprinkle(rng, chain, 1, () => rng.int(3, 8), start, to, 'suspected_wash');
      m.add(address, 'suspected_wash', 'single_payer_concentration', d, groupId);
      // Fresh: funded a few days before the first payment.
      const fundTime = start - rng.int(DAY, 5 * DAY);
      if (d === 'medium') {
        book.fund(address, pickExchange(rng, family), Math.ceil(n * 0.95), fundTime);
      } else {
        const operator = newAddress(rng, family);
        book.fund(operator, pickExchange(rng, family), Math.ceil(n * 1.1), fundTime - rng.int(DAY, 3 * DAY));
        if (d === 'hard') {
          const hop = newAddress(rng, family);
          book.fund(hop, operator, Math.ceil(n * 1.05), fundTime - rng.int(HOUR, 12 * HOUR));
          book.fund(address, hop, n, fundTime);
        } else {
          book.fund(address, operator, n, fundTime);
        }
      }
      // A few real customers (<= 2 payments each) keep the share just under 100%.
      if (d !== 'easy') {
        for (let k = d === 'medium' ? rng.int(2, 4) : rng.int(1, 3); k > 0; k--) {
          planOrganic(state.ctx, rng, {
            chain,
            start: start + Math.floor(rng.next() * (to - start)),
            forced: [{ service: seller.services[0]!, count: rng.int(1, 2) }],
            sellers: rng.int(0, 2),
          });
        }
      }
    }
  }
}

// ------------------------------------------------------------------ (e) vanity cohorts

const VANITY: Record<'strict' | 'broad', { prefix: number; sizes: Record<Difficulty, [number, number]> }> = {
  strict: { prefix: 4, sizes: { easy: [14, 20], medium: [6, 10], hard: [3, 3] } },
  broad: { prefix: 2, sizes: { easy: [9, 12], medium: [5, 7], hard: [4, 4] } },
};

/** Wallets mined to share a prefix and suffix (strict 4+3 hex, broad 2+3) paying one farm seller. */
function plantVanityCohorts(state: PatternState, rng: Rng): void {
  const { book, now, scale } = state.ctx;
  for (const kind of ['strict', 'broad'] as const) {
    const v = VANITY[kind];
    for (const d of DIFFICULTIES) {
      for (let g = 0; g < scaled(1, scale); g++) {
        const groupId = `vanity_${kind}-${d}-${g + 1}`;
        const chain: AnalyticsChain = rng.weighted(['base', 'polygon', 'arbitrum'] as const, [70, 20, 10]);
        const t0 = groupStart(state, rng, g, kind === 'strict' && d === 'medium');
        const farm = farmSeller(
          state,
          rng,
          chain,
          launchBefore(state, rng, t0, 1, 15),
          d === 'easy' ? [rng.pick([0.01, 0.02, 0.05])] : distinctPrices(rng, rng.int(1, 2)),
        );
        const prefix = rng.hex(v.prefix);
        const suffix = rng.hex(3);
        const size = rng.int(v.sizes[d][0], v.sizes[d][1]);
        const baseCount = rng.int(15, 30);
        const groupDays = rng.uniform(3, 10);
        // Easy cohorts are funded by the operator's own (vanity) main wallet, which also pays a lot.
        const operator = d === 'easy' ? evmAddress(rng, prefix, suffix) : newAddress(rng, 'evm');
        if (d !== 'hard')
          book.fund(operator, pickExchange(rng, 'evm'), Math.ceil(size * 25 + baseCount * 10), t0 - rng.int(2 * DAY, 10 * DAY));
        for (let i = 0; i < size; i++) {
          const address = evmAddress(rng, prefix, suffix);
          const start = latest(state, t0 + rng.int(0, d === 'easy' ? HOUR : d === 'medium' ? DAY : 3 * DAY));
          const to = Math.min(now, start + (d === 'easy' ? groupDays : rng.uniform(3, 12)) * DAY);
          const m = new MemberBuilder(state);
          m.pay(
            rng,
            farm.services,
            varied(rng, baseCount, d === 'easy' ? 0.1 : d === 'medium' ? 0.3 : 0.5, 3),
            start,
            to,
            'suspected_wash',
          );
          if (d === 'hard') m.sprinkle(rng, chain, rng.int(1, 3), () => rng.int(1, 3), start, to, 'suspected_wash');
          const plan = m.add(address, 'suspected_wash', `vanity_${kind}`, d, groupId);
          book.fund(
            address,
            d === 'hard' ? pickExchange(rng, 'evm') : operator,
            d === 'hard' ? retailAmount(rng) : 20,
            plan.start - rng.int(HOUR, d === 'medium' ? DAY : 6 * HOUR),
          );
        }
        if (d === 'easy') {
          const start = latest(state, t0 + rng.int(0, HOUR));
          const m = new MemberBuilder(state);
          m.pay(rng, farm.services, baseCount * rng.int(6, 8), start, Math.min(now, start + groupDays * DAY), 'self_test');
          m.add(operator, 'self_test', 'vanity_operator', d, groupId);
        }
      }
    }
  }
}

// ---------------------------------------------------------- (f) camouflaged farms (hard)

/**
 * Farms built to pass the simple rules: starts jittered over days, funding through exchanges or
 * 1-2 intermediate wallets, several price points, payments sprinkled to popular honest sellers,
 * and two members per farm with >= 20 sellers and >= 500 payments (past the 20-seller guard).
 */
function plantCamouflagedFarms(state: PatternState, rng: Rng): void {
  const { book, now, scale } = state.ctx;
  const variants: Array<{ pattern: string; chain: AnalyticsChain; hops: 0 | 1 | 2; size: [number, number] }> = [
    { pattern: 'exchange_funded_farm', chain: 'base', hops: 0, size: [20, 30] },
    { pattern: 'hop_funded_farm', chain: 'solana', hops: 1, size: [15, 25] },
    { pattern: 'hop_funded_farm', chain: 'base', hops: 2, size: [20, 35] },
  ];
  for (const v of variants) {
    for (let g = 0; g < scaled(1, scale); g++) {
      const groupId = `${v.pattern}-${v.hops}hop-${g + 1}`;
      const family = addressFamily(v.chain);
      // At most 100 days back: the super members need 20+ popular sellers listed by then.
      const t0 = groupStart(state, rng, g, false, 100);
      const jitterDays = rng.uniform(2, 6);
      const farm = farmSeller(state, rng, v.chain, launchBefore(state, rng, t0, 3, 30), distinctPrices(rng, rng.int(3, 6)));
      // Funding chain: exchange -> member; or operator -> hop -> member; or seller -> hop1 -> hop2 -> member.
      let funders: string[] = [];
      if (v.hops === 1) {
        const operator = newAddress(rng, family);
        const hop = newAddress(rng, family);
        book.fund(operator, pickExchange(rng, family), 3000, t0 - rng.int(8 * DAY, 15 * DAY));
        book.fund(hop, operator, 2500, t0 - rng.int(3 * DAY, 7 * DAY));
        funders = [hop];
      } else if (v.hops === 2) {
        const hop1 = newAddress(rng, family);
        book.fund(hop1, farm.address, 3000, t0 - rng.int(5 * DAY, 9 * DAY));
        funders = [0, 1, 2].map(() => newAddress(rng, family));
        for (const hop2 of funders) book.fund(hop2, hop1, 900, t0 - rng.int(2 * DAY, 4 * DAY));
      }
      const size = rng.int(v.size[0], v.size[1]);
      for (let i = 0; i < size; i++) {
        const superMember = i < 2;
        const address = newAddress(rng, family);
        const start = latest(state, t0 + Math.floor(rng.next() * jitterDays * DAY));
        const to = Math.min(now, start + rng.uniform(7, 20) * DAY);
        // 460+ here and 20+ sprinkled sellers of 2+ payments: past 500 payments whatever the draws.
        const n = superMember ? rng.int(460, 540) : clamp(Math.round(rng.logNormal(Math.log(35), 0.5)), 8, 150);
        const m = new MemberBuilder(state);
        m.pay(
          rng,
          farm.services,
          n,
          start,
          to,
          'suspected_wash',
          farm.services.map(() => rng.uniform(0.1, 1)),
        );
        if (superMember) {
          m.sprinkle(rng, v.chain, rng.int(20, 26), () => rng.int(2, 6), start, to, 'suspected_wash');
        } else {
          const share = rng.uniform(0.15, 0.4);
          const sellers = rng.int(2, 6);
          const perSeller = Math.max(1, Math.round((n * share) / (1 - share) / sellers));
          m.sprinkle(rng, v.chain, sellers, () => varied(rng, perSeller, 0.3), start, to, 'suspected_wash');
        }
        const plan = m.add(address, 'suspected_wash', v.pattern, 'hard', groupId);
        const funder = v.hops === 0 ? pickExchange(rng, family) : funders[i % funders.length]!;
        book.fund(
          address,
          funder,
          round6(Math.round(rng.uniform(8, 60) * (superMember ? 10 : 1) * 100) / 100),
          plan.start - rng.int(HOUR, 2 * DAY),
        );
      }
    }
  }
}

// -------------------------------------------------------------------- hard negatives

function plantHardNegatives(state: PatternState, rng: Rng): void {
  const { book, catalog, pool, now, scale } = state.ctx;

  // An honest single-customer B2B seller: one established customer is >= 95% of its volume.
  for (let g = 0; g < scaled(2, scale); g++) {
    const groupId = `b2b_customer-${g + 1}`;
    const big = g % 2 === 0;
    const chain: AnalyticsChain = big ? 'base' : 'solana';
    const family = addressFamily(chain);
    const t0 = big ? Math.floor(now - rng.uniform(40, 80) * DAY) : growthTime(rng, now, 150, 300, 60);
    const seller = catalog.addSeller({
      role: 'b2b',
      chain,
      launch: launchBefore(state, rng, t0, 1, 5),
      endpoints: 1,
      prices: [big ? 1 : 0.5],
      listAllAtLaunch: true,
    });
    const to = Math.min(now, t0 + rng.uniform(30, 90) * DAY);
    const m = new MemberBuilder(state);
    const earlier = Math.max(pool.timeWithAtLeast(chain, 10), t0 - rng.uniform(20, 50) * DAY);
    m.sprinkle(rng, chain, rng.int(2, 4), () => rng.int(2, 10), earlier, now, 'organic_user');
    m.pay(rng, seller.services, big ? rng.int(550, 700) : rng.int(260, 400), t0 + rng.int(0, 6 * HOUR), to, 'organic_user');
    const plan = m.add(newAddress(rng, family), 'organic_user', 'b2b_customer', 'hard', groupId);
    book.fund(
      plan.address,
      pickExchange(rng, family),
      2000,
      Math.max(now - (HISTORY_DAYS + 30) * DAY, plan.start - rng.uniform(30, 150) * DAY),
    );
    for (let k = rng.int(1, 3); k > 0; k--) {
      planOrganic(state.ctx, rng, {
        chain,
        start: t0 + Math.floor(rng.next() * (to - t0)),
        forced: [{ service: seller.services[0]!, count: rng.int(1, 3) }],
        sellers: rng.int(0, 2),
      });
    }
  }

  // An honest launch: three independent early adopters carry the first 48 hours.
  for (let g = 0; g < scaled(2, scale); g++) {
    const seller = claimHonestSeller(state, rng, (s) => s.launch >= now - 60 * DAY && s.launch <= now - 3 * DAY && s.chain !== 'arbitrum');
    if (!seller) break;
    const groupId = `honest_launch-${g + 1}`;
    const family = addressFamily(seller.chain);
    for (let a = 0; a < 3; a++) {
      const m = new MemberBuilder(state);
      const before = Math.max(pool.timeWithAtLeast(seller.chain, 10), seller.launch - rng.uniform(5, 60) * DAY);
      m.sprinkle(rng, seller.chain, rng.int(1, 3), () => rng.int(1, 5), before, now, 'organic_user');
      const from = seller.launch + rng.int(0, 4 * HOUR);
      m.pay(rng, listedBy(state, seller, from), rng.int(4, 12), from, latest(state, seller.launch + 48 * HOUR), 'organic_user');
      const plan = m.add(newAddress(rng, family), 'organic_user', 'honest_launch', 'hard', groupId);
      book.fund(plan.address, pickExchange(rng, family), retailAmount(rng), plan.start - rng.int(DAY, 30 * DAY));
    }
  }

  // An honest hourly bot that also polls a farm seller.
  const oldEnough = state.farms.filter((f) => f.seller.launch <= now - 10 * DAY);
  const farms = oldEnough.length > 0 ? oldEnough : state.farms;
  for (let g = 0; g < scaled(2, scale) && farms.length > 0; g++) {
    const farm = farms[g % farms.length]!;
    const service = farm.seller.services[0]!;
    const start = Math.min(now - 2 * HOUR, catalog.services[service]!.firstSeen + rng.int(HOUR, DAY));
    planBot(state.ctx, rng, {
      chain: farm.seller.chain,
      period: HOUR,
      start,
      end: start + rng.uniform(20, 40) * DAY,
      forced: [service],
      extraLegs: rng.int(1, 2),
      pattern: 'bot_touching_farm',
      difficulty: 'hard',
    });
  }

  // Organic users withdrawn from the same exchange hot wallet on the same day to the same popular service.
  for (let g = 0; g < scaled(1, scale); g++) {
    const groupId = `cex_shared_funder-${g + 1}`;
    const exchange = pickExchange(rng, 'evm');
    const day = Math.floor(now - rng.uniform(5, 30) * DAY);
    const popular = pool.sample(rng, 'base', day);
    if (popular < 0) break;
    for (let i = rng.int(12, 20); i > 0; i--) {
      const fundTime = day + rng.int(0, 20 * HOUR);
      const plan = planOrganic(state.ctx, rng, {
        chain: 'base',
        start: fundTime + rng.int(5 * MINUTE, 3 * HOUR),
        forced: [{ service: popular, count: clamp(Math.round(rng.logNormal(0.3, 1)), 1, 40) }],
        sellers: rng.weighted([0, 1, 2], [50, 35, 15]),
        pattern: 'cex_shared_funder',
        difficulty: 'hard',
        groupId,
        fund: false,
      });
      book.fund(plan.address, exchange, rng.weighted([20, 50, 100], [40, 40, 20]), fundTime);
    }
  }
}
