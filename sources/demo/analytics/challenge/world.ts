import { Rng } from '../../random.ts';
import {
  Builder,
  type BuiltWorld,
  DAY,
  farmSeller,
  fundThrough,
  HISTORY_DAYS,
  HOUR,
  lognormalCount,
  MINUTE,
  organicUse,
  relayTree,
  type Service,
  sessionTimes,
  washCalls,
} from './builder.ts';
import { CHALLENGE_GROUPS, ORGANIC, type ParameterizedPattern, type Split } from './regimes.ts';

export type { PlantedGroup } from './builder.ts';

export interface ChallengeOptions {
  seed: number;
  split: Split;
  now: Date;
}

export type ChallengeWorld = BuiltWorld;

// ------------------------------------------------------------------------------ wash patterns

function plantCoordinated(b: Builder, split: Split, i: number): void {
  const q = b.draw('coordinated_cohort', split);
  const gid = b.group('coordinated_cohort', i, q, q.cohortSize);
  const t0 = b.now - b.rng.uniform(20, 150) * DAY;
  const farm = farmSeller(b, t0 - b.rng.uniform(1, 10) * DAY);
  const operator = b.address();
  b.fundFromExchange(operator, t0 - 2 * DAY, 5000);
  for (let k = 0; k < q.cohortSize; k++) {
    const w = b.address();
    b.buyer(w, 'coordinated_cohort', gid);
    const start = t0 + b.rng.next() * q.startSpreadHours * HOUR;
    b.fund(w, operator, b.rng.uniform(20, 60), t0 - b.rng.uniform(0.1, 1) * HOUR);
    washCalls(b, w, farm, lognormalCount(b.rng, q.callsMedian, q.callsSigma), start, start + b.rng.uniform(5, 25) * DAY);
  }
}

function plantRelayFunded(b: Builder, split: Split, i: number): void {
  const q = b.draw('relay_funded', split);
  const gid = b.group('relay_funded', i, q, q.cohortSize);
  const t0 = b.now - b.rng.uniform(20, 150) * DAY;
  const farm = farmSeller(b, t0 - b.rng.uniform(1, 10) * DAY);
  const operator = b.address();
  b.fundFromExchange(operator, t0 - 3 * DAY, 8000);
  const relays = relayTree(b, operator, q.hops, t0);
  for (let k = 0; k < q.cohortSize; k++) {
    const w = b.address();
    b.buyer(w, 'relay_funded', gid);
    const start = t0 + b.rng.next() * q.startSpreadHours * HOUR;
    fundThrough(b, operator, w, q.hops, start - HOUR, b.rng.uniform(20, 60), relays);
    washCalls(b, w, farm, lognormalCount(b.rng, q.callsMedian, 0.2), start, start + b.rng.uniform(5, 25) * DAY);
  }
}

function plantSellerFundedRing(b: Builder, split: Split, i: number): void {
  const q = b.draw('seller_funded_ring', split);
  const gid = b.group('seller_funded_ring', i, q, q.cohortSize);
  const t0 = b.now - b.rng.uniform(20, 150) * DAY;
  const farm = farmSeller(b, t0 - b.rng.uniform(1, 10) * DAY);
  const seller = farm[0]!.seller;
  b.fundFromExchange(seller, t0 - 20 * DAY, 10000);
  const relays = relayTree(b, seller, q.hops, t0);
  for (let k = 0; k < q.cohortSize; k++) {
    const w = b.address();
    b.buyer(w, 'seller_funded_ring', gid);
    const start = t0 + b.rng.next() * 2 * DAY;
    fundThrough(b, seller, w, q.hops, start - HOUR, b.rng.uniform(20, 60), relays);
    washCalls(b, w, farm, lognormalCount(b.rng, q.callsMedian, 0.3), start, start + b.rng.uniform(5, 25) * DAY);
  }
}

function plantSybilSpread(b: Builder, split: Split, i: number): void {
  const q = b.draw('sybil_spread', split);
  const gid = b.group('sybil_spread', i, q, q.cohortSize);
  const t0 = b.now - b.rng.uniform(q.startSpreadDays + 15, Math.max(q.startSpreadDays + 20, 170)) * DAY;
  const farm = farmSeller(b, t0 - b.rng.uniform(1, 10) * DAY);
  const funder = b.address();
  b.fundFromExchange(funder, t0 - DAY, 5000);
  for (let k = 0; k < q.cohortSize; k++) {
    const w = b.address();
    b.buyer(w, 'sybil_spread', gid);
    // each wallet is funded when it starts, not all at once
    const start = t0 + b.rng.next() * q.startSpreadDays * DAY;
    b.fund(w, funder, b.rng.uniform(10, 80), start - b.rng.uniform(0.2, 12) * HOUR);
    washCalls(b, w, farm, lognormalCount(b.rng, q.callsMedian, q.callsSigma), start, start + b.rng.uniform(3, 30) * DAY);
  }
}

function plantVanityExchange(b: Builder, split: Split, i: number): void {
  const q = b.draw('vanity_exchange', split);
  const gid = b.group('vanity_exchange', i, q, q.cohortSize);
  const prefix = b.rng.hex(q.prefixChars);
  const suffix = b.rng.hex(q.suffixChars);
  const t0 = b.now - b.rng.uniform(q.startSpreadDays + 15, Math.max(q.startSpreadDays + 20, 170)) * DAY;
  const farm = farmSeller(b, t0 - b.rng.uniform(1, 10) * DAY);
  for (let k = 0; k < q.cohortSize; k++) {
    const w = b.address(prefix, suffix);
    b.buyer(w, 'vanity_exchange', gid);
    const start = t0 + b.rng.next() * q.startSpreadDays * DAY;
    // no shared funder: each wallet withdraws from an exchange on its own
    b.fundFromExchange(w, start - b.rng.uniform(0.5, 48) * HOUR);
    washCalls(b, w, farm, lognormalCount(b.rng, 30, 0.5), start, start + b.rng.uniform(5, 30) * DAY);
  }
}

function plantRoundTrip(b: Builder, split: Split, i: number): void {
  const q = b.draw('round_trip', split);
  const gid = b.group('round_trip', i, q, q.buyers);
  const t0 = b.now - b.rng.uniform(q.rounds * 5 + 10, 170) * DAY;
  const farm = farmSeller(b, t0 - b.rng.uniform(1, 10) * DAY);
  const seller = farm[0]!.seller;
  const wallets = Array.from({ length: q.buyers }, () => b.address());
  // relays the seller returns the money through (fresh per loop, reused across rounds)
  const relays = Array.from({ length: q.returnHops - 1 }, () => b.address());
  wallets.forEach((w) => {
    b.buyer(w, 'round_trip', gid);
    b.fundFromExchange(w, t0 - b.rng.uniform(1, 72) * HOUR, b.rng.uniform(50, 300));
  });
  let t = t0;
  for (let r = 0; r < q.rounds; r++) {
    for (const w of wallets) {
      const s = b.rng.pick(farm);
      let paid = 0;
      for (const at of sessionTimes(b.rng, q.callsPerRound, t, t + DAY)) {
        b.pay(w, s, at, 'suspected_wash');
        paid += s.price;
      }
      // the seller sends (about) the money back, directly or through relays: a cycle of funds
      let back = t + b.rng.uniform(1.2, 2) * DAY;
      let from = seller;
      for (const relay of relays) {
        b.fund(relay, from, paid * b.rng.uniform(0.97, 1), back);
        from = relay;
        back += b.rng.uniform(0.5, 3) * HOUR;
      }
      b.fund(w, from, paid * b.rng.uniform(0.9, 0.97), back);
    }
    t += b.rng.uniform(2.5, 5) * DAY;
  }
}

// ------------------------------------------------------------------------------ honest traffic

function plantHackathon(b: Builder, split: Split, i: number): void {
  const q = b.draw('hackathon', split);
  const gid = b.group('hackathon', i, q, q.developers);
  // an afternoon: 13:00-14:00 UTC on some day
  const day = Math.floor((b.now - b.rng.uniform(10, 160) * DAY) / DAY) * DAY;
  const t0 = day + 13 * HOUR + b.rng.next() * HOUR;
  const sponsor = b.address();
  const fresh = b.service(sponsor, t0 - b.rng.uniform(1, 3) * HOUR, true, b.rng.pick([0.001, 0.005, 0.01]));
  const faucet = b.address();
  b.fundFromExchange(faucet, t0 - DAY, 2000);
  for (let k = 0; k < q.developers; k++) {
    const w = b.address();
    b.buyer(w, 'hackathon', gid);
    const start = t0 + b.rng.next() * q.startWindowHours * HOUR;
    b.fund(w, faucet, 5, start - b.rng.uniform(5, 40) * MINUTE);
    const bursts = b.rng.int(1, 4);
    for (let j = 0; j < bursts; j++) {
      // bursts the same afternoon and evening, first one at the start
      let t = j === 0 ? start : start + b.rng.uniform(0.2, 8) * HOUR;
      for (let c = b.rng.int(5, 30); c > 0; c--) {
        b.pay(w, fresh, t, 'developer');
        t += 1000 * b.rng.logNormal(Math.log(q.burstSpacingSeconds), 0.4);
      }
    }
    if (b.rng.chance(q.shareTryingOthers)) {
      for (let o = b.rng.int(1, 3); o > 0; o--) {
        const s = b.popularHonest();
        for (let c = b.rng.int(1, 4); c > 0; c--) b.pay(w, s, start + b.rng.uniform(0.5, 30) * HOUR, 'organic_user');
      }
    }
  }
}

function plantAgentFleet(b: Builder, split: Split, i: number): void {
  const q = b.draw('agent_fleet', split);
  const gid = b.group('agent_fleet', i, q, q.agents);
  const t0 = b.now - b.rng.uniform(q.fundingSpreadDays + 30, 170) * DAY;
  const treasury = b.address();
  b.fundFromExchange(treasury, t0 - 2 * DAY, 20000);
  for (let k = 0; k < q.agents; k++) {
    const w = b.address();
    b.buyer(w, 'agent_fleet', gid);
    const start = t0 + b.rng.next() * q.fundingSpreadDays * DAY;
    b.fund(w, treasury, b.rng.uniform(20, 100), start - b.rng.uniform(0.1, 6) * HOUR);
    const end = Math.min(b.now, start + b.rng.uniform(14, 60) * DAY);
    const chosen = new Set<Service>();
    while (chosen.size < Math.min(q.servicesPerAgent, b.honestServices.length)) chosen.add(b.rng.pick(b.honestServices));
    for (const s of chosen) {
      const n = lognormalCount(b.rng, q.callsPerService, 0.7);
      // agents pay by usage (upto schemes): amounts vary around the list price
      for (let c = 0; c < n; c++) b.pay(w, s, start + b.rng.next() * (end - start), 'ai_agent', s.price * b.rng.logNormal(0, 0.6));
    }
  }
}

function plantHeavySingle(b: Builder, split: Split, i: number): void {
  const q = b.draw('heavy_single', split);
  b.group('heavy_single', i, q, 1);
  const w = b.address();
  b.buyer(w, 'heavy_single', null);
  const s = b.popularHonest(b.now - (q.spanDays + 2) * DAY);
  const start = Math.max(s.firstSeen, b.now - b.rng.uniform(q.spanDays + 1, 175) * DAY);
  b.fundFromExchange(w, start - b.rng.uniform(1, 72) * HOUR, 500);
  for (const t of sessionTimes(b.rng, q.calls, start, start + q.spanDays * DAY)) b.pay(w, s, t, 'organic_user');
}

function plantAnalyticsBot(b: Builder, split: Split, i: number): void {
  const q = b.draw('analytics_bot', split);
  b.group('analytics_bot', i, q, 1);
  const w = b.address();
  b.buyer(w, 'analytics_bot', null);
  const polled = Array.from({ length: q.services }, () => b.popularHonest(b.now - (q.spanDays + 2) * DAY));
  const start = Math.max(...polled.map((s) => s.firstSeen), b.now - b.rng.uniform(q.spanDays + 1, 175) * DAY);
  b.fundFromExchange(w, start - b.rng.uniform(1, 48) * HOUR);
  const period = q.periodMinutes * MINUTE;
  for (let t = start; t < Math.min(b.now, start + q.spanDays * DAY); t += period) {
    polled.forEach((s, j) => b.pay(w, s, t + j * b.rng.uniform(1000, 5000) + b.rng.uniform(-0.02, 0.02) * period, 'analytics_bot'));
  }
}

function plantVerifier(b: Builder, split: Split, i: number): void {
  const q = b.draw('verifier', split);
  b.group('verifier', i, q, 1);
  const w = b.address();
  b.buyer(w, 'verifier', null);
  const recent = b.honestServices.filter((s) => s.firstSeen > b.now - 150 * DAY && s.firstSeen < b.now - 4 * DAY);
  const visited = b.rng.shuffle([...recent]).slice(0, q.listings);
  const first = Math.min(...visited.map((s) => s.firstSeen));
  b.fundFromExchange(w, first - b.rng.uniform(1, 10) * DAY);
  for (const s of visited) {
    const t = s.firstSeen + Math.min(71 * HOUR, b.rng.logNormal(Math.log(q.delayHours * HOUR), 0.5));
    for (let c = b.rng.int(1, 3), k = 0; k < c; k++) b.pay(w, s, t + k * b.rng.uniform(5, 600) * 1000, 'verifier');
  }
}

function plantSellerTest(b: Builder, split: Split, i: number): void {
  const q = b.draw('seller_test', split);
  const s = b.rng.pick(b.honestServices.filter((x) => x.firstSeen < b.now - 10 * DAY));
  const gid = b.group('seller_test', i, q, q.wallets);
  for (let k = 0; k < q.wallets; k++) {
    const w = b.address();
    b.buyer(w, 'seller_test', gid);
    const start = s.firstSeen + b.rng.uniform(-2, 24) * HOUR;
    b.fund(w, s.seller, b.rng.uniform(1, 10), start - b.rng.uniform(0.1, 2) * HOUR);
    for (const t of sessionTimes(b.rng, b.rng.int(2, 12), start, start + b.rng.uniform(0.1, 3) * DAY)) b.pay(w, s, t, 'self_test');
  }
}

function plantOrganic(b: Builder): void {
  for (let k = 0; k < ORGANIC.users; k++) {
    const w = b.address();
    b.buyer(w, 'organic', null);
    const start = organicUse(b, w, null);
    b.withdraw(w, start - b.rng.uniform(0.5, 200) * HOUR);
  }
}

// ------------------------------------------------------------------------------ issue 29: wash

/**
 * One owner, several small services: the sellers and the fake buyers are funded from one root,
 * directly or through relays; each buyer spreads its calls over several of the operator's sellers,
 * so no one seller's cohort looks concentrated; the sellers sweep their takings back to the root,
 * and each service also has a few organic buyers.
 */
function plantOperatorManySellers(b: Builder, split: Split, i: number): void {
  const q = b.draw('operator_many_sellers', split);
  const gid = b.group('operator_many_sellers', i, q, q.buyers);
  const t0 = b.now - b.rng.uniform(q.startSpreadDays + 20, Math.max(q.startSpreadDays + 25, 165)) * DAY;
  const root = b.address();
  b.fundFromExchange(root, t0 - 40 * DAY, 20000);
  const relays = relayTree(b, root, q.hops, t0 - 30 * DAY);
  const sellers: Array<{ seller: string; services: Service[] }> = [];
  for (let k = 0; k < q.sellers; k++) {
    const seller = b.address();
    const listed = t0 - b.rng.uniform(2, 20) * DAY;
    fundThrough(b, root, seller, q.hops, listed - b.rng.uniform(1, 48) * HOUR, b.rng.uniform(20, 200), relays);
    const n = b.rng.int(1, 2);
    const services = Array.from({ length: n }, () => b.service(seller, listed, false, b.rng.pick([0.005, 0.01, 0.02, 0.05, 0.1])));
    sellers.push({ seller, services });
    // weekly sweeps of the takings to the root: a funding cycle root -> seller -> root
    for (let t = t0 + b.rng.uniform(3, 7) * DAY; t < b.now; t += b.rng.uniform(6, 8) * DAY) {
      b.fund(root, seller, b.rng.uniform(5, 80), t);
    }
  }
  const perBuyer = Math.max(2, Math.round(q.sellerShare * q.sellers));
  for (let k = 0; k < q.buyers; k++) {
    const w = b.address();
    b.buyer(w, 'operator_many_sellers', gid);
    const start = t0 + b.rng.next() * q.startSpreadDays * DAY;
    fundThrough(b, root, w, q.hops, start - b.rng.uniform(0.5, 24) * HOUR, b.rng.uniform(20, 80), relays);
    const mine = b.rng
      .shuffle([...sellers])
      .slice(0, Math.min(perBuyer, sellers.length))
      .flatMap((x) => x.services);
    washCalls(b, w, mine, lognormalCount(b.rng, q.callsMedian, 0.5), start, start + b.rng.uniform(5, 40) * DAY);
  }
  // organic traffic on the operator's services (real users who found them)
  for (const { services } of sellers) {
    for (const s of services) {
      for (let k = 0; k < q.organicBuyers; k++) {
        const w = b.address();
        b.buyer(w, 'organic', null);
        const start = organicUse(b, w, s.firstSeen + b.rng.uniform(1, 60) * DAY, { first: s });
        b.withdraw(w, start - b.rng.uniform(0.5, 200) * HOUR);
      }
    }
  }
}

/**
 * Fake buyers funded by a burst of near-equal withdrawals from the large exchange (the one that
 * funds many honest users) to fresh wallets, which then pay only one seller, or one operator's
 * sellers, and make up most of its buyers.
 */
function plantExchangeBurst(b: Builder, split: Split, i: number): void {
  const q = b.draw('exchange_burst', split);
  const gid = b.group('exchange_burst', i, q, q.wallets);
  const t0 = b.now - b.rng.uniform(20, 150) * DAY;
  const root = b.address();
  b.fundFromExchange(root, t0 - 30 * DAY, 3000);
  const farm: Service[] = [];
  for (let k = 0; k < q.sellers; k++) {
    const seller = b.address();
    const listed = t0 - b.rng.uniform(1, 10) * DAY;
    b.fund(seller, root, b.rng.uniform(10, 100), listed - b.rng.uniform(1, 48) * HOUR);
    farm.push(b.service(seller, listed, false, b.rng.pick([0.01, 0.02, 0.05, 0.1])));
  }
  // a round amount less the exchange's fee, varied by the spread (different fees, partial fills)
  const amount = b.rng.pick([20, 25, 50, 100]) - b.rng.pick([0, 0.1, 0.5]);
  for (let k = 0; k < q.wallets; k++) {
    const w = b.address();
    b.buyer(w, 'exchange_burst', gid);
    const at = t0 + b.rng.next() * q.burstHours * HOUR;
    b.fund(w, b.largeExchange, amount * (1 + b.rng.uniform(-q.amountSpread, q.amountSpread)), at);
    const start = at + b.rng.logNormal(Math.log(q.startDelayHours * HOUR), 0.5);
    washCalls(b, w, farm, lognormalCount(b.rng, q.callsMedian, 0.4), start, start + b.rng.uniform(5, 30) * DAY);
  }
  for (let k = 0; k < q.organicBuyers; k++) {
    const w = b.address();
    b.buyer(w, 'organic', null);
    const start = organicUse(b, w, t0 + b.rng.uniform(0, 30) * DAY, { first: b.rng.pick(farm) });
    b.withdraw(w, start - b.rng.uniform(0.5, 200) * HOUR);
  }
}

// ------------------------------------------------------------------------------ issue 29: honest crowds

/**
 * A developer event: one organisation funds every attendee the same amount; everyone starts within
 * the hour and calls several services, the sponsor's first, the event's partner list after.
 */
function plantDevEvent(b: Builder, split: Split, i: number): void {
  const q = b.draw('dev_event', split);
  const gid = b.group('dev_event', i, q, q.attendees);
  const day = Math.floor((b.now - b.rng.uniform(10, 160) * DAY) / DAY) * DAY;
  const t0 = day + b.rng.uniform(9, 17) * HOUR;
  const org = b.address();
  b.fundFromExchange(org, t0 - 3 * DAY, 5000);
  const sponsor = b.address();
  const sponsored = Array.from({ length: q.sponsorServices }, () =>
    b.service(sponsor, t0 - b.rng.uniform(0.1, 30) * DAY, true, b.rng.pick([0.001, 0.005, 0.01])),
  );
  const partners = b.distinctPopular(6, t0);
  const grant = b.rng.pick([5, 10, 20]);
  for (let k = 0; k < q.attendees; k++) {
    const w = b.address();
    b.buyer(w, 'dev_event', gid);
    b.fund(w, org, grant, t0 - b.rng.uniform(10, 90) * MINUTE);
    const start = t0 + b.rng.next() * q.startWindowMinutes * MINUTE;
    const others = b.rng.shuffle([...sponsored.slice(1), ...partners]).slice(0, q.servicesPerAttendee - 1);
    let t = start;
    for (const s of [sponsored[0]!, ...others]) {
      // trying an API: a few calls seconds to a minute apart, then on to the next
      for (let c = lognormalCount(b.rng, q.callsPerService, 0.6); c > 0; c--) {
        b.pay(w, s, t, 'developer');
        t += 1000 * b.rng.logNormal(Math.log(20), 0.9);
      }
      t += b.rng.uniform(5, 90) * MINUTE;
    }
  }
}

/** Wallet-provider onboarding: a paymaster gives every sign-up the same small amount; they then use popular services. */
function plantOnboarding(b: Builder, split: Split, i: number): void {
  const q = b.draw('onboarding', split);
  const gid = b.group('onboarding', i, q, q.signups);
  const t0 = b.now - b.rng.uniform(q.signupSpreadDays + 20, 170) * DAY;
  const paymaster = b.address();
  b.fundFromExchange(paymaster, t0 - 5 * DAY, 20000);
  const grant = Math.round(q.grantUsd * 100) / 100;
  for (let k = 0; k < q.signups; k++) {
    const w = b.address();
    b.buyer(w, 'onboarding', gid);
    const signup = t0 + b.rng.next() * q.signupSpreadDays * DAY;
    b.fund(w, paymaster, grant, signup);
    organicUse(b, w, signup + b.rng.uniform(0.05, 72) * HOUR, { extraServicesMean: q.extraServicesMean, callsMedian: q.callsMedian });
    // some add their own money later
    if (b.rng.chance(0.3)) b.withdraw(w, signup + b.rng.uniform(1, 30) * DAY);
  }
}

/** A viral fixed-price API: many unrelated wallets (varied funders) pay one service its one price. */
function plantViralApi(b: Builder, split: Split, i: number): void {
  const q = b.draw('viral_api', split);
  const gid = b.group('viral_api', i, q, q.buyers);
  const t0 = b.now - b.rng.uniform(q.arrivalDays + 10, 150) * DAY;
  const svc = b.service(b.address(), t0 - b.rng.uniform(1, 10) * DAY, true, b.rng.pick([0.01, 0.02, 0.05]));
  for (let k = 0; k < q.buyers; k++) {
    const w = b.address();
    b.buyer(w, 'viral_api', gid);
    // most arrive early, a tail later
    const start = t0 + Math.min(b.rng.exponential(q.arrivalDays / 3), 2 * q.arrivalDays) * DAY;
    const funded = start - b.rng.uniform(0.2, 240) * HOUR;
    if (b.rng.chance(0.5)) b.withdraw(w, funded);
    else {
      // a friend, another wallet of the user's, a bridge: funders nobody shares
      const friend = b.address();
      b.withdraw(friend, funded - b.rng.uniform(1, 60) * DAY);
      b.fund(w, friend, b.rng.uniform(2, 50), funded);
    }
    const end = Math.min(b.now, start + b.rng.logNormal(Math.log(10 * DAY), 1));
    for (const t of sessionTimes(b.rng, lognormalCount(b.rng, q.callsMedian, 0.8), start, end)) b.pay(w, svc, t, 'organic_user');
    if (!b.rng.chance(q.shareOnlyThis)) organicUse(b, w, start + b.rng.uniform(0, 10) * DAY);
  }
}

/**
 * A company's CI fleet: wallets funded by the company treasury (which the company's seller sweeps
 * its takings to) call the company's own endpoints and a few others' on a schedule.
 */
function plantCiFleet(b: Builder, split: Split, i: number): void {
  const q = b.draw('ci_fleet', split);
  const gid = b.group('ci_fleet', i, q, q.wallets);
  const start = b.now - b.rng.uniform(q.spanDays + 2, Math.max(q.spanDays + 5, 170)) * DAY;
  const end = Math.min(b.now, start + q.spanDays * DAY);
  const treasury = b.address();
  b.fundFromExchange(treasury, start - 10 * DAY, 20000);
  const company = b.address();
  const own = Array.from({ length: q.ownEndpoints }, () =>
    b.service(company, start - b.rng.uniform(1, 20) * DAY, true, b.rng.pick([0.001, 0.005, 0.01])),
  );
  for (let t = start + b.rng.uniform(3, 7) * DAY; t < b.now; t += b.rng.uniform(6, 8) * DAY)
    b.fund(treasury, company, b.rng.uniform(1, 50), t);
  const deps = b.distinctPopular(q.dependencies, start);
  const period = q.periodMinutes * MINUTE;
  for (let k = 0; k < q.wallets; k++) {
    const w = b.address();
    b.buyer(w, 'ci_fleet', gid);
    b.fund(w, treasury, b.rng.pick([20, 50, 100]), start - b.rng.uniform(1, 24) * HOUR);
    // each pipeline runs on its own offset; a run takes a few seconds per call
    for (let t = start + b.rng.next() * period; t < end; t += period * b.rng.uniform(0.98, 1.02)) {
      let at = t;
      for (const s of own) {
        b.pay(w, s, at, 'self_test');
        at += b.rng.uniform(1, 20) * 1000;
      }
      for (const s of deps) {
        b.pay(w, s, at, 'analytics_bot');
        at += b.rng.uniform(1, 20) * 1000;
      }
    }
  }
}

/** A research crawler: a wallet (or a few) paying a large share of every listed service once per crawl. */
function plantResearchCrawler(b: Builder, split: Split, i: number): void {
  const q = b.draw('research_crawler', split);
  const gid = b.group('research_crawler', i, q, q.wallets);
  const first = b.now - b.rng.uniform(q.crawls * 35 + 5, 175) * DAY;
  const funder = b.address();
  b.fundFromExchange(funder, first - 5 * DAY, 1000);
  const wallets = Array.from({ length: q.wallets }, () => {
    const w = b.address();
    b.buyer(w, 'research_crawler', gid);
    b.fund(w, funder, b.rng.uniform(20, 100), first - b.rng.uniform(1, 48) * HOUR);
    return w;
  });
  let at = first;
  for (let c = 0; c < q.crawls; c++) {
    // every listing, the wash farms' too: a crawler does not know which is which
    const listed = b.services.filter((s) => s.firstSeen < at);
    const visited = b.rng.shuffle([...listed]).slice(0, Math.max(1, Math.round(q.coverage * listed.length)));
    visited.forEach((s, n) => b.pay(wallets[n % wallets.length]!, s, at + b.rng.next() * q.crawlHours * HOUR, 'verifier'));
    at += b.rng.uniform(25, 35) * DAY;
  }
}

/** A payroll cohort: wallets paid identical amounts on the same day by one payer, then spending as organic users. */
function plantPayroll(b: Builder, split: Split, i: number): void {
  const q = b.draw('payroll', split);
  const gid = b.group('payroll', i, q, q.employees);
  const firstDay = Math.floor((b.now - b.rng.uniform(q.paydays * 31 + 10, 170) * DAY) / DAY) * DAY;
  const payer = b.address();
  b.fundFromExchange(payer, firstDay - 5 * DAY, 200000);
  const salary = b.rng.pick([250, 500, 1000, 1500]);
  // colleagues who never pay for a service are paid too (they are in the funding data, not the truth)
  const silent = b.rng.int(0, q.employees);
  const staff = Array.from({ length: q.employees + silent }, () => b.address());
  for (let d = 0; d < q.paydays; d++) {
    const day = firstDay + d * 30 * DAY + 9 * HOUR;
    for (const w of staff) b.fund(w, payer, salary, day + b.rng.next() * q.payWindowMinutes * MINUTE);
  }
  for (const w of staff.slice(0, q.employees)) {
    b.buyer(w, 'payroll', gid);
    organicUse(b, w, firstDay + b.rng.uniform(0.5, 20) * DAY, { callsMedian: q.callsMedian });
  }
}

const PLANTERS: Record<ParameterizedPattern, (b: Builder, split: Split, i: number) => void> = {
  coordinated_cohort: plantCoordinated,
  relay_funded: plantRelayFunded,
  seller_funded_ring: plantSellerFundedRing,
  sybil_spread: plantSybilSpread,
  vanity_exchange: plantVanityExchange,
  round_trip: plantRoundTrip,
  hackathon: plantHackathon,
  agent_fleet: plantAgentFleet,
  heavy_single: plantHeavySingle,
  analytics_bot: plantAnalyticsBot,
  verifier: plantVerifier,
  seller_test: plantSellerTest,
  // after the issue 15 patterns, so those keep their draws
  operator_many_sellers: plantOperatorManySellers,
  exchange_burst: plantExchangeBurst,
  dev_event: plantDevEvent,
  onboarding: plantOnboarding,
  viral_api: plantViralApi,
  ci_fleet: plantCiFleet,
  research_crawler: plantResearchCrawler,
  payroll: plantPayroll,
};

export function challengeWorld(opts: ChallengeOptions): ChallengeWorld {
  const now = opts.now.getTime();
  if (!Number.isInteger(opts.seed)) throw new Error(`challengeWorld: seed must be an integer, got ${opts.seed}`);
  if (!Number.isFinite(now)) throw new Error('challengeWorld: now must be a valid Date');
  const b = new Builder(new Rng(opts.seed, `x402-challenge:${opts.split}`), now);

  // honest sellers: 150, each with 1-4 services listed over the history
  for (let k = 0; k < 150; k++) {
    const seller = b.address();
    const listed = now - b.rng.uniform(5, HISTORY_DAYS) * DAY;
    for (let j = b.rng.int(1, 4); j > 0; j--) b.service(seller, listed + b.rng.uniform(0, 30) * DAY, true);
  }
  for (const pattern of Object.keys(PLANTERS) as ParameterizedPattern[]) {
    for (let i = 0; i < CHALLENGE_GROUPS[pattern]; i++) PLANTERS[pattern](b, opts.split, i);
  }
  plantOrganic(b);

  return b.rows({
    title: 'Challenge',
    world: 'challenge-world',
    exchange: 'challenge-exchange',
    difficulty: opts.split === 'in' ? 'medium' : 'hard',
  });
}
