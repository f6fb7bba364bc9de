/**
 * The patterns issue 15's independent test found the classifier getting wrong, planted in the demo
 * world so the demo and eval:wash show them: wash the classic signals miss (sybil_spread,
 * vanity_exchange, round_trip) and the honest look-alikes it flagged or mislabelled (hackathon,
 * agent_fleet, heavy_single). Pattern names, truth labels and every group's parameters come from
 * the challenge world's one table (challenge/regimes.ts), drawn from its "in" ranges; the
 * challenge world's "ood" split is what eval:wash scores as out of distribution.
 *
 * Truth conventions as in patterns.ts: difficulty 'hard' for all (the rules were not written
 * for them); wash wallets are suspected_wash on every pair, sprinkles included; a hackathon
 * developer's calls to other services are organic_user pairs; group_id `<pattern>-<n>`, none for
 * the independent heavy single-service users. Group counts scale with the world (scaled()).
 */
import type { AnalyticsChain } from '../../../catalog/categories.ts';
import { type CHALLENGE_PATTERNS, drawParameters } from './challenge/regimes.ts';
import { evmAddress, Rng } from '../random.ts';
import { addressFamily, newAddress, pickExchange } from './addresses.ts';
import { DAY, HOUR, MINUTE, pickChain } from './catalog.ts';
import { agentSessions, scaled } from './honest.ts';
import { distinctPrices, farmSeller, groupStart, launchBefore, latest, MemberBuilder, type PatternState } from './patterns.ts';
import { clamp, LegSet, type PlanContext, pickTimezone } from './plans.ts';

/** Groups per pattern at scale 1 (heavy_single: wallets). About 170 wallets and 10,000 payments. */
export const DEMO_CHALLENGE_GROUPS = {
  sybil_spread: 2,
  vanity_exchange: 2,
  round_trip: 3,
  hackathon: 2,
  agent_fleet: 2,
  heavy_single: 8,
} as const satisfies Partial<Record<keyof typeof CHALLENGE_PATTERNS, number>>;

export function plantChallengePatterns(ctx: PlanContext, seed: number): void {
  const state: PatternState = { ctx, claimed: new Set(), farms: [] };
  const n = (pattern: keyof typeof DEMO_CHALLENGE_GROUPS) => scaled(DEMO_CHALLENGE_GROUPS[pattern], ctx.scale);
  const sybil = Rng.stream(seed, 'x402:sybil-spread');
  for (let g = 0; g < n('sybil_spread'); g++) plantSybilSpread(state, sybil, g);
  const vanity = Rng.stream(seed, 'x402:vanity-exchange');
  for (let g = 0; g < n('vanity_exchange'); g++) plantVanityExchange(state, vanity, g);
  const roundTrip = Rng.stream(seed, 'x402:round-trip');
  for (let g = 0; g < n('round_trip'); g++) plantRoundTrip(state, roundTrip, g);
  const hackathon = Rng.stream(seed, 'x402:hackathon');
  for (let g = 0; g < n('hackathon'); g++) plantHackathon(state, hackathon, g);
  const fleet = Rng.stream(seed, 'x402:agent-fleet');
  for (let g = 0; g < n('agent_fleet'); g++) plantAgentFleet(state, fleet, g);
  const heavy = Rng.stream(seed, 'x402:heavy-single');
  for (let i = 0; i < n('heavy_single'); i++) plantHeavySingle(state, heavy);
}

const lognormalCount = (rng: Rng, median: number, sigma: number): number => Math.max(1, Math.round(rng.logNormal(Math.log(median), sigma)));

/** A start `days` of activity can follow: a `recent` kind's first group in the last weeks, others older. */
function startRoom(state: PatternState, rng: Rng, g: number, days: number, recent = false): number {
  const t = groupStart(state, rng, g, recent);
  return Math.min(t, state.ctx.now - (days + 1) * DAY);
}

// ------------------------------------------------------------------------------ wash

/** One funder, wallets funded as they start over days, lognormally spread call counts. */
function plantSybilSpread(state: PatternState, rng: Rng, g: number): void {
  const { book, now } = state.ctx;
  const q = drawParameters(rng, 'sybil_spread', 'in');
  const groupId = `sybil_spread-${g + 1}`;
  const chain: AnalyticsChain = rng.weighted(['base', 'solana', 'polygon'] as const, [60, 30, 10]);
  const family = addressFamily(chain);
  const t0 = startRoom(state, rng, g, q.startSpreadDays + 3);
  const farm = farmSeller(state, rng, chain, launchBefore(state, rng, t0, 1, 10), distinctPrices(rng, rng.int(1, 2)));
  const funder = newAddress(rng, family);
  book.fund(funder, pickExchange(rng, family), Math.ceil(q.cohortSize * 100), t0 - rng.int(DAY, 3 * DAY));
  for (let i = 0; i < q.cohortSize; i++) {
    const start = latest(state, t0 + Math.floor(rng.next() * q.startSpreadDays * DAY));
    const to = Math.min(now, start + rng.uniform(3, 30) * DAY);
    const m = new MemberBuilder(state);
    m.pay(rng, farm.services, lognormalCount(rng, q.callsMedian, q.callsSigma), start, to, 'suspected_wash');
    if (rng.chance(0.3)) m.sprinkle(rng, chain, 1, () => rng.int(1, 2), start, to, 'suspected_wash');
    const plan = m.add(newAddress(rng, family), 'suspected_wash', 'sybil_spread', 'hard', groupId);
    // each wallet is funded when it starts, not all at once
    book.fund(plan.address, funder, Math.round(rng.uniform(10, 80) * 100) / 100, plan.start - rng.int(12 * MINUTE, 12 * HOUR));
  }
}

/** Wallets mined to share a prefix and suffix, each withdrawn from an exchange on its own. */
function plantVanityExchange(state: PatternState, rng: Rng, g: number): void {
  const { book, now } = state.ctx;
  const q = drawParameters(rng, 'vanity_exchange', 'in');
  const groupId = `vanity_exchange-${g + 1}`;
  const chain: AnalyticsChain = rng.weighted(['base', 'polygon'] as const, [80, 20]);
  const prefix = rng.hex(q.prefixChars);
  const suffix = rng.hex(q.suffixChars);
  const t0 = startRoom(state, rng, g, q.startSpreadDays + 3);
  const farm = farmSeller(state, rng, chain, launchBefore(state, rng, t0, 1, 10), distinctPrices(rng, rng.int(1, 2)));
  for (let i = 0; i < q.cohortSize; i++) {
    const start = latest(state, t0 + Math.floor(rng.next() * q.startSpreadDays * DAY));
    const to = Math.min(now, start + rng.uniform(5, 30) * DAY);
    const m = new MemberBuilder(state);
    m.pay(rng, farm.services, lognormalCount(rng, 30, 0.5), start, to, 'suspected_wash');
    if (rng.chance(0.3)) m.sprinkle(rng, chain, 1, () => rng.int(1, 2), start, to, 'suspected_wash');
    const plan = m.add(evmAddress(rng, prefix, suffix), 'suspected_wash', 'vanity_exchange', 'hard', groupId);
    book.fund(plan.address, pickExchange(rng, 'evm'), Math.round(rng.uniform(5, 200)), plan.start - rng.int(30 * MINUTE, 48 * HOUR));
  }
}

/** Buyers pay a farm seller in rounds; between rounds the seller sends (about) the money back. */
function plantRoundTrip(state: PatternState, rng: Rng, g: number): void {
  const { book, catalog, now } = state.ctx;
  const q = drawParameters(rng, 'round_trip', 'in');
  const groupId = `round_trip-${g + 1}`;
  const chain: AnalyticsChain = rng.weighted(['base', 'solana'] as const, [70, 30]);
  const family = addressFamily(chain);
  // The one issue 15 wash kind in the last 30 days, so the published report shows its pattern.
  const t0 = startRoom(state, rng, g, q.rounds * 5 + 2, true);
  const farm = farmSeller(state, rng, chain, launchBefore(state, rng, t0, 1, 10), [rng.pick([0.01, 0.05, 0.1, 0.25])]);
  const service = farm.services[0]!;
  const price = catalog.services[service]!.price;
  // relays the seller returns the money through (returnHops - 1 of them, reused across rounds)
  const relays = Array.from({ length: q.returnHops - 1 }, () => newAddress(rng, family));
  for (let i = 0; i < q.buyers; i++) {
    const m = new MemberBuilder(state);
    const returns: Array<{ amount: number; time: number }> = [];
    let t = t0 + rng.int(0, 6 * HOUR);
    for (let r = 0; r < q.rounds && t + 2 * DAY < now - HOUR; r++) {
      m.pay(rng, [service], q.callsPerRound, t, t + DAY, 'suspected_wash');
      returns.push({ amount: q.callsPerRound * price * rng.uniform(0.9, 0.97), time: t + rng.uniform(1.2, 2) * DAY });
      t += rng.uniform(2.5, 5) * DAY;
    }
    const plan = m.add(newAddress(rng, family), 'suspected_wash', 'round_trip', 'hard', groupId);
    book.fund(plan.address, pickExchange(rng, family), Math.round(rng.uniform(50, 300)), plan.start - rng.int(HOUR, 72 * HOUR));
    for (const back of returns) {
      let from = farm.address;
      let at = back.time;
      for (const relay of relays) {
        book.fund(relay, from, back.amount * rng.uniform(1, 1.03), at);
        from = relay;
        at = Math.min(at + rng.uniform(0.5, 3) * HOUR, now - MINUTE);
      }
      book.fund(plan.address, from, back.amount, at);
    }
  }
}

// ------------------------------------------------------------------------------ honest look-alikes

/**
 * A hackathon: developers funded by one faucet start on a sponsor's new service the same
 * afternoon and call it in bursts seconds apart; some also try popular services.
 */
function plantHackathon(state: PatternState, rng: Rng, g: number): void {
  const { book, catalog, now } = state.ctx;
  const q = drawParameters(rng, 'hackathon', 'in');
  const groupId = `hackathon-${g + 1}`;
  const chain: AnalyticsChain = rng.weighted(['base', 'solana'] as const, [80, 20]);
  const family = addressFamily(chain);
  // 13:00-14:00 UTC on a day at least two days ago (the evening's bursts must be over by now)
  const day = Math.floor(Math.min(groupStart(state, rng, g), now - 2 * DAY) / DAY) * DAY;
  const t0 = day + 13 * HOUR + rng.int(0, HOUR);
  const sponsor = catalog.addSeller({
    role: 'honest',
    chain,
    launch: t0 - rng.int(HOUR, 3 * HOUR),
    endpoints: 1,
    prices: [rng.pick([0.001, 0.005, 0.01])],
    listAllAtLaunch: true,
  });
  const service = sponsor.services[0]!;
  const faucet = newAddress(rng, family);
  book.fund(faucet, pickExchange(rng, family), 2000, t0 - DAY);
  for (let i = 0; i < q.developers; i++) {
    const start = t0 + Math.floor(rng.next() * q.startWindowHours * HOUR);
    const m = new MemberBuilder(state);
    for (let b = rng.int(1, 4), j = 0; j < b; j++) {
      // bursts the same afternoon and evening, the first at the start; calls about q.burstSpacingSeconds apart
      const at = j === 0 ? start : start + Math.floor(rng.uniform(0.2, 8) * HOUR);
      const calls = rng.int(5, 30);
      const spacing = 1000 * q.burstSpacingSeconds * rng.logNormal(0, 0.3);
      m.pay(rng, [service], calls, at, at + Math.floor(calls * spacing), 'developer');
    }
    if (rng.chance(q.shareTryingOthers)) {
      m.sprinkle(rng, chain, rng.int(1, 3), () => rng.int(1, 4), start, Math.min(now, start + 30 * HOUR), 'organic_user');
    }
    const plan = m.add(newAddress(rng, family), 'developer', 'hackathon', 'hard', groupId);
    book.fund(plan.address, faucet, 5, plan.start - rng.int(5 * MINUTE, 40 * MINUTE));
  }
}

/** An agent fleet: one treasury funds agent wallets over weeks, each using many services. */
function plantAgentFleet(state: PatternState, rng: Rng, g: number): void {
  const { book, catalog, pool, now } = state.ctx;
  const q = drawParameters(rng, 'agent_fleet', 'in');
  const groupId = `agent_fleet-${g + 1}`;
  const chain: AnalyticsChain = rng.weighted(['base', 'solana'] as const, [70, 30]);
  const family = addressFamily(chain);
  // room for the funding spread and at least two weeks of work after the last agent is funded
  const t0 = Math.max(pool.timeWithAtLeast(chain, 80), startRoom(state, rng, g, q.fundingSpreadDays + 15));
  const treasury = newAddress(rng, family);
  book.fund(treasury, pickExchange(rng, family), 20000, t0 - rng.int(DAY, 3 * DAY));
  for (let i = 0; i < q.agents; i++) {
    const start = Math.min(t0 + Math.floor(rng.next() * q.fundingSpreadDays * DAY), now - 15 * DAY);
    const end = Math.min(now - MINUTE, start + rng.uniform(14, 60) * DAY);
    const legs = new LegSet(catalog);
    for (let tries = 0; legs.sellerCount < q.servicesPerAgent && tries < 400; tries++) {
      const id = pool.sample(rng, chain, start);
      if (id < 0 || legs.hasSeller(id)) continue;
      legs.add(id, lognormalCount(rng, q.callsPerService, 0.7), 'ai_agent');
    }
    const plan = book.add({
      address: newAddress(rng, family),
      label: 'ai_agent',
      pattern: 'agent_fleet',
      difficulty: 'hard',
      groupId,
      start,
      legs: legs.legs,
      timing: agentSessions(end),
    });
    book.fund(plan.address, treasury, Math.round(rng.uniform(20, 100)), start - rng.int(10 * MINUTE, 6 * HOUR));
  }
}

/** A person who uses one service a lot: hundreds of calls in sessions over one to three months. */
function plantHeavySingle(state: PatternState, rng: Rng): void {
  const { book, catalog, pool, now } = state.ctx;
  const q = drawParameters(rng, 'heavy_single', 'in');
  const chain = pickChain(rng);
  let start = Math.floor(now - rng.uniform(q.spanDays + 1, 300) * DAY);
  start = clamp(start, pool.timeWithAtLeast(chain, 10) + rng.int(0, DAY), now - (q.spanDays + 1) * DAY);
  const service = pool.sample(rng, chain, start);
  const legs = new LegSet(catalog);
  legs.add(service, q.calls, 'organic_user');
  const plan = book.add({
    address: newAddress(rng, addressFamily(chain)),
    label: 'organic_user',
    pattern: 'heavy_single',
    difficulty: 'hard',
    groupId: null,
    start,
    legs: legs.legs,
    timing: {
      kind: 'sessions',
      end: start + q.spanDays * DAY,
      sessionGapMedian: 6 * HOUR,
      sessionGapSigma: 1.2,
      intraGapMedian: 90_000,
      intraGapSigma: 0.8,
      pNewSession: 0.25,
      fit: 'stretch',
      tzHours: pickTimezone(rng),
    },
  });
  book.fund(plan.address, pickExchange(rng, addressFamily(chain)), 500, start - rng.int(HOUR, 72 * HOUR));
}
