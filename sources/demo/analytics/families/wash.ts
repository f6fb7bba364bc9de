/**
 * Wash families (issue 46): payment to a seller financed by the seller's side, or a cohort that is
 * most of a seller's or operator's traffic with no economic life of its own, in the variants a wash
 * trader would use to slip just outside rules of the kinds we have (docs/wash-methodology.md §4-5).
 * Every buyer a family makes is suspected_wash on every pair (camouflage calls to honest services
 * included); real customers its sellers also have are organic users.
 *
 * Operators, relays, sweep wallets and faucets only move money: they are not buyers. Payments and
 * transfers that would fall after `now` have not happened yet and are left out.
 */
import {
  type Builder,
  DAY,
  farmSeller,
  fundThrough,
  HOUR,
  lognormalCount,
  MINUTE,
  organicUse,
  relayTree,
  type Service,
  sessionTimes,
  washCalls,
} from '../challenge/builder.ts';
import { type FamilyDef, family, param } from './family.ts';

const SECOND = 1000;
const WASH = 'suspected_wash';
const ORGANIC_PAIR = 'organic_user';

/** List prices a small x402 service charges. */
const PRICES = [0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25] as const;

const clamp = (x: number, lo: number, hi: number): number => Math.min(hi, Math.max(lo, x));

/** A new wash seller (never one of the background's honest sellers): `n` services listed at `listedAt`. */
function washSeller(b: Builder, listedAt: number, n = b.rng.int(1, 2), prices: readonly number[] = PRICES): Service[] {
  const seller = b.address();
  return Array.from({ length: n }, () => b.service(seller, listedAt, false, b.rng.pick(prices)));
}

/** A transfer, unless it would fall after now (it has not happened yet). */
function transfer(b: Builder, to: string, from: string, amount: number, at: number): void {
  if (at < b.now) b.fund(to, from, amount, at);
}

/** Payments by `w` at `times`, each to one of `services`; those after now are left out. Returns the amount paid. */
function payAt(
  b: Builder,
  w: string,
  services: readonly Service[],
  times: readonly number[],
  label = WASH,
  amount?: (s: Service) => number,
): number {
  let paid = 0;
  for (const t of times) {
    if (t >= b.now) continue;
    const s = b.rng.pick(services);
    const a = amount ? amount(s) : s.price;
    b.pay(w, s, t, label, a);
    paid += a;
  }
  return paid;
}

/** `n` calls in a person's sessions over [from, to] (see sessionTimes). */
function sessions(
  b: Builder,
  w: string,
  services: readonly Service[],
  n: number,
  from: number,
  to: number,
  label = WASH,
  amount?: (s: Service) => number,
): number {
  return payAt(b, w, services, sessionTimes(b.rng, n, from, to), label, amount);
}

/** The services a wallet uses: a script or a person mostly sticks to one endpoint (about two in three), or uses them all. */
function favourite(b: Builder, services: readonly Service[]): Service[] {
  return services.length > 1 && b.rng.chance(0.65) ? [b.rng.pick(services)] : [...services];
}

/** Camouflage: `n` calls on one to three popular honest services (suspected_wash pairs: a wash wallet's). */
function camouflage(b: Builder, w: string, n: number, from: number, to: number): number {
  return sessions(b, w, b.distinctPopular(b.rng.int(1, 3), from), n, from, to);
}

/** The occasional sprinkle of honest calls a wash wallet makes (about three wallets in ten). */
function sprinkle(b: Builder, w: string, from: number, to: number, chance = 0.3): void {
  if (b.rng.chance(chance)) camouflage(b, w, b.rng.int(1, 3), from, to);
}

/** Real customers of a wash seller: ordinary users who found its services (organic users). */
function realCustomers(b: Builder, organic: (w: string) => void, services: readonly Service[], n: number, from: number, to: number): void {
  for (let k = 0; k < n; k++) {
    const w = b.address();
    organic(w);
    const start = organicUse(b, w, from + b.rng.next() * Math.max(0, to - from), { first: b.rng.pick(services) });
    b.withdraw(w, start - b.rng.uniform(0.5, 200) * HOUR);
  }
}

/** An operator's treasury: a wallet that withdrew its float from an exchange. */
function treasury(b: Builder, at: number, amount = b.rng.uniform(2000, 10000)): string {
  const w = b.address();
  b.fundFromExchange(w, at, amount);
  return w;
}

/** A seller gets its first (gas and float) money from its owner's treasury, shortly before it lists. */
function ownedBy(b: Builder, services: readonly Service[], owner: string): void {
  const s = services[0]!;
  b.fund(s.seller, owner, b.rng.uniform(10, 200), s.firstSeen - b.rng.uniform(1, 48) * HOUR);
}

/** A seller funded from an exchange on its own, before it lists. */
function selfFunded(b: Builder, services: readonly Service[]): void {
  const s = services[0]!;
  b.fundFromExchange(s.seller, s.firstSeen - b.rng.uniform(1, 10) * DAY, b.rng.uniform(20, 500));
}

/** Weekly sweeps of a seller's takings to `to` from `from` on. */
function sweeps(b: Builder, seller: string, to: string, from: number): void {
  for (let t = from + b.rng.uniform(3, 7) * DAY; t < b.now; t += b.rng.uniform(6, 8) * DAY) b.fund(to, seller, b.rng.uniform(5, 80), t);
}

export const WASH_FAMILIES: Record<string, FamilyDef> = {
  deep_relay_cohort: family({
    kind: 'wash',
    label: 'suspected_wash',
    against: 'funding chains are followed 4 hops: the operator sits 5-9 transfers above each sybil',
    about:
      "An operator moves its float down a trunk of relay wallets and then down a private chain of four fresh relays per handful of sybils, so no wallet within four transfers of a sybil funds more than four of them; the sybils then pay the operator's new seller for weeks.",
    params: {
      wallets: param('sybil wallets', [25, 70], true),
      hops: param('transfers from the operator to a sybil', [5, 9], true),
      perBranch: param('sybils funded by one private relay chain (at most)', [1, 4], true),
      startSpreadDays: param('days from first to last sybil start', [5, 40]),
      callsMedian: param('calls per sybil (median)', [10, 50]),
      callsSigma: param('log-sd of calls per sybil', [0.3, 1]),
      realCustomers: param("real customers of the operator's seller", [0, 12], true),
    },
    instances: 2,
    plant({ b, buyer, organic }, q) {
      const t0 = b.now - b.rng.uniform(q.startSpreadDays + 30, 165) * DAY;
      const operator = treasury(b, t0 - b.rng.uniform(20, 40) * DAY);
      const farm = washSeller(b, t0 - b.rng.uniform(1, 10) * DAY);
      ownedBy(b, farm, operator);
      // the shared trunk: hops - 5 levels of one or two relays below the operator
      let top = [operator];
      for (let h = 1; h <= q.hops - 5; h++) {
        const level = Array.from({ length: b.rng.int(1, 2) }, () => b.address());
        for (const r of level)
          b.fund(r, b.rng.pick(top), b.rng.uniform(1000, 4000), t0 - 3 * DAY - (q.hops - h) * b.rng.uniform(3, 12) * HOUR);
        top = level;
      }
      for (let left = q.wallets; left > 0; ) {
        const n = Math.min(left, b.rng.int(1, q.perBranch));
        left -= n;
        const branchStart = t0 + b.rng.next() * q.startSpreadDays * DAY;
        // a private chain of four relays: the last four funders of each of its sybils
        const each = b.rng.uniform(30, 90);
        let funder = b.rng.pick(top);
        let t = branchStart - b.rng.uniform(30, 72) * HOUR;
        for (let h = 0; h < 4; h++) {
          const r = b.address();
          b.fund(r, funder, n * each * (1 + 0.01 * (4 - h)), t);
          funder = r;
          t += b.rng.uniform(0.2, 6) * HOUR;
        }
        for (let k = 0; k < n; k++) {
          const w = b.address();
          buyer(w);
          const start = branchStart + b.rng.uniform(0, 2) * DAY;
          b.fund(w, funder, each * b.rng.uniform(0.8, 1.2), t + b.rng.uniform(0.1, 4) * HOUR);
          const end = start + b.rng.uniform(5, 30) * DAY;
          sessions(b, w, favourite(b, farm), lognormalCount(b.rng, q.callsMedian, q.callsSigma), start, end);
          sprinkle(b, w, start, end);
        }
      }
      realCustomers(b, organic, farm, q.realCustomers, t0, t0 + q.startSpreadDays * DAY + 20 * DAY);
    },
  }),

  late_topup: family({
    kind: 'wash',
    label: 'suspected_wash',
    against: 'first-funder rules: only the first funding transfer is followed',
    about:
      "Sybils first withdraw a little from exchanges on their own (varied amounts and times), then the seller's treasury tops them up again and again; the top-ups finance the payments.",
    params: {
      wallets: param('sybil wallets', [8, 30], true),
      topups: param('top-ups per wallet from the treasury', [2, 6], true),
      callsMedian: param('calls per wallet (median)', [10, 40]),
      startSpreadDays: param('days from first to last wallet start', [1, 30]),
    },
    instances: 3,
    plant({ b, buyer }, q) {
      const t0 = b.now - b.rng.uniform(q.startSpreadDays + 20, 160) * DAY;
      const farm = farmSeller(b, t0 - b.rng.uniform(1, 10) * DAY);
      const treasury = b.address();
      b.fundFromExchange(farm[0]!.seller, t0 - 30 * DAY, 2000);
      b.fund(treasury, farm[0]!.seller, 1500, t0 - 20 * DAY);
      for (let k = 0; k < q.wallets; k++) {
        const w = b.address();
        buyer(w);
        const start = t0 + b.rng.next() * q.startSpreadDays * DAY;
        b.withdraw(w, start - b.rng.uniform(1, 96) * HOUR);
        const end = start + b.rng.uniform(10, 40) * DAY;
        for (let j = 0; j < q.topups; j++) b.fund(w, treasury, b.rng.uniform(5, 40), start + ((j + 0.5) / q.topups) * (end - start));
        washCalls(b, w, farm, lognormalCount(b.rng, q.callsMedian, 0.5), start, end);
      }
    },
  }),

  revenue_recycle: family({
    kind: 'wash',
    label: 'suspected_wash',
    against:
      "funded_loop: the seller is never a first funder up the sybils' chains (the sweep wallet began with an exchange withdrawal); the sweep address is still an operator key",
    about:
      "A seller sweeps its takings every month to a wallet of its own that started life with an exchange withdrawal; that wallet funds a fresh batch of sybils (directly or through one or two new relays) that pay the seller, and next month's sweep pays for the next batch.",
    params: {
      months: param('monthly recycling rounds', [2, 5], true),
      perMonth: param('new sybils per round', [4, 14], true),
      relayHops: param('relays between the sweep wallet and the sybils', [0, 2], true),
      sweepShare: param('share of the takings swept back each month', [0.6, 0.95]),
      callsMedian: param('calls per sybil (median)', [15, 50]),
      realCustomers: param('real customers of the seller', [3, 15], true),
    },
    instances: 3,
    plant({ b, buyer, organic }, q) {
      const t0 = b.now - b.rng.uniform(q.months * 30 + 10, 160) * DAY;
      const farm = washSeller(b, t0 - b.rng.uniform(2, 12) * DAY, b.rng.int(1, 2), [0.01, 0.02, 0.05, 0.1, 0.25]);
      selfFunded(b, farm);
      const seller = farm[0]!.seller;
      const sweep = b.address();
      b.fundFromExchange(sweep, t0 - b.rng.uniform(5, 40) * DAY, b.rng.uniform(200, 1500));
      let taken = 0;
      for (let m = 0; m < q.months; m++) {
        const tm = t0 + m * 30 * DAY + (m === 0 ? 0 : b.rng.uniform(-3, 3) * DAY);
        if (tm >= b.now - DAY) break;
        if (m > 0) b.fund(sweep, seller, Math.max(5, taken * q.sweepShare), tm - b.rng.uniform(6, 48) * HOUR);
        taken = 0;
        const per = b.rng.uniform(10, 60);
        let funder = sweep;
        let t = tm - b.rng.uniform(8, 20) * HOUR;
        for (let h = 0; h < q.relayHops; h++) {
          const r = b.address();
          b.fund(r, funder, per * q.perMonth * 1.02, t);
          funder = r;
          t += b.rng.uniform(0.3, 3) * HOUR;
        }
        for (let k = 0; k < q.perMonth; k++) {
          const w = b.address();
          buyer(w);
          const start = tm + b.rng.next() * 7 * DAY;
          b.fund(w, funder, per * b.rng.uniform(0.85, 1.15), t + b.rng.uniform(0.1, 2) * HOUR);
          const end = start + b.rng.uniform(7, 28) * DAY;
          taken += sessions(b, w, favourite(b, farm), lognormalCount(b.rng, q.callsMedian, 0.5), start, end);
          sprinkle(b, w, start, end);
        }
      }
      realCustomers(b, organic, farm, q.realCustomers, t0, t0 + q.months * 30 * DAY);
    },
  }),

  funded_loop_small: family({
    kind: 'wash',
    label: 'suspected_wash',
    against: 'funded_loop: >= 10 seller-funded payers that kept paying > 3 days (here 5-9)',
    about:
      "A seller funds a handful of wallets of its own (directly or through a fresh relay each) once, with enough for weeks, and they pay it heavily every day: most of its volume, beside a few real customers' calls.",
    params: {
      wallets: param('seller-funded wallets', [5, 9], true),
      hops: param('transfers from the seller to each wallet (2: through a fresh relay each)', [1, 2], true),
      weeks: param('weeks the wallets keep paying', [2, 8]),
      callsPerDay: param('calls per wallet per day (mean)', [2, 8]),
      realCustomers: param('real customers of the seller', [0, 6], true),
    },
    instances: 6,
    plant({ b, buyer, organic }, q) {
      const span = q.weeks * 7 * DAY;
      const t0 = b.now - b.rng.uniform(q.weeks * 7 + 12, 168) * DAY;
      const farm = washSeller(b, t0 - b.rng.uniform(0.5, 5) * DAY, b.rng.int(1, 2), [0.005, 0.01, 0.02, 0.05, 0.1]);
      const seller = farm[0]!.seller;
      b.fundFromExchange(seller, farm[0]!.firstSeen - b.rng.uniform(1, 10) * DAY, b.rng.uniform(500, 3000));
      const meanPrice = farm.reduce((s, x) => s + x.price, 0) / farm.length;
      for (let k = 0; k < q.wallets; k++) {
        const w = b.address();
        buyer(w);
        const start = t0 + b.rng.next() * 5 * DAY;
        const days = (span / DAY) * b.rng.uniform(0.7, 1.1);
        const n = Math.max(20, Math.round(q.callsPerDay * days * b.rng.logNormal(0, 0.3)));
        const amount = n * meanPrice * b.rng.uniform(1.05, 1.3);
        const funded = start - b.rng.uniform(0.2, 24) * HOUR;
        let funder = seller;
        if (q.hops === 2) {
          // a fresh relay for each wallet
          funder = b.address();
          b.fund(funder, seller, amount * 1.01, funded - b.rng.uniform(0.5, 12) * HOUR);
        }
        b.fund(w, funder, amount, funded);
        sessions(b, w, favourite(b, farm), n, start, start + days * DAY);
      }
      realCustomers(b, organic, farm, q.realCustomers, t0, t0 + span);
    },
  }),

  rotating_testers: family({
    kind: 'wash',
    label: 'suspected_wash',
    against:
      'tester exclusion: a burst-dense wallet whose main pair lasted <= 3 days leaves the cohort, and funded_loop needs payers that kept paying > 3 days',
    about:
      'An operator pumps its seller with a fresh wallet every day or few: each fires its calls seconds apart in a few bursts and is abandoned within three days, so every wallet looks like someone trying an endpoint; the rotation goes on for weeks.',
    params: {
      weeks: param('weeks the rotation runs', [3, 10]),
      everyDays: param('days between fresh wallets (mean)', [1.2, 3]),
      lifeDays: param("a wallet's life, days (at most)", [0.5, 2.8]),
      burstsPerDay: param('bursts per wallet per day of life', [1, 3]),
      callsPerBurst: param('calls per burst (median)', [8, 40]),
      spacingSeconds: param('median seconds between calls in a burst', [1, 12]),
    },
    instances: 3,
    plant({ b, buyer }, q) {
      const span = q.weeks * 7 * DAY;
      const t0 = b.now - b.rng.uniform(q.weeks * 7 + 10, 168) * DAY;
      const operator = treasury(b, t0 - b.rng.uniform(10, 30) * DAY, b.rng.uniform(500, 3000));
      const farm = washSeller(b, t0 - b.rng.uniform(1, 7) * DAY, b.rng.int(1, 2), [0.001, 0.002, 0.005, 0.01]);
      ownedBy(b, farm, operator);
      for (let t = t0; t < Math.min(t0 + span, b.now - HOUR); t += q.everyDays * b.rng.uniform(0.6, 1.4) * DAY) {
        const w = b.address();
        buyer(w);
        b.fund(w, operator, b.rng.uniform(2, 20), t - b.rng.uniform(5, 120) * MINUTE);
        const life = q.lifeDays * b.rng.uniform(0.5, 1) * DAY;
        const bursts = Math.max(1, Math.round((q.burstsPerDay * life) / DAY));
        for (let j = 0; j < bursts; j++) {
          let at = j === 0 ? t : t + b.rng.next() * life;
          const s = b.rng.pick(farm);
          for (let c = lognormalCount(b.rng, q.callsPerBurst, 0.4); c > 0; c--) {
            if (at < b.now) b.pay(w, s, at, WASH);
            at += SECOND * b.rng.logNormal(Math.log(q.spacingSeconds), 0.5);
          }
        }
      }
    },
  }),

  periodic_sybils: family({
    kind: 'wash',
    label: 'suspected_wash',
    against: 'periodic pairs leave the cohort and the operator rule (analytics_bot): sybils on a cron schedule',
    about:
      "An operator funds a fleet of wallets that call its own seller on a fixed schedule for weeks, every few hours like a data pull, so each pair reads as an analytics bot; the schedule is the operator's volume.",
    params: {
      wallets: param('scheduled sybil wallets', [10, 22], true),
      periodMinutes: param('minutes between runs', [120, 480]),
      spanDays: param('days a schedule runs', [12, 30]),
      startSpreadDays: param('days from first to last schedule start', [0, 10]),
      jitter: param('relative jitter of each run', [0.01, 0.05]),
      services: param("the seller's services each run calls", [1, 2], true),
    },
    instances: 3,
    plant({ b, buyer }, q) {
      const t0 = b.now - b.rng.uniform(q.spanDays * 1.2 + q.startSpreadDays + 10, 168) * DAY;
      const operator = treasury(b, t0 - b.rng.uniform(10, 30) * DAY);
      const farm = washSeller(b, t0 - b.rng.uniform(1, 10) * DAY, q.services + b.rng.int(0, 1), [0.001, 0.002, 0.005, 0.01, 0.02]);
      ownedBy(b, farm, operator);
      for (let k = 0; k < q.wallets; k++) {
        const w = b.address();
        buyer(w);
        const start = t0 + b.rng.next() * q.startSpreadDays * DAY;
        b.fund(w, operator, b.rng.uniform(10, 50), start - b.rng.uniform(0.5, 24) * HOUR);
        const polled = b.rng.shuffle([...farm]).slice(0, q.services);
        const end = start + q.spanDays * b.rng.uniform(0.8, 1.2) * DAY;
        const period = q.periodMinutes * MINUTE * b.rng.uniform(0.9, 1.1);
        for (let t = start + b.rng.next() * period; t < end; t += period) {
          polled.forEach((s, j) => {
            const at = t + j * b.rng.uniform(1, 5) * SECOND + b.rng.uniform(-q.jitter, q.jitter) * period;
            if (at < b.now) b.pay(w, s, at, WASH);
          });
        }
      }
    },
  }),

  leaky_ring: family({
    kind: 'wash',
    label: 'suspected_wash',
    against: 'balanced ring: every member within 10 % in vs out and >= $10 each way',
    about:
      "A few sellers run by one crew pay each other's services round and round to inflate them all; each passes on 60-85 % of what it gets (the rest goes to other services or is cashed out at an exchange) or tops the flow up by as much from outside, or the ring is kept small, under $10 a member.",
    params: {
      members: param('seller wallets in the ring', [3, 8], true),
      rounds: param('rounds the money goes round', [8, 30], true),
      callsPerRound: param("calls a member pays its successor per round, leaking rings (at the first member's price)", [4, 15], true),
      leak: param('share of what a member receives that it does not pass on (or adds)', [0.15, 0.4]),
      underTenDollars: param('1: balanced flows kept under $10 a member; 0: leaking flows', [0, 1], true),
      realCustomers: param("real customers of the ring's services", [0, 6], true),
    },
    instances: 9,
    plant({ b, buyer, organic }, q) {
      const small = q.underTenDollars === 1;
      const t0 = b.now - b.rng.uniform(q.rounds * 3.5 + 12, 160) * DAY;
      const base = b.rng.pick(small ? [0.02, 0.05, 0.1] : [0.05, 0.1, 0.25, 0.5]);
      // a small ring moves $3-9.5 through each member over its whole life
      const perRound = b.rng.uniform(3, 9.5) / q.rounds;
      const members = Array.from({ length: q.members }, () => b.address());
      const services = members.map((m) => b.service(m, t0 - b.rng.uniform(1, 15) * DAY, false, base * b.rng.pick([0.5, 1, 1, 2])));
      members.forEach((m, i) => {
        buyer(m);
        b.fundFromExchange(m, services[i]!.firstSeen - b.rng.uniform(1, 10) * DAY, small ? b.rng.uniform(2, 9) : b.rng.uniform(50, 300));
      });
      // each member's ratio of what it passes on to what it receives: leakers below 1, topped-up members above
      const ratio: number[] = [];
      let level = 1;
      for (let i = 0; i < q.members; i++) {
        const l = small ? 0 : clamp(q.leak * b.rng.uniform(0.85, 1.15), 0.15, 0.42);
        const r = small ? b.rng.uniform(0.97, 1.03) : level * (1 - l) >= 0.35 ? 1 - l : 1 / (1 - l);
        level *= r;
        ratio.push(r);
      }
      const outlets = b.distinctPopular(b.rng.int(2, 5), t0);
      const exchange = b.rng.pick(b.exchanges);
      const cashOut = members.map(() => 0);
      let t = t0;
      for (let r = 0; r < q.rounds && t < b.now; r++) {
        let value = small
          ? perRound * b.rng.uniform(0.95, 1.05)
          : q.callsPerRound * services[1 % q.members]!.price * b.rng.uniform(0.8, 1.2);
        let at = t;
        for (let i = 0; i < q.members; i++) {
          const received = value;
          if (i > 0) value *= ratio[i]!;
          const next = services[(i + 1) % q.members]!;
          const calls = clamp(Math.round(value / next.price), 1, 200);
          at += b.rng.uniform(0.5, 6) * HOUR;
          let c = at;
          for (let k = 0; k < calls; k++, c += b.rng.uniform(20, 240) * SECOND) if (c < b.now) b.pay(members[i]!, next, c, WASH);
          const m = members[i]!;
          if (i > 0 && ratio[i]! < 1) {
            // the leak: some of it spent on other services, the rest cashed out
            const leaked = received - value;
            const spend = leaked * b.rng.uniform(0.2, 0.6);
            const outlet = b.rng.pick(outlets);
            const n = clamp(Math.round(spend / outlet.price), 1, 6);
            for (let k = 0; k < n; k++) if (c + k * MINUTE < b.now) b.pay(m, outlet, c + k * MINUTE, WASH);
            cashOut[i]! += leaked - n * outlet.price;
          } else if (i > 0 && ratio[i]! > 1) {
            transfer(b, m, exchange, value - received, at - b.rng.uniform(1, 12) * HOUR);
          }
        }
        t += b.rng.uniform(2, 4) * DAY;
        if (r % 5 === 4) {
          members.forEach((m, i) => {
            if (cashOut[i]! > 1) transfer(b, exchange, m, cashOut[i]!, t - b.rng.uniform(1, 20) * HOUR);
            cashOut[i] = 0;
          });
          // the first member's float is topped up from the crew's exchange account
          b.fundFromExchange(members[0]!, t - b.rng.uniform(1, 20) * HOUR, q.callsPerRound * base * 5 * b.rng.uniform(1, 2));
        }
      }
      realCustomers(b, organic, services, q.realCustomers, t0, t);
    },
  }),

  round_trip_partial: family({
    kind: 'wash',
    label: 'suspected_wash',
    against: 'round trip: returns repay >= 50 % of what the pair paid (here 25-45 % a round)',
    about:
      'A seller hands back part of what its buyers paid after every round (directly or through a relay or two) and the buyers top the rest up from an exchange: the same dollars pay again and again, but less than half of them come back.',
    params: {
      buyers: param('buyer wallets in the loop', [3, 9], true),
      rounds: param('pay-and-return rounds', [3, 10], true),
      callsPerRound: param('calls per buyer per round (mean)', [8, 30], true),
      returnShare: param('share of a round returned', [0.25, 0.45]),
      returnHops: param('transfers from the seller back to a buyer', [1, 3], true),
    },
    instances: 8,
    plant({ b, buyer }, q) {
      const t0 = b.now - b.rng.uniform(q.rounds * 5 + 12, 168) * DAY;
      const farm = washSeller(b, t0 - b.rng.uniform(1, 10) * DAY, b.rng.int(1, 2), [0.01, 0.02, 0.05, 0.1, 0.25]);
      selfFunded(b, farm);
      const seller = farm[0]!.seller;
      const relays = Array.from({ length: q.returnHops - 1 }, () => b.address());
      const wallets = Array.from({ length: q.buyers }, () => {
        const w = b.address();
        buyer(w);
        const joins = b.rng.int(0, 1);
        b.fundFromExchange(w, t0 - b.rng.uniform(1, 72) * HOUR, b.rng.uniform(50, 300));
        return {
          w,
          joins,
          calls: q.callsPerRound * b.rng.uniform(0.6, 1.4),
          share: clamp(q.returnShare + b.rng.uniform(-0.04, 0.04), 0.2, 0.47),
        };
      });
      let t = t0;
      for (let r = 0; r < q.rounds && t < b.now; r++) {
        for (const x of wallets) {
          if (r < x.joins) continue;
          const paid = sessions(b, x.w, [b.rng.pick(farm)], Math.max(2, Math.round(x.calls * b.rng.uniform(0.8, 1.2))), t, t + DAY);
          let back = t + b.rng.uniform(1.2, 2) * DAY;
          let from = seller;
          for (const relay of relays) {
            transfer(b, relay, from, paid * x.share * b.rng.uniform(1, 1.03), back);
            from = relay;
            back += b.rng.uniform(0.5, 3) * HOUR;
          }
          transfer(b, x.w, from, paid * x.share, back);
          if (r % 3 === 2) b.fundFromExchange(x.w, back + b.rng.uniform(1, 24) * HOUR, paid * (1 - x.share) * 3 * b.rng.uniform(1, 1.3));
        }
        t += b.rng.uniform(2.5, 5) * DAY;
      }
    },
  }),

  round_trip_small_pairs: family({
    kind: 'wash',
    label: 'suspected_wash',
    against: 'round trip: a pair of >= 20 payments (here 6-18 per wallet)',
    about:
      'A seller runs its pay-and-return loop through many short-lived wallets: each withdraws from an exchange, pays in two to four rounds of a few calls, and gets most of each round back from the seller (or its relay), then is dropped for a fresh one.',
    params: {
      wallets: param('loop wallets', [20, 50], true),
      returnShare: param('share of a round returned', [0.6, 0.98]),
      returnHops: param('transfers from the seller back to a wallet', [1, 2], true),
      spreadDays: param('days over which the wallets start', [10, 60]),
      realCustomers: param('real customers of the seller', [0, 8], true),
    },
    instances: 2,
    plant({ b, buyer, organic }, q) {
      const t0 = b.now - b.rng.uniform(q.spreadDays + 25, 168) * DAY;
      const farm = washSeller(b, t0 - b.rng.uniform(1, 10) * DAY, 1, [0.05, 0.1, 0.25, 0.5]);
      selfFunded(b, farm);
      const seller = farm[0]!.seller;
      const relay = b.address();
      if (q.returnHops === 2) b.fund(relay, seller, b.rng.uniform(50, 300), t0 - b.rng.uniform(1, 5) * DAY);
      for (let k = 0; k < q.wallets; k++) {
        const w = b.address();
        buyer(w);
        const start = t0 + b.rng.next() * q.spreadDays * DAY;
        b.fundFromExchange(w, start - b.rng.uniform(1, 48) * HOUR, b.rng.uniform(10, 60));
        const n = b.rng.int(6, 18);
        const rounds = b.rng.int(2, Math.min(4, Math.floor(n / 3)));
        let t = start;
        for (let r = 0; r < rounds; r++) {
          const calls = Math.floor(n / rounds) + (r < n % rounds ? 1 : 0);
          const paid = sessions(b, w, favourite(b, farm), calls, t, t + b.rng.uniform(2, 20) * HOUR);
          let back = t + b.rng.uniform(1, 2) * DAY;
          const share = q.returnShare * b.rng.uniform(0.95, 1.02);
          if (q.returnHops === 2) {
            transfer(b, relay, seller, paid * share * 1.01, back - b.rng.uniform(1, 6) * HOUR);
            transfer(b, w, relay, paid * share, back);
          } else transfer(b, w, seller, paid * share, back);
          back += b.rng.uniform(0.5, 4) * DAY;
          t = back;
        }
      }
      realCustomers(b, organic, farm, q.realCustomers, t0, t0 + q.spreadDays * DAY);
    },
  }),

  round_trip_deep: family({
    kind: 'wash',
    label: 'suspected_wash',
    against: "round trip: the seller's reach is 4 transfers (here the money returns through 5-7)",
    about:
      'A seller returns almost all of what its buyers paid after every round, but through a chain of four to six relay wallets of its own, so the way back is longer than the reach followed.',
    params: {
      buyers: param('buyer wallets in the loop', [4, 9], true),
      rounds: param('pay-and-return rounds', [3, 8], true),
      callsPerRound: param('calls per buyer per round (mean)', [8, 25], true),
      returnHops: param('transfers from the seller back to a buyer', [5, 7], true),
      returnShare: param('share of a round returned', [0.8, 0.97]),
    },
    instances: 6,
    plant({ b, buyer }, q) {
      const t0 = b.now - b.rng.uniform(q.rounds * 5 + 12, 168) * DAY;
      const farm = washSeller(b, t0 - b.rng.uniform(1, 10) * DAY, b.rng.int(1, 2), [0.01, 0.02, 0.05, 0.1, 0.25]);
      selfFunded(b, farm);
      const seller = farm[0]!.seller;
      const relays = Array.from({ length: q.returnHops - 1 }, () => b.address());
      const wallets = Array.from({ length: q.buyers }, () => {
        const w = b.address();
        buyer(w);
        const joins = b.rng.int(0, 1);
        b.fundFromExchange(w, t0 - b.rng.uniform(1, 96) * HOUR, b.rng.uniform(50, 300));
        return { w, joins, calls: q.callsPerRound * b.rng.uniform(0.6, 1.4) };
      });
      let t = t0;
      for (let r = 0; r < q.rounds && t < b.now; r++) {
        for (const x of wallets) {
          if (r < x.joins) continue;
          const paid = sessions(b, x.w, [b.rng.pick(farm)], Math.max(2, Math.round(x.calls * b.rng.uniform(0.8, 1.2))), t, t + DAY);
          let back = t + b.rng.uniform(1, 1.8) * DAY;
          let from = seller;
          for (const relay of relays) {
            transfer(b, relay, from, paid * q.returnShare * b.rng.uniform(1, 1.03), back);
            from = relay;
            back += b.rng.uniform(0.5, 3) * HOUR;
          }
          transfer(b, x.w, from, paid * q.returnShare * b.rng.uniform(0.97, 1), back);
        }
        t += b.rng.uniform(2.5, 5) * DAY;
      }
    },
  }),

  burst_slow: family({
    kind: 'wash',
    label: 'suspected_wash',
    against: 'funding burst: >= 10 withdrawals within 12 h with amounts within 15 % (here over 15-48 h, +/-20-35 %)',
    about:
      'An operator withdraws from the large exchange to fresh wallets in dribs and drabs over a day or two, varying each amount, and the wallets then pay only its sellers, starting over the following days.',
    params: {
      wallets: param('fresh wallets withdrawn to', [12, 30], true),
      burstHours: param('hours from first to last withdrawal', [15, 48]),
      amountSpread: param('relative spread of the withdrawn amounts (+/-)', [0.2, 0.35]),
      startDelayHours: param('hours from withdrawal to first payment (median)', [6, 120]),
      sellers: param("sellers paid (one operator's)", [1, 3], true),
      callsMedian: param('calls per wallet (median)', [10, 40]),
      callsSigma: param('log-sd of calls per wallet', [0.4, 1]),
      realCustomers: param("real customers of the operator's sellers", [0, 6], true),
    },
    instances: 3,
    plant({ b, buyer, organic }, q) {
      const t0 = b.now - b.rng.uniform(45, 165) * DAY;
      const root = treasury(b, t0 - b.rng.uniform(20, 40) * DAY, b.rng.uniform(1000, 5000));
      const farm: Service[] = [];
      for (let k = 0; k < q.sellers; k++) {
        const s = washSeller(b, t0 - b.rng.uniform(1, 10) * DAY, 1, [0.005, 0.01, 0.02, 0.05, 0.1]);
        ownedBy(b, s, root);
        farm.push(...s);
      }
      const amount = b.rng.pick([20, 25, 50, 100]) - b.rng.pick([0, 0.1, 0.5]);
      for (let k = 0; k < q.wallets; k++) {
        const w = b.address();
        buyer(w);
        const at = t0 + b.rng.next() * q.burstHours * HOUR;
        b.fund(w, b.largeExchange, amount * (1 + b.rng.uniform(-q.amountSpread, q.amountSpread)), at);
        const start = at + b.rng.logNormal(Math.log(q.startDelayHours * HOUR), 0.6);
        const end = start + b.rng.uniform(5, 30) * DAY;
        sessions(b, w, favourite(b, farm), lognormalCount(b.rng, q.callsMedian, q.callsSigma), start, end);
        sprinkle(b, w, start, end);
      }
      realCustomers(b, organic, farm, q.realCustomers, t0, t0 + 40 * DAY);
    },
  }),

  burst_minority: family({
    kind: 'wash',
    label: 'suspected_wash',
    against: "funding burst: the burst is >= 50 % of the operator's buyers (here 35-48 %)",
    about:
      'A seller with a real following adds a tight burst of exchange-funded wallets: fewer than half of its buyers, but they call it dozens of times each and make most of its volume.',
    params: {
      wallets: param('fresh wallets in the burst', [10, 25], true),
      buyerShare: param("the burst's share of the seller's buyers", [0.35, 0.48]),
      burstHours: param('hours from first to last withdrawal', [0.5, 5]),
      amountSpread: param('relative spread of the withdrawn amounts (+/-)', [0, 0.05]),
      startDelayHours: param('hours from withdrawal to first payment (median)', [1, 48]),
      callsMedian: param('calls per burst wallet (median)', [20, 60]),
    },
    instances: 3,
    plant({ b, buyer, organic }, q) {
      const listed = b.now - b.rng.uniform(60, 168) * DAY;
      const farm = washSeller(b, listed, b.rng.int(1, 2), [0.005, 0.01, 0.02, 0.05, 0.1]);
      selfFunded(b, farm);
      const t0 = listed + b.rng.uniform(5, 30) * DAY;
      const exchange = b.rng.chance(0.7) ? b.largeExchange : b.rng.pick(b.exchanges);
      const amount = b.rng.pick([20, 25, 50, 100]) - b.rng.pick([0, 0.1, 0.5]);
      for (let k = 0; k < q.wallets; k++) {
        const w = b.address();
        buyer(w);
        const at = t0 + b.rng.next() * q.burstHours * HOUR;
        b.fund(w, exchange, amount * (1 + b.rng.uniform(-q.amountSpread, q.amountSpread)), at);
        const start = at + b.rng.logNormal(Math.log(q.startDelayHours * HOUR), 0.5);
        const end = start + b.rng.uniform(7, 30) * DAY;
        sessions(b, w, favourite(b, farm), lognormalCount(b.rng, q.callsMedian, 0.4), start, end);
        sprinkle(b, w, start, end);
      }
      const real = Math.round((q.wallets * (1 - q.buyerShare)) / q.buyerShare);
      realCustomers(b, organic, farm, real, listed, b.now - 5 * DAY);
    },
  }),

  burst_camouflaged: family({
    kind: 'wash',
    label: 'suspected_wash',
    against: 'funding burst and operator cohort: wallets pay the operator >= 66 % of their payments (here 50-64 %)',
    about:
      "A tight exchange burst of fresh wallets pays the operator's seller just over half of their calls and spends the rest on several popular services, so each wallet looks partly like an ordinary user.",
    params: {
      wallets: param('fresh wallets in the burst', [12, 35], true),
      operatorShare: param("share of a wallet's payments to the operator", [0.5, 0.64]),
      burstHours: param('hours from first to last withdrawal', [0.5, 6]),
      amountSpread: param('relative spread of the withdrawn amounts (+/-)', [0, 0.06]),
      callsMedian: param('calls per wallet (median)', [20, 60]),
      callsSigma: param('log-sd of calls per wallet', [0.3, 0.9]),
      popular: param('popular services each wallet also uses', [3, 8], true),
      realCustomers: param('real customers of the seller', [0, 8], true),
    },
    instances: 3,
    plant({ b, buyer, organic }, q) {
      const t0 = b.now - b.rng.uniform(40, 160) * DAY;
      const root = treasury(b, t0 - b.rng.uniform(20, 40) * DAY, b.rng.uniform(1000, 5000));
      const farm = washSeller(b, t0 - b.rng.uniform(1, 10) * DAY, b.rng.int(1, 2), [0.01, 0.02, 0.05, 0.1]);
      ownedBy(b, farm, root);
      const amount = b.rng.pick([20, 25, 50, 100]) - b.rng.pick([0, 0.1, 0.5]);
      for (let k = 0; k < q.wallets; k++) {
        const w = b.address();
        buyer(w);
        const at = t0 + b.rng.next() * q.burstHours * HOUR;
        b.fund(w, b.largeExchange, amount * (1 + b.rng.uniform(-q.amountSpread, q.amountSpread)), at);
        const start = at + b.rng.logNormal(Math.log(12 * HOUR), 0.7);
        const end = start + b.rng.uniform(7, 35) * DAY;
        const n = lognormalCount(b.rng, q.callsMedian, q.callsSigma);
        const mine = Math.round(n * clamp(q.operatorShare + b.rng.uniform(-0.03, 0.03), 0.5, 0.645));
        sessions(b, w, favourite(b, farm), mine, start, end);
        const popular = b.distinctPopular(q.popular, start);
        sessions(b, w, popular, n - mine, start, end);
      }
      realCustomers(b, organic, farm, q.realCustomers, t0, t0 + 40 * DAY);
    },
  }),

  funder_fan_small: family({
    kind: 'wash',
    label: 'suspected_wash',
    against: 'common-funder group: >= 5 core wallets under one root (here each sub-funder funds 3-4)',
    about:
      'A master wallet spreads its float over many sub-funders, mostly by depositing to an exchange and withdrawing to each, sometimes by direct transfers; each sub-funder funds three or four sybils, and all of them pay one seller over weeks.',
    params: {
      subFunders: param('sub-funders', [8, 20], true),
      viaExchange: param('0: the master pays its sub-funders directly; 1-2: through an exchange', [0, 2], true),
      startSpreadDays: param('days from first to last sybil start', [3, 40]),
      callsMedian: param('calls per sybil (median)', [10, 40]),
      callsSigma: param('log-sd of calls per sybil', [0.4, 0.9]),
      realCustomers: param('real customers of the seller', [0, 8], true),
    },
    instances: 2,
    plant({ b, buyer, organic }, q) {
      const t0 = b.now - b.rng.uniform(q.startSpreadDays + 35, 165) * DAY;
      const master = treasury(b, t0 - b.rng.uniform(20, 40) * DAY);
      const farm = washSeller(b, t0 - b.rng.uniform(1, 10) * DAY);
      selfFunded(b, farm);
      const exchange = b.rng.pick(b.exchanges);
      const via = q.viaExchange > 0;
      if (via) b.fund(exchange, master, q.subFunders * b.rng.uniform(150, 400), t0 - b.rng.uniform(4, 10) * DAY);
      for (let s = 0; s < q.subFunders; s++) {
        const sub = b.address();
        const tSub = t0 + b.rng.next() * q.startSpreadDays * DAY - b.rng.uniform(1, 3) * DAY;
        b.fund(sub, via ? exchange : master, b.rng.uniform(100, 400), tSub);
        for (let k = b.rng.int(3, 4); k > 0; k--) {
          const w = b.address();
          buyer(w);
          const start = tSub + b.rng.uniform(0.5, 4) * DAY;
          b.fund(w, sub, b.rng.uniform(15, 80), start - b.rng.uniform(0.2, 12) * HOUR);
          const end = start + b.rng.uniform(5, 30) * DAY;
          sessions(b, w, favourite(b, farm), lognormalCount(b.rng, q.callsMedian, q.callsSigma), start, end);
          sprinkle(b, w, start, end);
        }
      }
      realCustomers(b, organic, farm, q.realCustomers, t0, t0 + q.startSpreadDays * DAY + 20 * DAY);
    },
  }),

  farm_with_tail: family({
    kind: 'wash',
    label: 'suspected_wash',
    against: 'farm flag: the core is >= 80 % of the cohort (here a bought tail of one-off payers dilutes it)',
    about:
      "A coordinated farm of repeat wallets (each withdrawn from an exchange, starting together, similar counts) plus a bought tail of one-off payers, each individually exchange-funded, making a call or two, so the farm is a smaller share of the seller's payers.",
    params: {
      core: param('core farm wallets', [10, 30], true),
      tailRatio: param('bought one-off payers per core wallet', [0.3, 1.2]),
      startSpreadHours: param('hours from first to last core start', [0.5, 12]),
      callsMedian: param('calls per core wallet (median)', [20, 60]),
      callsSigma: param('log-sd of calls per core wallet', [0.1, 0.4]),
      tailSpreadDays: param('days over which the tail pays', [5, 30]),
    },
    instances: 2,
    plant({ b, buyer }, q) {
      const t0 = b.now - b.rng.uniform(q.tailSpreadDays + 20, 165) * DAY;
      const farm = washSeller(b, t0 - b.rng.uniform(1, 10) * DAY);
      selfFunded(b, farm);
      for (let k = 0; k < q.core; k++) {
        const w = b.address();
        buyer(w);
        const start = t0 + b.rng.next() * q.startSpreadHours * HOUR;
        b.fundFromExchange(w, start - b.rng.uniform(2, 120) * HOUR, b.rng.uniform(20, 120));
        const end = start + b.rng.uniform(7, 30) * DAY;
        sessions(b, w, favourite(b, farm), lognormalCount(b.rng, q.callsMedian, q.callsSigma), start, end);
        sprinkle(b, w, start, end);
      }
      const tail = Math.max(Math.ceil(q.core * 0.3), Math.round(q.core * q.tailRatio));
      for (let k = 0; k < tail; k++) {
        const w = b.address();
        buyer(w);
        const start = t0 + b.rng.next() * q.tailSpreadDays * DAY;
        b.withdraw(w, start - b.rng.uniform(0.5, 72) * HOUR);
        sessions(b, w, favourite(b, farm), b.rng.int(1, 2), start, start + b.rng.uniform(0.01, 1) * DAY);
      }
    },
  }),

  farm_one_signal: family({
    kind: 'wash',
    label: 'suspected_wash',
    against: 'farm flag: at least 2 of 5 coordination signals (here at most one: synchronised start or uniform counts)',
    about:
      "A patient farm: every wallet withdraws from an exchange on its own, starts on its own day over weeks, pays varied usage-based amounts across the seller's several prices and draws its count from a wide spread; the wallets pay only this seller and are all of its traffic. Some keep one tell (starts within a few days, or similar counts).",
    params: {
      wallets: param('farm wallets', [12, 40], true),
      kept: param('the one signal kept: 0 none, 1 starts within days, 2 similar counts', [0, 2], true),
      startSpreadDays: param('days from first to last start', [14, 50]),
      callsMedian: param('calls per wallet (median)', [10, 40]),
      services: param("the seller's services (each its own price)", [2, 3], true),
    },
    instances: 2,
    plant({ b, buyer }, q) {
      const spread = q.kept === 1 ? b.rng.uniform(2, 6) : q.startSpreadDays;
      const sigma = q.kept === 2 ? b.rng.uniform(0.25, 0.45) : b.rng.uniform(0.9, 1.2);
      const t0 = b.now - b.rng.uniform(spread + 30, 168) * DAY;
      const prices = b.rng.shuffle([0.005, 0.01, 0.02, 0.05, 0.1, 0.25]).slice(0, q.services);
      const seller = b.address();
      const farm = prices.map((p) => b.service(seller, t0 - b.rng.uniform(1, 10) * DAY, false, p));
      selfFunded(b, farm);
      const listed = Math.max(...farm.map((s) => s.firstSeen));
      for (let k = 0; k < q.wallets; k++) {
        const w = b.address();
        buyer(w);
        const start = Math.max(listed, t0 + b.rng.next() * spread * DAY);
        b.withdraw(w, start - b.rng.uniform(1, 200) * HOUR);
        const end = start + b.rng.uniform(5, 35) * DAY;
        sessions(
          b,
          w,
          favourite(b, farm),
          lognormalCount(b.rng, q.callsMedian, sigma),
          start,
          end,
          WASH,
          (s) => s.price * b.rng.logNormal(0, 0.35),
        );
      }
    },
  }),

  vanity_short: family({
    kind: 'wash',
    label: 'suspected_wash',
    against: 'vanity clusters: 4+3, 2+3 or 6 characters at one end (here 5 at one end, or 3+2, 4+2)',
    about:
      'A cohort of wallets bought from a vanity generator with a short shared pattern (five prefix or suffix characters, or three or four prefix and two suffix), each funded from an exchange on its own, paying one seller.',
    params: {
      wallets: param('vanity wallets', [5, 14], true),
      shape: param('0: 5 prefix; 1: 5 suffix; 2: 3 prefix + 2 suffix; 3: 4 prefix + 2 suffix', [0, 3], true),
      startSpreadDays: param('days from first to last start', [0, 40]),
      callsMedian: param('calls per wallet (median)', [10, 40]),
      callsSigma: param('log-sd of calls per wallet', [0.3, 0.9]),
    },
    instances: 5,
    plant({ b, buyer }, q) {
      const [pre, suf] = (
        [
          [5, 0],
          [0, 5],
          [3, 2],
          [4, 2],
        ] as const
      )[q.shape]!;
      const prefix = b.rng.hex(pre);
      const suffix = b.rng.hex(suf);
      const t0 = b.now - b.rng.uniform(q.startSpreadDays + 30, 168) * DAY;
      const farm = washSeller(b, t0 - b.rng.uniform(1, 10) * DAY);
      selfFunded(b, farm);
      for (let k = 0; k < q.wallets; k++) {
        const w = b.address(prefix, suffix);
        buyer(w);
        const start = t0 + b.rng.next() * q.startSpreadDays * DAY;
        b.fundFromExchange(w, start - b.rng.uniform(0.5, 48) * HOUR);
        const end = start + b.rng.uniform(5, 30) * DAY;
        sessions(b, w, favourite(b, farm), lognormalCount(b.rng, q.callsMedian, q.callsSigma), start, end);
        sprinkle(b, w, start, end);
      }
    },
  }),

  concentration_pair: family({
    kind: 'wash',
    label: 'suspected_wash',
    against: "concentration: the top payer carries >= 95 % of the seller's volume (here two or three carry 30-48 % each)",
    about:
      "A new seller's volume is made from its launch by two or three fresh wallets of its owner, each a third to a half of it, beside a few real customers.",
    params: {
      heavy: param('heavy wallets', [2, 3], true),
      share: param("each heavy wallet's share of the volume (about)", [0.3, 0.48]),
      calls: param("the seller's payments in all", [300, 1000], true),
      spanDays: param('days the heavy wallets keep paying', [20, 80]),
      realCustomers: param('real customers of the seller', [3, 15], true),
    },
    instances: 16,
    plant({ b, buyer, organic }, q) {
      const listed = b.now - b.rng.uniform(q.spanDays + 10, 168) * DAY;
      const svc = washSeller(b, listed, 1, [0.01, 0.02, 0.05, 0.1, 0.25]);
      selfFunded(b, svc);
      const cap = Math.min(0.48, 0.97 / q.heavy);
      let heavyShare = 0;
      for (let k = 0; k < q.heavy; k++) {
        const w = b.address();
        buyer(w);
        const share = clamp(q.share * b.rng.uniform(0.9, 1.1), 0.3, cap);
        heavyShare += share;
        const start = listed + b.rng.uniform(0.2, 24) * HOUR;
        b.fundFromExchange(w, start - b.rng.uniform(1, 72) * HOUR, b.rng.uniform(50, 400));
        sessions(b, w, svc, Math.round(share * q.calls), start, start + q.spanDays * b.rng.uniform(0.8, 1.1) * DAY);
      }
      // real customers make the rest of the volume
      const rest = Math.max(q.realCustomers, Math.round((1 - heavyShare) * q.calls));
      for (let k = 0; k < q.realCustomers; k++) {
        const w = b.address();
        organic(w);
        const start = listed + b.rng.uniform(0.5, q.spanDays) * DAY;
        b.withdraw(w, start - b.rng.uniform(0.5, 200) * HOUR);
        const n = Math.max(1, Math.round((rest / q.realCustomers) * b.rng.logNormal(0, 0.5)));
        sessions(b, w, svc, n, start, start + b.rng.uniform(1, 20) * DAY, ORGANIC_PAIR);
        if (b.rng.chance(0.5)) organicUse(b, w, start);
      }
    },
  }),

  concentration_late: family({
    kind: 'wash',
    label: 'suspected_wash',
    against: 'concentration: the top payer made the volume from the start, at most 3 payers before it (here 4-8 bought payers first)',
    about:
      "A seller's owner first buys a few one-off calls from exchange-funded wallets, so its listing has a handful of customers, then a fresh wallet of its own makes almost all of its volume.",
    params: {
      earlyPayers: param('bought payers before the heavy wallet', [4, 8], true),
      heavyCalls: param("the heavy wallet's payments", [450, 900], true),
      delayDays: param("days from the listing to the heavy wallet's first payment", [1, 10]),
      spanDays: param('days the heavy wallet keeps paying', [15, 60]),
    },
    instances: 6,
    plant({ b, buyer }, q) {
      const listed = b.now - b.rng.uniform(q.delayDays + q.spanDays + 8, 168) * DAY;
      const svc = washSeller(b, listed, 1, [0.5, 0.75, 1]);
      selfFunded(b, svc);
      const heavyStart = listed + q.delayDays * DAY;
      for (let k = 0; k < q.earlyPayers; k++) {
        const w = b.address();
        buyer(w);
        const at = listed + b.rng.uniform(0.05, 0.9) * q.delayDays * DAY;
        b.fundFromExchange(w, at - b.rng.uniform(1, 72) * HOUR, b.rng.uniform(5, 30));
        sessions(b, w, svc, b.rng.int(1, 2), at, at + HOUR);
      }
      const w = b.address();
      buyer(w);
      b.fundFromExchange(w, heavyStart - b.rng.uniform(2, 72) * HOUR, q.heavyCalls * svc[0]!.price * b.rng.uniform(1.05, 1.3));
      sessions(b, w, svc, q.heavyCalls, heavyStart, heavyStart + q.spanDays * DAY);
    },
  }),

  concentration_aged: family({
    kind: 'wash',
    label: 'suspected_wash',
    against: 'concentration: the top payer is fresh, first funded <= 7 days before its first payment (here 10-40 days)',
    about:
      "A seller's owner keeps wallets withdrawn from an exchange weeks in advance; when the service launches one of them makes nearly all of its volume from the first day.",
    params: {
      ageDays: param("days from the wallet's funding to its first payment", [10, 40]),
      calls: param("the heavy wallet's payments", [220, 420], true),
      spanDays: param('days it keeps paying', [10, 60]),
      laterCustomers: param('real customers who come later (a call or few each)', [0, 2], true),
    },
    instances: 40,
    plant({ b, buyer, organic }, q) {
      const listed = b.now - b.rng.uniform(q.spanDays + 10, Math.max(q.spanDays + 12, 175 - q.ageDays)) * DAY;
      const svc = washSeller(b, listed, 1, [1, 1.5, 2]);
      selfFunded(b, svc);
      const w = b.address();
      buyer(w);
      const start = listed + b.rng.uniform(0.1, 12) * HOUR;
      b.fundFromExchange(w, start - q.ageDays * DAY, q.calls * svc[0]!.price * b.rng.uniform(1.05, 1.4));
      sessions(b, w, svc, q.calls, start, start + q.spanDays * DAY);
      for (let k = 0; k < q.laterCustomers; k++) {
        const c = b.address();
        organic(c);
        const at = start + b.rng.uniform(3, q.spanDays) * DAY;
        b.withdraw(c, at - b.rng.uniform(0.5, 200) * HOUR);
        sessions(b, c, svc, b.rng.int(1, 3), at, at + b.rng.uniform(0.1, 3) * DAY, ORGANIC_PAIR);
      }
    },
  }),

  operator_spread_wide: family({
    kind: 'wash',
    label: 'suspected_wash',
    against: 'operator cohort: a wallet pays the operator >= 66 % of its payments (here 50-65 %, over 6-15 sellers)',
    about:
      'One owner runs many small sellers funded from one root; its sybils, funded from the same root through one to three transfers, spread their calls over many of its sellers and spend a third or more on popular services; the sellers sweep their takings back to the root and have a few real customers.',
    params: {
      sellers: param('sellers the operator runs', [6, 15], true),
      wallets: param('sybil wallets', [25, 60], true),
      hops: param('transfers from the root to each seller and sybil', [1, 3], true),
      operatorShare: param("share of a sybil's payments to the operator", [0.5, 0.65]),
      sellersPerWallet: param("share of the operator's sellers each sybil pays", [0.3, 0.8]),
      callsMedian: param('calls per sybil (median)', [20, 60]),
      startSpreadDays: param('days from first to last sybil start', [2, 40]),
      realCustomers: param('real customers per seller', [1, 4], true),
    },
    instances: 2,
    plant({ b, buyer, organic }, q) {
      const t0 = b.now - b.rng.uniform(q.startSpreadDays + 35, 165) * DAY;
      const root = treasury(b, t0 - 40 * DAY, b.rng.uniform(10000, 30000));
      const relays = relayTree(b, root, q.hops, t0 - 30 * DAY);
      const sellers: Service[][] = [];
      for (let k = 0; k < q.sellers; k++) {
        const listed = t0 - b.rng.uniform(2, 20) * DAY;
        const services = washSeller(b, listed, b.rng.int(1, 2), [0.005, 0.01, 0.02, 0.05, 0.1]);
        fundThrough(b, root, services[0]!.seller, q.hops, listed - b.rng.uniform(1, 48) * HOUR, b.rng.uniform(20, 200), relays);
        sweeps(b, services[0]!.seller, root, t0);
        sellers.push(services);
      }
      const perWallet = Math.max(2, Math.round(q.sellersPerWallet * q.sellers));
      for (let k = 0; k < q.wallets; k++) {
        const w = b.address();
        buyer(w);
        const start = t0 + b.rng.next() * q.startSpreadDays * DAY;
        fundThrough(b, root, w, q.hops, start - b.rng.uniform(0.5, 24) * HOUR, b.rng.uniform(20, 80), relays);
        const mine = b.rng
          .shuffle([...sellers])
          .slice(0, perWallet)
          .flat();
        const end = start + b.rng.uniform(7, 40) * DAY;
        const n = lognormalCount(b.rng, q.callsMedian, 0.5);
        const own = Math.round(n * clamp(q.operatorShare + b.rng.uniform(-0.03, 0.03), 0.48, 0.65));
        sessions(b, w, mine, own, start, end);
        sessions(b, w, b.distinctPopular(b.rng.int(2, 6), start), n - own, start, end);
      }
      for (const services of sellers) realCustomers(b, organic, services, q.realCustomers, t0, t0 + q.startSpreadDays * DAY + 30 * DAY);
    },
  }),

  mixed_funding: family({
    kind: 'wash',
    label: 'suspected_wash',
    against: "first-funder rules: the operator's transfer is not the first funding (an exchange withdrawal is)",
    about:
      "Each sybil first withdraws from an exchange like anyone, then gets about as much again from the seller's owner through a relay before it starts paying: half of what it spends is the owner's money.",
    params: {
      wallets: param('sybil wallets', [15, 40], true),
      operatorShare: param("share of a sybil's money from the operator", [0.35, 0.65]),
      delayHours: param("hours from the exchange withdrawal to the operator's transfer", [2, 96]),
      relays: param('relays the operator pays the sybils through', [1, 3], true),
      startSpreadDays: param('days from first to last sybil start', [2, 30]),
      callsMedian: param('calls per sybil (median)', [15, 50]),
      callsSigma: param('log-sd of calls per sybil', [0.3, 0.8]),
    },
    instances: 2,
    plant({ b, buyer }, q) {
      const t0 = b.now - b.rng.uniform(q.startSpreadDays + 35, 165) * DAY;
      const operator = treasury(b, t0 - b.rng.uniform(20, 40) * DAY);
      const farm = washSeller(b, t0 - b.rng.uniform(1, 10) * DAY);
      ownedBy(b, farm, operator);
      const relays = Array.from({ length: q.relays }, () => {
        const r = b.address();
        b.fund(r, operator, b.rng.uniform(500, 2000), t0 - b.rng.uniform(5, 10) * DAY);
        return r;
      });
      for (let k = 0; k < q.wallets; k++) {
        const w = b.address();
        buyer(w);
        const withdrawn = t0 + b.rng.next() * q.startSpreadDays * DAY;
        const own = b.rng.uniform(10, 60);
        b.fundFromExchange(w, withdrawn, own);
        const topped = withdrawn + b.rng.logNormal(Math.log(q.delayHours * HOUR), 0.4);
        b.fund(w, b.rng.pick(relays), (own * q.operatorShare) / (1 - q.operatorShare), topped);
        const start = topped + b.rng.uniform(0.5, 24) * HOUR;
        const end = start + b.rng.uniform(5, 30) * DAY;
        sessions(b, w, favourite(b, farm), lognormalCount(b.rng, q.callsMedian, q.callsSigma), start, end);
        sprinkle(b, w, start, end);
      }
    },
  }),

  peel_chain: family({
    kind: 'wash',
    label: 'suspected_wash',
    against: 'common-funder group and dedicated root: a root needs >= 5 core wallets within 4 hops (a chain has at most 4)',
    about:
      'A peel chain: the operator funds one wallet, which pays the seller for a few days and then passes its remainder to a fresh wallet that carries on, and so on down a chain of ten to forty wallets over weeks.',
    params: {
      length: param('wallets in the chain', [10, 40], true),
      daysPerWallet: param('days each wallet pays (mean)', [1.5, 6]),
      callsPerDay: param('calls per day', [3, 20]),
      realCustomers: param('real customers of the seller', [0, 6], true),
    },
    instances: 3,
    plant({ b, buyer, organic }, q) {
      const perWallet = Math.min(q.daysPerWallet, 140 / q.length);
      const total = q.length * perWallet;
      const t0 = b.now - b.rng.uniform(total + 10, Math.max(total + 12, 168)) * DAY;
      const operator = treasury(b, t0 - b.rng.uniform(10, 30) * DAY);
      const farm = washSeller(b, t0 - b.rng.uniform(1, 10) * DAY);
      ownedBy(b, farm, operator);
      const meanPrice = farm.reduce((s, x) => s + x.price, 0) / farm.length;
      let balance = total * q.callsPerDay * meanPrice * b.rng.uniform(1.2, 1.5) + 5;
      let holder = operator;
      let t = t0 - b.rng.uniform(1, 12) * HOUR;
      for (let k = 0; k < q.length && t < b.now; k++) {
        const w = b.address();
        buyer(w);
        b.fund(w, holder, balance, t);
        const start = t + b.rng.uniform(0.2, 6) * HOUR;
        const days = perWallet * b.rng.uniform(0.6, 1.4);
        const n = Math.max(3, Math.round(q.callsPerDay * days * b.rng.logNormal(0, 0.3)));
        balance = Math.max(1, balance - sessions(b, w, favourite(b, farm), n, start, start + days * DAY) * 1.001);
        sprinkle(b, w, start, start + days * DAY, 0.15);
        holder = w;
        t = start + days * DAY + b.rng.uniform(0.5, 12) * HOUR;
      }
      realCustomers(b, organic, farm, q.realCustomers, t0, t);
    },
  }),

  exchange_laundered: family({
    kind: 'wash',
    label: 'suspected_wash',
    against: 'an exchange ends a funding chain; a funding burst needs 12 h and a 15 % band (here withdrawals over days, varied amounts)',
    about:
      "The seller's owner deposits its float at an exchange, then withdraws to fresh wallets over several days in varied amounts; they pay only its seller and are most of its traffic.",
    params: {
      wallets: param('fresh wallets withdrawn to', [15, 40], true),
      withdrawDays: param('days over which the withdrawals happen', [2, 14]),
      amountSpread: param('relative spread of the amounts (+/-)', [0.2, 0.6]),
      startDelayHours: param('hours from withdrawal to first payment (median)', [2, 72]),
      callsMedian: param('calls per wallet (median)', [10, 40]),
      callsSigma: param('log-sd of calls per wallet', [0.4, 0.9]),
      realCustomers: param('real customers of the seller', [0, 5], true),
    },
    instances: 2,
    plant({ b, buyer, organic }, q) {
      const t0 = b.now - b.rng.uniform(q.withdrawDays + 35, 165) * DAY;
      const operator = treasury(b, t0 - b.rng.uniform(20, 40) * DAY);
      const farm = washSeller(b, t0 - b.rng.uniform(1, 10) * DAY);
      ownedBy(b, farm, operator);
      const exchange = b.rng.pick(b.exchanges);
      const base = b.rng.uniform(15, 80);
      b.fund(exchange, operator, base * q.wallets * 1.1, t0 - b.rng.uniform(1, 5) * DAY);
      for (let k = 0; k < q.wallets; k++) {
        const w = b.address();
        buyer(w);
        const at = t0 + b.rng.next() * q.withdrawDays * DAY;
        b.fund(w, exchange, base * (1 + b.rng.uniform(-q.amountSpread, q.amountSpread)), at);
        const start = at + b.rng.logNormal(Math.log(q.startDelayHours * HOUR), 0.7);
        const end = start + b.rng.uniform(5, 30) * DAY;
        sessions(b, w, favourite(b, farm), lognormalCount(b.rng, q.callsMedian, q.callsSigma), start, end);
      }
      realCustomers(b, organic, farm, q.realCustomers, t0, t0 + 30 * DAY);
    },
  }),

  cross_operator_swap: family({
    kind: 'wash',
    label: 'suspected_wash',
    against: "seller- and operator-funded rules: the sybils are funded by another operator, not the seller's own keys",
    about:
      "Two or three operators swap sybils: each funds wallets that pay the others' sellers, never its own, and the operators settle the difference between their treasuries now and then.",
    params: {
      operators: param('operators in the swap', [2, 3], true),
      sellersPerOperator: param('sellers each operator runs', [1, 3], true),
      walletsPerOperator: param('sybils each operator funds', [8, 25], true),
      hops: param('transfers from an operator to its sybils', [1, 2], true),
      startSpreadDays: param('days from first to last sybil start', [2, 30]),
      callsMedian: param('calls per sybil (median)', [15, 50]),
      settlements: param('settlements between the operators', [2, 6], true),
    },
    instances: 2,
    plant({ b, buyer, organic }, q) {
      const t0 = b.now - b.rng.uniform(q.startSpreadDays + 40, 165) * DAY;
      const ops = Array.from({ length: q.operators }, () => {
        const root = treasury(b, t0 - b.rng.uniform(20, 40) * DAY);
        const sellers = Array.from({ length: q.sellersPerOperator }, () => {
          const s = washSeller(b, t0 - b.rng.uniform(2, 15) * DAY, 1, [0.005, 0.01, 0.02, 0.05, 0.1, 0.25]);
          ownedBy(b, s, root);
          sweeps(b, s[0]!.seller, root, t0);
          return s[0]!;
        });
        return { root, sellers };
      });
      for (const op of ops) {
        const partners = ops.filter((o) => o !== op).flatMap((o) => o.sellers);
        let funder = op.root;
        if (q.hops === 2) {
          funder = b.address();
          b.fund(funder, op.root, b.rng.uniform(500, 2000), t0 - b.rng.uniform(2, 5) * DAY);
        }
        for (let k = 0; k < q.walletsPerOperator; k++) {
          const w = b.address();
          buyer(w);
          const start = t0 + b.rng.next() * q.startSpreadDays * DAY;
          b.fund(w, funder, b.rng.uniform(15, 80), start - b.rng.uniform(0.2, 24) * HOUR);
          const end = start + b.rng.uniform(5, 30) * DAY;
          const main = b.rng.pick(partners);
          sessions(b, w, [main], lognormalCount(b.rng, q.callsMedian, 0.5), start, end);
          if (partners.length > 1 && b.rng.chance(0.3)) sessions(b, w, [b.rng.pick(partners)], b.rng.int(1, 5), start, end);
          sprinkle(b, w, start, end);
        }
      }
      const span = q.startSpreadDays + 30;
      for (let s = 0; s < q.settlements; s++) {
        const [a, c] = b.rng.shuffle([...ops]);
        transfer(b, c!.root, a!.root, b.rng.uniform(50, 500), t0 + ((s + 1) / (q.settlements + 1)) * span * DAY);
      }
      for (const op of ops) realCustomers(b, organic, op.sellers, b.rng.int(0, 3), t0, t0 + span * DAY);
    },
  }),

  agent_mimic: family({
    kind: 'wash',
    label: 'suspected_wash',
    against:
      'core share > 50 % and operator share >= 66 %; the ai_agent rule (here 40-60 % to the farm, 5+ services in several categories)',
    about:
      "An operator's wallets behave like AI agents: usage-based amounts at irregular times over weeks across five or more popular services in several categories, but 40-60 % of their payments go to the operator's own seller.",
    params: {
      wallets: param('agent-like sybils', [15, 35], true),
      farmShare: param("share of a wallet's payments to the operator's seller", [0.4, 0.6]),
      popular: param('popular services each wallet also uses', [5, 10], true),
      callsMedian: param('calls per wallet (median)', [30, 80]),
      amountSigma: param('log-sd of amounts around the list price', [0.3, 0.7]),
      spanDays: param('days each wallet is active', [10, 40]),
      startSpreadDays: param('days from first to last start', [2, 30]),
    },
    instances: 2,
    plant({ b, buyer }, q) {
      const t0 = b.now - b.rng.uniform(q.spanDays * 1.3 + q.startSpreadDays + 10, 168) * DAY;
      const operator = treasury(b, t0 - b.rng.uniform(10, 30) * DAY);
      const farm = washSeller(b, t0 - b.rng.uniform(1, 10) * DAY, b.rng.int(1, 3), [0.005, 0.01, 0.02, 0.05]);
      ownedBy(b, farm, operator);
      const usage = (s: Service) => s.price * b.rng.logNormal(0, q.amountSigma);
      for (let k = 0; k < q.wallets; k++) {
        const w = b.address();
        buyer(w);
        const start = t0 + b.rng.next() * q.startSpreadDays * DAY;
        const end = start + q.spanDays * b.rng.uniform(0.7, 1.3) * DAY;
        b.fund(w, operator, b.rng.uniform(20, 100), start - b.rng.uniform(0.1, 12) * HOUR);
        const n = lognormalCount(b.rng, q.callsMedian, 0.5);
        const own = Math.round(n * clamp(q.farmShare + b.rng.uniform(-0.05, 0.05), 0.38, 0.62));
        const at = () => start + b.rng.next() * (end - start);
        payAt(b, w, farm, Array.from({ length: own }, at), WASH, usage);
        payAt(b, w, b.distinctPopular(q.popular, start), Array.from({ length: n - own }, at), WASH, usage);
      }
    },
  }),

  slow_drip: family({
    kind: 'wash',
    label: 'suspected_wash',
    against:
      "common-funder group's window branch (funded within 24 h, starts in one hour) and synchronised start: one new sybil every 3-10 days (a dedicated root still applies)",
    about:
      "An operator adds one sybil at a time, every few days for months, each funded through a fresh relay wallet and paying the operator's seller for two to four weeks, so no two start together.",
    params: {
      months: param('months the drip runs', [3, 5]),
      everyDays: param('days between new sybils (mean)', [3, 10]),
      payDays: param('days each sybil pays (mean)', [14, 28]),
      callsPerDay: param('calls per sybil per day', [1, 6]),
      operatorFundsSeller: param("1: the operator also funded the seller's launch", [0, 1], true),
    },
    instances: 3,
    plant({ b, buyer }, q) {
      const span = q.months * 30 * DAY;
      const t0 = b.now - b.rng.uniform(q.months * 30 + 8, 170) * DAY;
      const operator = treasury(b, t0 - b.rng.uniform(10, 30) * DAY);
      const farm = washSeller(b, t0 - b.rng.uniform(1, 10) * DAY);
      if (q.operatorFundsSeller === 1) ownedBy(b, farm, operator);
      else selfFunded(b, farm);
      for (
        let t = t0 + b.rng.next() * q.everyDays * DAY;
        t < Math.min(t0 + span, b.now - DAY);
        t += q.everyDays * b.rng.uniform(0.6, 1.4) * DAY
      ) {
        const w = b.address();
        buyer(w);
        const relay = b.address();
        const amount = b.rng.uniform(15, 70);
        b.fund(relay, operator, amount * 1.02, t - b.rng.uniform(6, 48) * HOUR);
        b.fund(w, relay, amount, t - b.rng.uniform(0.2, 5) * HOUR);
        const days = q.payDays * b.rng.uniform(0.75, 1.25);
        sessions(b, w, favourite(b, farm), lognormalCount(b.rng, q.callsPerDay * days, 0.3), t, t + days * DAY);
        sprinkle(b, w, t, t + days * DAY);
      }
    },
  }),

  faucet_first: family({
    kind: 'wash',
    label: 'suspected_wash',
    against: 'first-funder chains end at hubs: the first funding is a public grant that many real users get too',
    about:
      "An operator signs its sybils up for a wallet provider's onboarding grant, so their first funder is the provider's paymaster (which funds many real users); its own money arrives later, directly or through a relay, and the sybils pay its seller.",
    params: {
      wallets: param('sybil wallets', [12, 30], true),
      faucetUsersPerSybil: param("real sign-ups per sybil among the paymaster's grants", [1.3, 3]),
      startSpreadDays: param('days from first to last sybil start', [3, 40]),
      callsMedian: param('calls per sybil (median)', [15, 50]),
      callsSigma: param('log-sd of calls per sybil', [0.3, 0.9]),
      viaRelay: param("1: the operator's money passes through a relay", [0, 1], true),
    },
    instances: 2,
    plant({ b, buyer, organic }, q) {
      const t0 = b.now - b.rng.uniform(q.startSpreadDays + 35, 165) * DAY;
      const paymaster = treasury(b, t0 - 40 * DAY, b.rng.uniform(5000, 20000));
      const grant = b.rng.pick([0.1, 0.25, 0.5, 1]);
      const operator = treasury(b, t0 - b.rng.uniform(10, 30) * DAY);
      const farm = washSeller(b, t0 - b.rng.uniform(1, 10) * DAY);
      ownedBy(b, farm, operator);
      let funder = operator;
      if (q.viaRelay === 1) {
        funder = b.address();
        b.fund(funder, operator, b.rng.uniform(500, 2000), t0 - b.rng.uniform(3, 8) * DAY);
      }
      // the paymaster's real sign-ups over the same weeks, who then use popular services
      const window = q.startSpreadDays + 20;
      for (let k = Math.round(q.wallets * q.faucetUsersPerSybil); k > 0; k--) {
        const w = b.address();
        organic(w);
        const signup = t0 - 10 * DAY + b.rng.next() * window * DAY;
        b.fund(w, paymaster, grant, signup);
        organicUse(b, w, signup + b.rng.uniform(0.05, 72) * HOUR);
        if (b.rng.chance(0.4)) b.withdraw(w, signup + b.rng.uniform(1, 30) * DAY);
      }
      for (let k = 0; k < q.wallets; k++) {
        const w = b.address();
        buyer(w);
        const start = t0 + b.rng.next() * q.startSpreadDays * DAY;
        const signup = start - b.rng.uniform(1, 10) * DAY;
        b.fund(w, paymaster, grant, signup);
        b.fund(w, funder, b.rng.uniform(20, 80), signup + b.rng.uniform(0.2, 0.9) * (start - signup));
        const end = start + b.rng.uniform(5, 30) * DAY;
        sessions(b, w, favourite(b, farm), lognormalCount(b.rng, q.callsMedian, q.callsSigma), start, end);
        sprinkle(b, w, start, end);
      }
    },
  }),
};
