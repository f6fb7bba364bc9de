/**
 * Honest families (issue 46): real behaviour that resembles wash (crowds that look like cohorts,
 * money that flows from a seller to its customers for honest reasons, a few customers who are most
 * of a small service), some sitting just inside the thresholds of rules of the kinds we have
 * (docs/wash-methodology.md §4-5). None of their buyers is suspected_wash.
 *
 * Conventions: every paying wallet a family makes is marked with `buyer` (its family's label); the
 * ordinary customers a family's new sellers also have are marked `organic` (background users).
 * Activity lies within the last 10-170 days before `b.now`.
 */
import { DAY, HOUR, lognormalCount, MINUTE, organicUse, sessionTimes } from '../challenge/builder.ts';
import { type Builder, family, type FamilyDef, param, type Service } from './family.ts';

/** `n` payments of `w` to `s` in a person's sessions over [from, to] (clipped to now); returns `n`. */
function callsOver(b: Builder, w: string, s: Service, n: number, from: number, to: number, label: string, amount?: () => number): number {
  for (const t of sessionTimes(b.rng, n, from, Math.min(to, b.now))) b.pay(w, s, t, label, amount ? amount() : s.price);
  return n;
}

/**
 * A person's own money at `at`: an exchange withdrawal, or (with chance `viaFriend`) a transfer
 * from a friend or from an older wallet of theirs that withdrew earlier: funders nobody shares.
 */
function ownMoney(b: Builder, w: string, at: number, viaFriend = 0.3): void {
  if (b.rng.chance(viaFriend)) {
    const friend = b.address();
    b.withdraw(friend, at - b.rng.uniform(1, 60) * DAY);
    b.fund(w, friend, b.rng.uniform(2, 80), at);
  } else b.withdraw(w, at);
}

/** A round fiat-like amount less a fee, as exchanges and on-ramps deliver it. */
const lessFee = (b: Builder, amounts: readonly number[], feeLo: number, feeHi: number): number =>
  b.rng.pick(amounts) * (1 - b.rng.uniform(feeLo, feeHi));

/** Honest services listed before `t`, picked uniformly (an agent choosing tools from a directory, not by popularity). */
function directoryPicks(b: Builder, n: number, t: number): Service[] {
  const listed = b.popularPool.filter((s) => s.firstSeen < t);
  return b.rng.shuffle([...listed]).slice(0, Math.min(n, listed.length));
}

/** A usage-priced amount around the list price (upto schemes: agents pay for what they use). */
const usage =
  (b: Builder, s: Service, sigma = 0.6) =>
  () =>
    s.price * b.rng.logNormal(0, sigma);

export const HONEST_FAMILIES: Record<string, FamilyDef> = {
  refunding_seller: family({
    kind: 'honest',
    label: 'organic_user',
    against: 'round trips: money from the seller back to its buyers',
    about:
      'A seller refunds failed calls: some customers get a few small transfers back from the seller (a few percent of what they paid), as any service with an SLA does.',
    params: {
      customers: param('customers of the service', [30, 80], true),
      refundedShare: param('share of customers refunded at least once', [0.2, 0.6]),
      refundShare: param('share of what a refunded customer paid that comes back', [0.02, 0.12]),
      refunds: param('refund transfers per refunded customer', [1, 4], true),
    },
    instances: 3,
    plant({ b, buyer }, q) {
      const seller = b.address();
      const listed = b.now - b.rng.uniform(60, 170) * DAY;
      const svc = b.service(seller, listed, true, b.rng.pick([0.01, 0.02, 0.05]));
      for (let k = 0; k < q.customers; k++) {
        const w = b.address();
        buyer(w);
        const start = organicUse(b, w, listed + b.rng.uniform(1, 50) * DAY, { first: svc, callsMedian: 8 });
        b.withdraw(w, start - b.rng.uniform(0.5, 200) * HOUR);
        if (b.rng.chance(q.refundedShare)) {
          const paid = 8 * svc.price;
          for (let j = 0; j < q.refunds; j++) b.fund(w, seller, (paid * q.refundShare) / q.refunds, start + b.rng.uniform(1, 20) * DAY);
        }
      }
    },
  }),

  promo_credits: family({
    kind: 'honest',
    label: 'organic_user',
    against:
      'seller-funded rules (seller_funded flag, funded_loop rule 4, self_test rule 10): the seller sends every new customer money; when the credit lands before the customer’s own withdrawal the seller is its first funder',
    about:
      'A service gives each sign-up a small fixed credit ($0.50-2) from its own wallet; customers fund themselves from exchanges with far more, keep using the service for weeks and use other services too.',
    params: {
      customers: param('customers who claimed the credit', [20, 70], true),
      creditUsd: param('credit per sign-up (USD, to the quarter)', [0.5, 2]),
      creditFirstShare: param('share of customers whose credit lands before their own withdrawal', [0, 0.7]),
      callsMedian: param('calls per customer to the service (median)', [15, 80]),
      otherUseShare: param('share of customers who also use popular services', [0.3, 0.9]),
    },
    instances: 2,
    plant({ b, buyer }, q) {
      const seller = b.address();
      const listed = b.now - b.rng.uniform(60, 170) * DAY;
      const svc = b.service(seller, listed, true, b.rng.pick([0.02, 0.05, 0.1]));
      // the promotion's budget, from the seller's own exchange account
      b.fundFromExchange(seller, listed - b.rng.uniform(1, 10) * DAY, b.rng.uniform(300, 3000));
      const credit = Math.max(0.5, Math.round(q.creditUsd * 4) / 4);
      for (let k = 0; k < q.customers; k++) {
        const w = b.address();
        buyer(w);
        const signup = listed + b.rng.uniform(0.2, 1) * (b.now - 10 * DAY - listed);
        if (b.rng.chance(q.creditFirstShare)) {
          // signs up with a fresh wallet, spends the credit, then tops up from an exchange
          b.fund(w, seller, credit, signup);
          b.withdraw(w, signup + b.rng.uniform(0.2, 72) * HOUR);
        } else {
          b.withdraw(w, signup - b.rng.uniform(0.5, 200) * HOUR);
          b.fund(w, seller, credit, signup);
        }
        const start = signup + b.rng.uniform(2, 120) * MINUTE;
        callsOver(
          b,
          w,
          svc,
          lognormalCount(b.rng, q.callsMedian, 0.9),
          start,
          start + b.rng.logNormal(Math.log(30 * DAY), 0.8),
          'organic_user',
        );
        if (b.rng.chance(q.otherUseShare)) organicUse(b, w, start + b.rng.uniform(0, 20) * DAY);
      }
    },
  }),

  niche_loyal_community: family({
    kind: 'honest',
    label: 'organic_user',
    against:
      'farm flag (core >= 10 and >= 80 % of the cohort, 2 of 5 signals): dedicated, repeat members are nearly all of the cohort; starts spread over weeks, funded by the large exchange (no root), one price',
    about:
      "A niche service (a hobby community's data feed) whose 15-40 members found it through a forum over weeks to months; each withdraws from the large exchange at its own time and amount and uses little else for months, so they are most of its traffic.",
    params: {
      members: param('community members', [15, 40], true),
      joinSpreadDays: param('days over which members join', [10, 100]),
      callsPerWeek: param('calls per member per week (median)', [1, 8]),
      usageSpread: param('log-sd of how much members use it', [0.4, 1.2]),
      stayDays: param('days a member stays (median)', [30, 150]),
      otherUseShare: param('share of members who also use popular services', [0, 0.4]),
      outsiders: param('occasional outside customers', [0, 5], true),
    },
    instances: 2,
    plant({ b, buyer, organic }, q) {
      const seller = b.address();
      const listed = b.now - b.rng.uniform(Math.max(60, q.joinSpreadDays + 30), 170) * DAY;
      const svc = b.service(seller, listed, true, b.rng.pick([0.01, 0.02, 0.05, 0.1]));
      for (let k = 0; k < q.members; k++) {
        const w = b.address();
        buyer(w);
        const join = listed + b.rng.uniform(0.5, 3) * DAY + b.rng.next() * q.joinSpreadDays * DAY;
        b.fund(w, b.largeExchange, b.rng.uniform(8, 250), join - b.rng.uniform(1, 400) * HOUR);
        const end = Math.min(b.now, join + q.stayDays * b.rng.logNormal(0, 0.4) * DAY);
        // later top-ups from the same exchange, at their own times and amounts
        for (let t = join + b.rng.uniform(20, 45) * DAY; t < end; t += b.rng.uniform(20, 45) * DAY) {
          if (b.rng.chance(0.5)) b.fund(w, b.largeExchange, b.rng.uniform(8, 150), t);
        }
        const weeks = Math.max(0.5, (end - join) / (7 * DAY));
        const n = Math.max(3, Math.round(q.callsPerWeek * b.rng.logNormal(0, q.usageSpread) * weeks));
        callsOver(b, w, svc, n, join, end, 'organic_user');
        if (b.rng.chance(q.otherUseShare)) organicUse(b, w, join + b.rng.uniform(0, 30) * DAY, { callsMedian: 2 });
      }
      for (let k = 0; k < q.outsiders; k++) {
        const w = b.address();
        organic(w);
        const start = organicUse(b, w, listed + b.rng.uniform(5, 60) * DAY, { first: svc });
        b.withdraw(w, start - b.rng.uniform(0.5, 200) * HOUR);
      }
    },
  }),

  household_wallets: family({
    kind: 'honest',
    label: 'organic_user',
    against:
      'common-funder group (rule 8): one root funds up to 6 wallets within minutes with one whole-number amount, month after month; they may share a favourite popular service',
    about:
      "A parent funds 2-6 family members' wallets with the same monthly allowance in one sitting; each member uses popular services on their own (sometimes the household's favourite), and the parent may use some too.",
    params: {
      members: param('family members funded', [2, 6], true),
      allowanceUsd: param('monthly allowance per member (USD, to $5)', [10, 150]),
      months: param('monthly allowances paid', [1, 5], true),
      sharedFavouriteShare: param("chance a member starts with the household's favourite service", [0, 0.7]),
      parentPays: param('chance the parent uses services too', [0, 0.6]),
    },
    instances: 12,
    plant({ b, buyer }, q) {
      const t0 = b.now - b.rng.uniform(q.months * 30 + 10, 170) * DAY;
      const parent = b.address();
      b.fundFromExchange(parent, t0 - b.rng.uniform(1, 5) * DAY, b.rng.uniform(500, 5000));
      const allowance = Math.max(5, Math.round(q.allowanceUsd / 5) * 5);
      const favourite = b.popularHonest(t0);
      const members = Array.from({ length: q.members }, () => b.address());
      for (let m = 0; m < q.months; m++) {
        const sitting = t0 + m * 30 * DAY + (m > 0 ? b.rng.uniform(-2, 2) * DAY : 0);
        members.forEach((w, j) => b.fund(w, parent, allowance, sitting + j * b.rng.uniform(0.5, 4) * MINUTE));
      }
      for (const w of members) {
        buyer(w);
        organicUse(b, w, t0 + b.rng.uniform(0.05, 10) * DAY, {
          extraServicesMean: 1.5,
          ...(b.rng.chance(q.sharedFavouriteShare) ? { first: favourite } : {}),
        });
      }
      if (b.rng.chance(q.parentPays)) {
        buyer(parent);
        organicUse(b, parent, t0 + b.rng.uniform(0, 20) * DAY);
      }
    },
  }),

  exchange_seller: family({
    kind: 'honest',
    label: 'organic_user',
    against:
      'seller-funded rules (seller_funded flag, funded_loop rule 4, self_test rule 10): the payTo is also a listed exchange hot wallet that first-funds most of its own customers',
    about:
      'An exchange runs a paid market-data API whose payTo is one of its hot wallets; its customers withdraw from that exchange (it is where their money is) and pay the API, many also other services.',
    params: {
      customers: param('customers of the API', [25, 70], true),
      exchangeFundedShare: param('share of customers withdrawing from that exchange', [0.6, 1]),
      callsMedian: param('calls per customer to the API (median)', [3, 30]),
      otherUseShare: param('share of customers who also use popular services', [0.3, 0.9]),
    },
    instances: 2,
    plant({ b, buyer }, q) {
      const exchange = b.rng.pick(b.exchanges);
      const listed = b.now - b.rng.uniform(60, 170) * DAY;
      const api = b.service(exchange, listed, true, b.rng.pick([0.001, 0.002, 0.005, 0.01]));
      for (let k = 0; k < q.customers; k++) {
        const w = b.address();
        buyer(w);
        const start = listed + b.rng.uniform(0.1, 1) * (b.now - 10 * DAY - listed);
        const funded = start - b.rng.uniform(0.2, 300) * HOUR;
        if (b.rng.chance(q.exchangeFundedShare)) b.fund(w, exchange, lessFee(b, [20, 50, 100, 200, 500], 0, 0.01), funded);
        else b.withdraw(w, funded);
        callsOver(
          b,
          w,
          api,
          lognormalCount(b.rng, q.callsMedian, 1),
          start,
          start + b.rng.logNormal(Math.log(30 * DAY), 0.8),
          'organic_user',
        );
        if (b.rng.chance(q.otherUseShare)) organicUse(b, w, start + b.rng.uniform(0, 20) * DAY);
      }
    },
  }),

  dao_grants: family({
    kind: 'honest',
    label: 'organic_user',
    against:
      'operator rules (4a operator cohort, 4b operator test), funded_loop (rule 4) and funding bursts (8a): the DAO funded every builder with one amount within minutes, and its own API pays out to (or sweeps to) that treasury',
    about:
      "A DAO treasury sends a grant round (one amount) to 20-60 builders within minutes; builders spend on many services over months, some also on the DAO's own API, whose payTo is the treasury or a wallet that sweeps to it.",
    params: {
      builders: param('builders granted', [20, 60], true),
      grantUsd: param('grant per builder (USD, to $100)', [500, 5000]),
      grantWindowMinutes: param('minutes the grant transfers take', [2, 45]),
      daoApiShare: param("share of builders using the DAO's API", [0.1, 0.6]),
      payToTreasury: param("the DAO API's payTo is the treasury itself (1) or a wallet sweeping to it (0)", [0, 1], true),
      servicesPerBuilder: param('other services a builder uses', [2, 9], true),
    },
    instances: 2,
    plant({ b, buyer }, q) {
      const t0 = b.now - b.rng.uniform(60, 165) * DAY;
      const treasury = b.address();
      b.fundFromExchange(treasury, t0 - b.rng.uniform(5, 15) * DAY, 500_000);
      const payTo = q.payToTreasury === 1 ? treasury : b.address();
      const api = b.service(payTo, t0 - b.rng.uniform(5, 15) * DAY, true, b.rng.pick([0.005, 0.01, 0.02, 0.05]));
      if (payTo !== treasury) {
        for (let t = api.firstSeen + b.rng.uniform(20, 35) * DAY; t < b.now; t += b.rng.uniform(25, 35) * DAY)
          b.fund(treasury, payTo, b.rng.uniform(5, 200), t);
      }
      const grant = Math.max(100, Math.round(q.grantUsd / 100) * 100);
      for (let k = 0; k < q.builders; k++) {
        const w = b.address();
        buyer(w);
        b.fund(w, treasury, grant, t0 + b.rng.next() * q.grantWindowMinutes * MINUTE);
        const from = t0 + b.rng.uniform(0.5, 14) * DAY;
        const to = Math.min(b.now, from + b.rng.uniform(30, 150) * DAY);
        const services = b.distinctPopular(b.rng.int(1, q.servicesPerBuilder), from);
        if (b.rng.chance(q.daoApiShare)) services.push(api);
        for (const s of services) callsOver(b, w, s, lognormalCount(b.rng, 8, 1), from, to, 'organic_user');
      }
    },
  }),

  hackathon_faucet: family({
    kind: 'honest',
    label: 'developer',
    against:
      'farm, common funder and funding burst (rules 7, 8, 8a): one faucet, one amount within an hour, one fresh service, starts within hours; only the burst-density tester exclusion (>= 3 calls per active minute, <= 3 days) keeps them out of the cohort',
    about:
      "A hackathon's faucet sends every registered developer the same small amount within the hour before kick-off; each fires bursts of calls at the sponsor's fresh API over the afternoon (or a two-day weekend), some try a few popular services.",
    params: {
      developers: param('developers', [20, 70], true),
      grantUsd: param('faucet amount (USD, whole)', [2, 20]),
      startWindowHours: param('hours over which developers make their first call', [0.5, 3]),
      burstSpacingSeconds: param('seconds between calls in a burst (median): a script, or a person editing between calls', [2, 30]),
      burstsPerDay: param('bursts per developer per day (at most)', [1, 4], true),
      days: param('days of hacking', [1, 2], true),
      shareTryingOthers: param('share trying other services', [0.1, 0.6]),
    },
    instances: 2,
    otherPairLabels: ['organic_user'],
    plant({ b, buyer }, q) {
      const day = Math.floor((b.now - b.rng.uniform(12, 160) * DAY) / DAY) * DAY;
      const t0 = day + b.rng.uniform(9, 15) * HOUR;
      const sponsor = b.address();
      const fresh = b.service(sponsor, t0 - b.rng.uniform(1, 48) * HOUR, true, b.rng.pick([0.001, 0.002, 0.005, 0.01]));
      const faucet = b.address();
      b.fundFromExchange(faucet, t0 - b.rng.uniform(1, 5) * DAY, b.rng.uniform(500, 3000));
      const grant = Math.max(1, Math.round(q.grantUsd));
      for (let k = 0; k < q.developers; k++) {
        const w = b.address();
        buyer(w);
        b.fund(w, faucet, grant, t0 - b.rng.uniform(0, 60) * MINUTE);
        const start = t0 + b.rng.next() * q.startWindowHours * HOUR;
        for (let d = 0; d < q.days; d++) {
          for (let j = b.rng.int(1, q.burstsPerDay); j > 0; j--) {
            let t = d === 0 && j === 1 ? start : start + d * DAY + b.rng.uniform(0.2, 9) * HOUR;
            for (let c = b.rng.int(5, 40); c > 0; c--) {
              b.pay(w, fresh, t, 'developer');
              t += 1000 * b.rng.logNormal(Math.log(q.burstSpacingSeconds), 0.5);
            }
          }
        }
        if (b.rng.chance(q.shareTryingOthers)) {
          for (const s of b.distinctPopular(b.rng.int(1, 3), t0)) {
            for (let c = b.rng.int(1, 4); c > 0; c--) b.pay(w, s, start + b.rng.uniform(0.5, 30) * HOUR, 'organic_user');
          }
        }
      }
    },
  }),

  dev_event_sponsor: family({
    kind: 'honest',
    label: 'developer',
    against:
      "funding burst (rule 8a) and common-funder group (rule 8): one organisation funds every attendee one amount and they start within the hour; they spread over the sponsor's and partners' services (operator share under 66 % for most)",
    about:
      "At a developer event the organiser funds every attendee's fresh wallet with the same amount; each tries 2-6 APIs, the sponsor's first, a few calls each seconds to a minute apart, minutes between APIs.",
    params: {
      attendees: param('attendees', [25, 90], true),
      grantUsd: param('amount per attendee (USD, whole)', [5, 25]),
      startWindowMinutes: param('minutes over which attendees start', [20, 120]),
      servicesPerAttendee: param('APIs each attendee tries', [2, 6], true),
      callsPerService: param('calls per API (median)', [2, 8]),
      sponsorServices: param("sponsor's services", [1, 2], true),
    },
    instances: 2,
    plant({ b, buyer }, q) {
      const day = Math.floor((b.now - b.rng.uniform(12, 160) * DAY) / DAY) * DAY;
      const t0 = day + b.rng.uniform(9, 16) * HOUR;
      const organiser = b.address();
      b.fundFromExchange(organiser, t0 - b.rng.uniform(1, 7) * DAY, b.rng.uniform(1000, 5000));
      const sponsor = b.address();
      const sponsored = Array.from({ length: q.sponsorServices }, () =>
        b.service(sponsor, t0 - b.rng.uniform(0.1, 40) * DAY, true, b.rng.pick([0.001, 0.005, 0.01])),
      );
      const partners = b.distinctPopular(6, t0);
      const grant = Math.max(1, Math.round(q.grantUsd));
      for (let k = 0; k < q.attendees; k++) {
        const w = b.address();
        buyer(w);
        b.fund(w, organiser, grant, t0 - b.rng.uniform(5, 120) * MINUTE);
        const others = b.rng.shuffle([...sponsored.slice(1), ...partners]).slice(0, q.servicesPerAttendee - 1);
        let t = t0 + b.rng.next() * q.startWindowMinutes * MINUTE;
        for (const s of [sponsored[0]!, ...others]) {
          for (let c = lognormalCount(b.rng, q.callsPerService, 0.6); c > 0; c--) {
            b.pay(w, s, t, 'developer');
            t += 1000 * b.rng.uniform(3, 60);
          }
          t += b.rng.uniform(5, 90) * MINUTE;
        }
      }
    },
  }),

  onboarding_grant: family({
    kind: 'honest',
    label: 'organic_user',
    against:
      'funding burst (rule 8a): a campaign day sends one amount from one source to dozens of fresh wallets within hours; they spread over popular services',
    about:
      "A wallet provider's paymaster gives every sign-up the same small amount (part of them on one campaign day); they use popular services as anyone does, some add their own money later.",
    params: {
      signups: param('sign-ups who pay for something', [25, 90], true),
      grantUsd: param('grant per sign-up (USD)', [0.5, 5]),
      signupSpreadDays: param('days of sign-ups', [1, 60]),
      campaignShare: param('share of sign-ups on one campaign day', [0, 0.6]),
      extraServicesMean: param('extra services per user (mean)', [0.5, 2.5]),
      callsMedian: param('calls per service (median)', [2, 8]),
      topUpShare: param('share adding their own money later', [0.1, 0.6]),
    },
    instances: 2,
    plant({ b, buyer }, q) {
      const t0 = b.now - b.rng.uniform(q.signupSpreadDays + 15, 170) * DAY;
      const paymaster = b.address();
      b.fundFromExchange(paymaster, t0 - b.rng.uniform(2, 10) * DAY, 20_000);
      const grant = Math.round(q.grantUsd * 100) / 100;
      const campaign = t0 + b.rng.next() * q.signupSpreadDays * DAY;
      for (let k = 0; k < q.signups; k++) {
        const w = b.address();
        buyer(w);
        const signup = b.rng.chance(q.campaignShare) ? campaign + b.rng.next() * 10 * HOUR : t0 + b.rng.next() * q.signupSpreadDays * DAY;
        b.fund(w, paymaster, grant, signup);
        organicUse(b, w, signup + b.rng.uniform(0.05, 72) * HOUR, { extraServicesMean: q.extraServicesMean, callsMedian: q.callsMedian });
        if (b.rng.chance(q.topUpShare)) b.withdraw(w, signup + b.rng.uniform(1, 30) * DAY);
      }
    },
  }),

  payroll_staff: family({
    kind: 'honest',
    label: 'organic_user',
    against:
      'common-funder group (rule 8): one payer, identical whole-number amounts within minutes on the same days; part of the staff also use the small vendor API their team standardised on',
    about:
      'A company pays 10-80 employees identical salaries on the same days; they spend as organic users (some never pay for a service), and some use a small vendor API their team chose for work.',
    params: {
      employees: param('employees who pay for services', [10, 80], true),
      silentShare: param('extra employees who never pay (share of the paying ones)', [0, 0.5]),
      paydays: param('monthly paydays', [2, 5], true),
      payWindowMinutes: param('minutes the salary run takes', [1, 60]),
      callsMedian: param('calls per service (median)', [2, 8]),
      teamToolShare: param("share of employees using the team's vendor API", [0, 0.5]),
    },
    instances: 2,
    plant({ b, buyer, organic }, q) {
      const firstDay = Math.floor((b.now - b.rng.uniform(q.paydays * 30 + 10, 170) * DAY) / DAY) * DAY;
      const payer = b.address();
      b.fundFromExchange(payer, firstDay - 5 * DAY, 300_000);
      const salary = b.rng.pick([250, 500, 1000, 1500, 2000, 3000]);
      const staff = Array.from({ length: q.employees + Math.round(q.employees * q.silentShare) }, () => b.address());
      for (let d = 0; d < q.paydays; d++) {
        const run = firstDay + d * 30 * DAY + b.rng.uniform(8, 11) * HOUR;
        for (const w of staff) b.fund(w, payer, salary, run + b.rng.next() * q.payWindowMinutes * MINUTE);
      }
      // the small vendor API the team uses at work, with a few outside customers of its own
      const vendor = b.service(
        b.address(),
        Math.max(b.now - 178 * DAY, firstDay - b.rng.uniform(10, 60) * DAY),
        true,
        b.rng.pick([0.01, 0.02, 0.05]),
      );
      for (let k = b.rng.int(3, 12); k > 0; k--) {
        const w = b.address();
        organic(w);
        const start = organicUse(b, w, vendor.firstSeen + b.rng.uniform(1, 100) * DAY, { first: vendor });
        b.withdraw(w, start - b.rng.uniform(0.5, 200) * HOUR);
      }
      for (const w of staff.slice(0, q.employees)) {
        buyer(w);
        const from = firstDay + b.rng.uniform(0.5, 20) * DAY;
        if (b.rng.chance(q.teamToolShare))
          callsOver(b, w, vendor, lognormalCount(b.rng, 10, 0.8), from, from + b.rng.uniform(20, 90) * DAY, 'organic_user');
        organicUse(b, w, from, { callsMedian: q.callsMedian });
      }
    },
  }),

  viral_single_api: family({
    kind: 'honest',
    label: 'organic_user',
    against:
      'farm flag (core >= 10 and >= 80 % of the cohort): a crowd of wallets dedicated to one fresh one-price service with starts synchronised within days; no common funder, uneven counts',
    about:
      'A new fixed-price API goes viral: many unrelated people (their own exchange withdrawals, a friend, an older wallet) pay it its one price, most of them nothing else.',
    params: {
      buyers: param('buyers', [40, 150], true),
      arrivalDays: param('days over which most arrive', [1, 20]),
      callsMedian: param('calls per buyer (median)', [2, 15]),
      shareOnlyThis: param('share paying only this service', [0.5, 0.9]),
    },
    instances: 1,
    plant({ b, buyer }, q) {
      const t0 = b.now - b.rng.uniform(q.arrivalDays + 15, 150) * DAY;
      const svc = b.service(b.address(), t0 - b.rng.uniform(0.5, 10) * DAY, true, b.rng.pick([0.005, 0.01, 0.02, 0.05]));
      for (let k = 0; k < q.buyers; k++) {
        const w = b.address();
        buyer(w);
        const start = t0 + Math.min(b.rng.exponential(q.arrivalDays / 3), 2 * q.arrivalDays) * DAY;
        ownMoney(b, w, start - b.rng.uniform(0.2, 240) * HOUR, 0.45);
        callsOver(
          b,
          w,
          svc,
          lognormalCount(b.rng, q.callsMedian, 0.8),
          start,
          start + b.rng.logNormal(Math.log(10 * DAY), 1),
          'organic_user',
        );
        if (!b.rng.chance(q.shareOnlyThis)) organicUse(b, w, start + b.rng.uniform(0, 10) * DAY);
      }
    },
  }),

  agent_fleet_treasury: family({
    kind: 'honest',
    label: 'ai_agent',
    against:
      'common-funder group and dedicated root (rule 8): one treasury funds every agent; when the fleet sends most of its calls to one inference provider, most wallets below the root have that seller as their main one',
    about:
      "A company's treasury funds 10-45 agent wallets (topping them up as they spend); each agent calls its share of the fleet's main inference provider and its own set of tools, paying by usage.",
    params: {
      agents: param('agent wallets', [10, 45], true),
      toolsPerAgent: param('tools (services) per agent besides the main provider', [2, 13], true),
      callsPerTool: param('calls per tool (median)', [3, 12]),
      fundingSpreadDays: param('days over which agents are funded', [0, 20]),
      mainProviderShare: param("share of an agent's calls to the fleet's main provider", [0.05, 0.6]),
      runDays: param('days an agent runs (at most)', [14, 90]),
    },
    instances: 2,
    plant({ b, buyer }, q) {
      const t0 = b.now - b.rng.uniform(q.fundingSpreadDays + 25, 170) * DAY;
      const treasury = b.address();
      b.fundFromExchange(treasury, t0 - 2 * DAY, 20_000);
      const main = b.popularHonest(t0);
      for (let k = 0; k < q.agents; k++) {
        const w = b.address();
        buyer(w);
        const start = t0 + b.rng.next() * q.fundingSpreadDays * DAY;
        b.fund(w, treasury, b.rng.uniform(20, 100), start - b.rng.uniform(0.1, 6) * HOUR);
        const end = Math.min(b.now, start + b.rng.uniform(14, Math.max(15, q.runDays)) * DAY);
        for (let t = start + b.rng.uniform(7, 21) * DAY; t < end; t += b.rng.uniform(7, 21) * DAY)
          b.fund(w, treasury, b.rng.uniform(10, 100), t);
        let toolCalls = 0;
        for (const s of directoryPicks(b, q.toolsPerAgent, start)) {
          if (s === main) continue;
          const n = lognormalCount(b.rng, q.callsPerTool, 0.7);
          for (let c = 0; c < n; c++) b.pay(w, s, start + b.rng.next() * (end - start), 'ai_agent', usage(b, s)());
          toolCalls += n;
        }
        const mainCalls = Math.max(1, Math.round((toolCalls * q.mainProviderShare) / (1 - q.mainProviderShare)));
        for (let c = 0; c < mainCalls; c++) b.pay(w, main, start + b.rng.next() * (end - start), 'ai_agent', usage(b, main)());
      }
    },
  }),

  ci_fleet_company: family({
    kind: 'honest',
    label: 'self_test',
    against:
      "operator cohort (rule 4a): wallets funded from the keys of the seller's operator (the treasury it sweeps to) that pay it most of their payments for weeks; once-a-day pipelines are too sparse to count as periodic",
    about:
      "A company's CI pipelines, each with its own wallet funded by the company treasury (which the company's seller sweeps its takings to), call the company's own endpoints on a cron schedule, and a few third-party dependencies.",
    params: {
      wallets: param('pipelines (wallets)', [3, 10], true),
      ownEndpoints: param("company's own endpoints", [1, 3], true),
      dependencies: param('third-party services each run calls', [0, 2], true),
      runsPerDay: param('scheduled runs per day', [1, 6], true),
      spanDays: param('days the schedule runs', [14, 35]),
      jitterMinutes: param('start jitter of a run (minutes, either way)', [0, 20]),
    },
    instances: 6,
    otherPairLabels: ['analytics_bot'],
    plant({ b, buyer }, q) {
      const start = b.now - b.rng.uniform(q.spanDays + 10, 170) * DAY;
      const end = Math.min(b.now, start + q.spanDays * DAY);
      const treasury = b.address();
      b.fundFromExchange(treasury, start - 10 * DAY, 20_000);
      const company = b.address();
      const own = Array.from({ length: q.ownEndpoints }, () =>
        b.service(company, start - b.rng.uniform(1, 20) * DAY, true, b.rng.pick([0.001, 0.005, 0.01])),
      );
      for (let t = start + b.rng.uniform(3, 7) * DAY; t < b.now; t += b.rng.uniform(6, 8) * DAY)
        b.fund(treasury, company, b.rng.uniform(1, 50), t);
      const deps = b.distinctPopular(q.dependencies, start);
      const period = DAY / q.runsPerDay;
      for (let k = 0; k < q.wallets; k++) {
        const w = b.address();
        buyer(w);
        b.fund(w, treasury, b.rng.pick([20, 50, 100]), start - b.rng.uniform(1, 24) * HOUR);
        for (let t = start + b.rng.next() * period; t < end; t += period) {
          if (b.rng.chance(0.02)) continue; // a cancelled run
          let at = t + b.rng.uniform(-q.jitterMinutes, q.jitterMinutes) * MINUTE;
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
    },
  }),

  heavy_business_customer: family({
    kind: 'honest',
    label: 'organic_user',
    against:
      'single-payer concentration (rule 9): >= 95 % of a small service’s volume, >= 200 payments, but it arrived after more than 3 earlier payers and was funded weeks before its first payment',
    about:
      'A business integrates a small, established B2B API into its product: its one wallet (funded long before) makes most of the volume on weekdays in business hours, after a handful of customers found the service first.',
    params: {
      priorCustomers: param('customers before the business arrives', [4, 15], true),
      calls: param("the business's calls", [250, 800], true),
      fundedDaysBefore: param('days between its funding and its first call', [10, 120]),
      spanDays: param('days of its use', [20, 90]),
    },
    instances: 25,
    plant({ b, buyer, organic }, q) {
      const listed = b.now - b.rng.uniform(q.spanDays + 45, 170) * DAY;
      const svc = b.service(b.address(), listed, true, b.rng.pick([0.1, 0.2, 0.25, 0.5, 1]));
      let lastPrior = listed;
      for (let k = 0; k < q.priorCustomers; k++) {
        const w = b.address();
        organic(w);
        const start = organicUse(b, w, listed + b.rng.uniform(0.5, 30) * DAY, { first: svc, callsMedian: 4, extraServicesMean: 0.5 });
        b.withdraw(w, start - b.rng.uniform(0.5, 200) * HOUR);
        lastPrior = Math.max(lastPrior, start);
      }
      const w = b.address();
      buyer(w);
      const arrival = lastPrior + b.rng.uniform(1, 10) * DAY;
      b.fundFromExchange(w, arrival - q.fundedDaysBefore * DAY, b.rng.uniform(500, 5000));
      const end = Math.min(b.now, arrival + q.spanDays * DAY);
      for (let c = 0; c < q.calls; c++) {
        // its own customers' traffic: weekdays, business hours (UTC)
        let t = arrival + b.rng.next() * (end - arrival);
        const weekday = new Date(t).getUTCDay();
        if ((weekday === 0 || weekday === 6) && b.rng.chance(0.8)) t += 2 * DAY;
        t = Math.floor(t / DAY) * DAY + b.rng.uniform(8, 19) * HOUR;
        b.pay(w, svc, Math.max(arrival, t), 'organic_user');
      }
    },
  }),

  launch_early_adopters: family({
    kind: 'honest',
    label: 'organic_user',
    against:
      'launch flag and concentration (rule 9): <= 3 fresh wallets carry >= 60 % of the first week within 48 h of the listing; none keeps 95 % of the volume once ordinary customers arrive',
    about:
      'Three early adopters (developers who follow the author) find a new service on launch day and carry its first week with hundreds of calls, then keep using it less; ordinary customers arrive over the following weeks.',
    params: {
      firstWeekCalls: param("the adopters' calls in the first week", [150, 600], true),
      leadShare: param("the busiest adopter's share of them", [0.34, 0.8]),
      laterCustomers: param('ordinary customers arriving later', [8, 40], true),
      adopterStayDays: param('days the adopters keep using it', [14, 90]),
    },
    instances: 14,
    plant({ b, buyer, organic }, q) {
      const launch = b.now - b.rng.uniform(40, 165) * DAY;
      const svc = b.service(b.address(), launch, true, b.rng.pick([0.005, 0.01, 0.02, 0.05]));
      const split = b.rng.uniform(0.3, 0.7);
      const shares = [q.leadShare, (1 - q.leadShare) * split, (1 - q.leadShare) * (1 - split)];
      for (const share of shares) {
        const w = b.address();
        buyer(w);
        b.fundFromExchange(w, launch - b.rng.uniform(0.5, 10) * DAY, b.rng.uniform(50, 500));
        const first = launch + b.rng.uniform(0.5, 47) * HOUR;
        const week = Math.max(5, Math.round(q.firstWeekCalls * share));
        callsOver(b, w, svc, week, first, launch + 7 * DAY, 'organic_user');
        const stay = launch + b.rng.uniform(0.5, 1) * q.adopterStayDays * DAY;
        if (stay > launch + 8 * DAY) {
          const later = lognormalCount(b.rng, (week * 0.15 * (stay - launch - 7 * DAY)) / (7 * DAY), 0.5);
          callsOver(b, w, svc, later, launch + 7 * DAY, stay, 'organic_user');
        }
        if (b.rng.chance(0.6)) organicUse(b, w, launch + b.rng.uniform(0, 30) * DAY);
      }
      for (let k = 0; k < q.laterCustomers; k++) {
        const w = b.address();
        organic(w);
        const start = organicUse(b, w, launch + b.rng.uniform(7, 60) * DAY, { first: svc });
        b.withdraw(w, start - b.rng.uniform(0.5, 200) * HOUR);
      }
    },
  }),

  newsletter_launch: family({
    kind: 'honest',
    label: 'organic_user',
    against:
      'farm flag (coordinated start >= 70 % in one hour, synchronised start, uniform counts): a crowd starting on one fresh service within hours, most of its week-one traffic, with no common funder',
    about:
      'A newsletter tells its readers to try a new API on launch day: 40-150 readers (their own money, varied funders and times) try it within 1-3 hours, a share keeps using it; its audience then grows organically.',
    params: {
      readers: param('readers who try it', [40, 150], true),
      launchWindowHours: param('hours within which readers try it', [1, 3]),
      tryCalls: param('calls in the first try (median)', [2, 12]),
      retainedShare: param('share of readers who keep using it', [0.1, 0.5]),
      shareUsingOthers: param('share of readers using other services', [0.3, 0.8]),
      laterCustomers: param('ordinary customers arriving over the following weeks', [10, 60], true),
    },
    instances: 1,
    plant({ b, buyer, organic }, q) {
      const launch = b.now - b.rng.uniform(20, 160) * DAY;
      const svc = b.service(b.address(), launch - b.rng.uniform(1, 24) * HOUR, true, b.rng.pick([0.005, 0.01, 0.02, 0.05]));
      for (let k = 0; k < q.readers; k++) {
        const w = b.address();
        buyer(w);
        const start = launch + Math.min(b.rng.exponential(q.launchWindowHours / 3), q.launchWindowHours) * HOUR;
        // most already had money in the wallet; some withdraw now; some get it from another wallet
        const r = b.rng.next();
        if (r < 0.6) b.withdraw(w, start - b.rng.uniform(1, 120) * DAY);
        else ownMoney(b, w, start - b.rng.uniform(0.1, 3) * HOUR, r < 0.85 ? 0 : 1);
        let t = start;
        for (let c = lognormalCount(b.rng, q.tryCalls, 0.7); c > 0; c--) {
          b.pay(w, svc, t, 'organic_user');
          t += 1000 * b.rng.uniform(10, 120);
        }
        if (b.rng.chance(q.retainedShare)) {
          const from = start + b.rng.uniform(1, 7) * DAY;
          callsOver(b, w, svc, lognormalCount(b.rng, 8, 1), from, from + b.rng.uniform(10, 60) * DAY, 'organic_user');
        }
        if (b.rng.chance(q.shareUsingOthers)) organicUse(b, w, Math.max(b.now - 170 * DAY, start + b.rng.uniform(-30, 30) * DAY));
      }
      for (let k = 0; k < q.laterCustomers; k++) {
        const w = b.address();
        organic(w);
        const start = organicUse(b, w, launch + b.rng.uniform(3, 60) * DAY, { first: svc });
        b.withdraw(w, start - b.rng.uniform(0.5, 200) * HOUR);
      }
    },
  }),

  agent_platform_refills: family({
    kind: 'honest',
    label: 'ai_agent',
    against:
      "funding burst (rule 8a) and fleet rule (16): the platform's weekly refill job sends every agent one amount within minutes (a new agent's first funding is in that batch); the agents' owners configured different tools",
    about:
      "An agent platform's treasury refills every active agent's wallet with the same amount each week; agents belong to different users and pay their own set of services by usage.",
    params: {
      agents: param('agents', [15, 45], true),
      refillUsd: param('weekly refill (USD, whole)', [5, 50]),
      servicesPerAgent: param('services per agent', [4, 15], true),
      callsPerWeek: param('calls per agent per week (median)', [3, 20]),
      weeks: param('weeks of the platform', [4, 16], true),
      creationSpreadWeeks: param('weeks over which agents are created', [0, 6], true),
    },
    instances: 2,
    plant({ b, buyer }, q) {
      const total = q.weeks + q.creationSpreadWeeks;
      const t0 = b.now - b.rng.uniform(Math.min(165, total * 7 + 10), 170) * DAY;
      const platform = b.address();
      b.fundFromExchange(platform, t0 - 3 * DAY, 50_000);
      const refill = Math.max(1, Math.round(q.refillUsd));
      const batch = (week: number) => t0 + week * 7 * DAY;
      for (let k = 0; k < q.agents; k++) {
        const w = b.address();
        buyer(w);
        const created = b.rng.int(0, q.creationSpreadWeeks);
        const active = b.rng.int(Math.max(2, Math.floor(q.weeks / 2)), q.weeks);
        const tools = directoryPicks(b, q.servicesPerAgent, batch(created));
        const weights = tools.map(() => b.rng.logNormal(0, 1));
        const rate = q.callsPerWeek * b.rng.logNormal(0, 0.5);
        for (let wk = created; wk < created + active; wk++) {
          b.fund(w, platform, refill, batch(wk) + b.rng.uniform(0, 20) * MINUTE);
          const from = batch(wk) + 30 * MINUTE;
          for (let c = b.rng.poisson(rate); c > 0; c--) {
            const s = b.rng.weighted(tools, weights);
            b.pay(w, s, from + b.rng.next() * 7 * DAY, 'ai_agent', usage(b, s)());
          }
        }
      }
    },
  }),

  aggregator_gateway: family({
    kind: 'honest',
    label: 'organic_user',
    against:
      'single-payer concentration (rule 9): >= 95 % of a fresh service’s volume from its first day, >= 200 payments, by a wallet funded days before (the rule as written fires; an honest launch partner)',
    about:
      "An API aggregator integrates new providers at their launch as a launch partner: one fresh wallet per provider, funded by the aggregator's treasury days before, forwards its own users' requests, so it is almost all of the provider's volume from day one; a few direct customers come later.",
    params: {
      providers: param('providers the aggregator integrates', [2, 5], true),
      callsPerProvider: param('calls forwarded per provider', [150, 500], true),
      fundedDaysBefore: param('days between the funding and the first call', [0.5, 6]),
      directCustomers: param('direct customers per provider', [0, 6], true),
    },
    instances: 10,
    plant({ b, buyer, organic }, q) {
      const treasury = b.address();
      b.fundFromExchange(treasury, b.now - b.rng.uniform(172, 178) * DAY, 20_000);
      for (let p = 0; p < q.providers; p++) {
        const launch = b.now - b.rng.uniform(20, 160) * DAY;
        const svc = b.service(b.address(), launch, true, b.rng.pick([0.02, 0.05, 0.1, 0.25, 0.5]));
        const w = b.address();
        buyer(w);
        b.fund(w, treasury, b.rng.uniform(100, 1000), launch - q.fundedDaysBefore * DAY);
        const first = launch + b.rng.uniform(1, 24) * HOUR;
        const end = Math.min(b.now, first + b.rng.uniform(20, 120) * DAY);
        for (let t = first + b.rng.uniform(5, 10) * DAY; t < end; t += b.rng.uniform(5, 10) * DAY)
          b.fund(w, treasury, b.rng.uniform(50, 500), t);
        // traffic grows as the aggregator routes more users to the provider
        for (let c = 0; c < q.callsPerProvider; c++) b.pay(w, svc, first + Math.sqrt(b.rng.next()) * (end - first), 'organic_user');
        for (let k = 0; k < q.directCustomers; k++) {
          const d = b.address();
          organic(d);
          const start = organicUse(b, d, launch + b.rng.uniform(5, 60) * DAY, { first: svc });
          b.withdraw(d, start - b.rng.uniform(0.5, 200) * HOUR);
        }
      }
    },
  }),

  fiat_onramp_customers: family({
    kind: 'honest',
    label: 'organic_user',
    against:
      'common-funder dedicated root and hub dedication (rule 8, hubs): an on-ramp missing from the exchange list funds many wallets, a large share of them players of one game API that is their main seller',
    about:
      "A card on-ramp (not a listed exchange) delivers USDC to buyers' wallets (round fiat amounts less its fee, at their own times); many of its buyers are players of one web game paying its API, the rest use popular services; the game also has players funded elsewhere.",
    params: {
      customers: param("the on-ramp's customers who pay for services", [40, 150], true),
      playerShare: param('share of them playing the game', [0.2, 0.7]),
      spreadDays: param('days over which they buy', [20, 120]),
      otherPlayers: param('players funded from exchanges', [5, 40], true),
      playCalls: param('calls per player (median)', [10, 60]),
    },
    instances: 1,
    plant({ b, buyer, organic }, q) {
      const t0 = b.now - b.rng.uniform(q.spreadDays + 15, 170) * DAY;
      const onramp = b.address();
      b.fundFromExchange(onramp, t0 - 10 * DAY, 100_000);
      const game = b.service(b.address(), t0 - b.rng.uniform(5, 10) * DAY, true, b.rng.pick([0.01, 0.02, 0.05]));
      const play = (w: string, from: number) =>
        callsOver(b, w, game, lognormalCount(b.rng, q.playCalls, 0.9), from, from + b.rng.uniform(10, 90) * DAY, 'organic_user');
      for (let k = 0; k < q.customers; k++) {
        const w = b.address();
        buyer(w);
        const at = t0 + b.rng.next() * q.spreadDays * DAY;
        b.fund(w, onramp, lessFee(b, [20, 25, 50, 100, 200], 0.015, 0.045), at);
        if (b.rng.chance(0.3)) b.fund(w, onramp, lessFee(b, [20, 25, 50, 100], 0.015, 0.045), at + b.rng.uniform(5, 60) * DAY);
        const start = at + b.rng.uniform(0.05, 48) * HOUR;
        if (b.rng.chance(q.playerShare)) {
          play(w, start);
          if (b.rng.chance(0.3)) organicUse(b, w, start + b.rng.uniform(0, 30) * DAY);
        } else organicUse(b, w, start);
      }
      for (let k = 0; k < q.otherPlayers; k++) {
        const w = b.address();
        organic(w);
        const start = t0 + b.rng.next() * q.spreadDays * DAY;
        b.withdraw(w, start - b.rng.uniform(0.5, 200) * HOUR);
        play(w, start);
      }
    },
  }),

  // last, so its crawls see every listing the other families made (wash farms included)
  research_crawler: family({
    kind: 'honest',
    label: 'verifier',
    against:
      "verifier rule (13) and the crawler exclusion from cohorts: >= 20 sellers, back on every crawl (revisits), one call per listing at its listed price, wash sellers' listings included",
    about:
      'A research group measures the marketplace: one to four wallets (funded by the group) pay one call to a large share of every listed service on each crawl, monthly or so, not knowing which listings are farms.',
    params: {
      wallets: param('crawler wallets', [1, 4], true),
      crawls: param('crawls', [2, 4], true),
      coverage: param('share of the listings paid per crawl', [0.2, 0.8]),
      crawlHours: param('hours a crawl takes', [2, 24]),
      crawlEveryDays: param('days between crawls', [7, 35]),
    },
    instances: 16,
    plant({ b, buyer }, q) {
      const first = b.now - b.rng.uniform(Math.min(165, q.crawls * q.crawlEveryDays + 10), 170) * DAY;
      const group = b.address();
      b.fundFromExchange(group, first - 5 * DAY, 2000);
      const wallets = Array.from({ length: q.wallets }, () => {
        const w = b.address();
        buyer(w);
        b.fund(w, group, b.rng.uniform(20, 100), first - b.rng.uniform(1, 48) * HOUR);
        return w;
      });
      let at = first;
      for (let c = 0; c < q.crawls; c++) {
        const listed = b.services.filter((s) => s.firstSeen < at);
        const visited = b.rng.shuffle([...listed]).slice(0, Math.max(1, Math.round(q.coverage * listed.length)));
        visited.forEach((s, n) => b.pay(wallets[n % wallets.length]!, s, at + b.rng.next() * q.crawlHours * HOUR, 'verifier'));
        at += q.crawlEveryDays * b.rng.uniform(0.9, 1.1) * DAY;
      }
    },
  }),
};
