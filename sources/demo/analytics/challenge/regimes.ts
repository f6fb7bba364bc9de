/**
 * The parameter regimes of the challenge world (issue 15): for every planted pattern, the range each
 * parameter is drawn from in the "in" split (the ranges a rule writer would have in mind) and in the
 * "ood" split (out of distribution: every range lies wholly outside its "in" range). One table, so a
 * reader sees both side by side; sources/demo/analytics/challenge/challenge.test.ts checks the disjointness.
 *
 * Issue 29 added two wash classes an outside held-out set missed (one operator behind many sellers,
 * exchange-withdrawal bursts) and six honest crowds, written from the issue's descriptions of real
 * behaviour rather than from the classifier's rules.
 *
 * Ranges are inclusive. `integer` parameters are drawn as integers. Counts of groups per pattern and
 * the organic background are the same in both splits (CHALLENGE_GROUPS, ORGANIC) so the splits
 * differ only in the pattern parameters.
 */
import type { WashLabel } from '../../../../catalog/categories.ts';
import type { Rng } from '../../random.ts';

export const SPLITS = ['in', 'ood'] as const;
export type Split = (typeof SPLITS)[number];

export type Range = readonly [lo: number, hi: number];

export interface ParameterSpec {
  in: Range;
  ood: Range;
  unit: string;
  integer?: boolean;
}

const p = (unit: string, inRange: Range, ood: Range, integer = false): ParameterSpec => ({ in: inRange, ood, unit, integer });

/** Planted patterns: their truth label and whether they are wash or an honest look-alike. */
export const CHALLENGE_PATTERNS = {
  // ------------------------------------------------------------- wash the classifier was written for
  coordinated_cohort: { label: 'suspected_wash', kind: 'classic wash' },
  relay_funded: { label: 'suspected_wash', kind: 'classic wash' },
  seller_funded_ring: { label: 'suspected_wash', kind: 'classic wash' },
  // ------------------------------------------------------------- wash the issue's independent test found missed
  sybil_spread: { label: 'suspected_wash', kind: 'new wash' },
  vanity_exchange: { label: 'suspected_wash', kind: 'new wash' },
  round_trip: { label: 'suspected_wash', kind: 'new wash' },
  // ------------------------------------------------------------- honest look-alikes and honest traffic
  hackathon: { label: 'developer', kind: 'look-alike' },
  agent_fleet: { label: 'ai_agent', kind: 'look-alike' },
  heavy_single: { label: 'organic_user', kind: 'look-alike' },
  analytics_bot: { label: 'analytics_bot', kind: 'honest' },
  verifier: { label: 'verifier', kind: 'honest' },
  seller_test: { label: 'self_test', kind: 'honest' },
  organic: { label: 'organic_user', kind: 'honest' },
  // ------------------------------------------------------------- issue 29: wash an outside held-out set missed entirely
  operator_many_sellers: { label: 'suspected_wash', kind: 'issue 29 wash' },
  exchange_burst: { label: 'suspected_wash', kind: 'issue 29 wash' },
  // ------------------------------------------------------------- issue 29: honest crowds (a crowd looks like a cohort)
  dev_event: { label: 'developer', kind: 'issue 29 crowd' },
  onboarding: { label: 'organic_user', kind: 'issue 29 crowd' },
  viral_api: { label: 'organic_user', kind: 'issue 29 crowd' },
  // a company testing its own endpoints is self_test; its scheduled calls to others' are analytics_bot pairs
  ci_fleet: { label: 'self_test', kind: 'issue 29 crowd' },
  research_crawler: { label: 'verifier', kind: 'issue 29 crowd' },
  payroll: { label: 'organic_user', kind: 'issue 29 crowd' },
} as const satisfies Record<string, { label: Exclude<WashLabel, 'unlabeled'>; kind: string }>;

export type ChallengePattern = keyof typeof CHALLENGE_PATTERNS;

/** The honest look-alikes the issue sets a flagged-as-wash target for (at most 2 % each). */
export const LOOK_ALIKES = ['hackathon', 'agent_fleet', 'heavy_single'] as const satisfies readonly ChallengePattern[];

/** Issue 29's two wash classes and six honest crowds (reported per pattern; see CROWD_PAIR_LABELS). */
export const ISSUE_29_WASH = ['operator_many_sellers', 'exchange_burst'] as const satisfies readonly ChallengePattern[];
export const ISSUE_29_CROWDS = [
  'dev_event',
  'onboarding',
  'viral_api',
  'ci_fleet',
  'research_crawler',
  'payroll',
] as const satisfies readonly ChallengePattern[];

/**
 * The pair labels a pattern's buyers may carry besides their own: a developer's casual calls to
 * other services are organic_user pairs, a CI fleet's scheduled calls to others' endpoints are
 * analytics_bot pairs. Every other pattern's pairs carry the buyer's label.
 */
export const OTHER_PAIR_LABELS: Partial<Record<ChallengePattern, readonly string[]>> = {
  hackathon: ['organic_user'],
  ci_fleet: ['analytics_bot'],
};

/** Every parameter of every pattern except the organic background, in both regimes. */
export const CHALLENGE_PARAMETERS = {
  coordinated_cohort: {
    cohortSize: p('wallets', [10, 25], [30, 60], true),
    startSpreadHours: p('hours from first to last start', [0, 2], [4, 16]),
    callsMedian: p('calls per wallet (median)', [25, 60], [5, 12]),
    callsSigma: p('log-sd of calls per wallet', [0.05, 0.25], [0.5, 0.9]),
  },
  relay_funded: {
    cohortSize: p('wallets', [10, 25], [30, 60], true),
    hops: p('funding hops from operator to wallet', [2, 2], [3, 4], true),
    startSpreadHours: p('hours from first to last start', [0, 6], [12, 48]),
    callsMedian: p('calls per wallet (median)', [25, 60], [5, 12]),
  },
  seller_funded_ring: {
    cohortSize: p('wallets', [10, 20], [25, 50], true),
    hops: p('funding hops from seller to wallet', [2, 2], [3, 4], true),
    callsMedian: p('calls per wallet (median)', [20, 50], [4, 10]),
  },
  sybil_spread: {
    cohortSize: p('wallets', [10, 25], [30, 70], true),
    startSpreadDays: p('days from first to last start', [0.5, 3], [20, 60]),
    callsMedian: p('calls per wallet (median)', [20, 50], [6, 15]),
    callsSigma: p('log-sd of calls per wallet (lognormal)', [0.1, 0.4], [0.9, 1.5]),
  },
  vanity_exchange: {
    cohortSize: p('wallets', [4, 10], [15, 40], true),
    prefixChars: p('shared address prefix, hex chars after 0x', [4, 5], [6, 7], true),
    suffixChars: p('shared address suffix, hex chars', [3, 3], [0, 0], true),
    startSpreadDays: p('days from first to last start', [0, 2], [10, 40]),
  },
  round_trip: {
    buyers: p('buyer wallets in the loop', [3, 6], [8, 16], true),
    rounds: p('pay-and-return rounds', [2, 4], [6, 12], true),
    returnHops: p('hops from seller back to buyer', [1, 1], [2, 3], true),
    callsPerRound: p('calls per buyer per round', [20, 40], [5, 12], true),
  },
  hackathon: {
    developers: p('developers', [15, 30], [40, 90], true),
    startWindowHours: p('hours over which they start', [3, 6], [0.5, 1.5]),
    burstSpacingSeconds: p('median seconds between calls in a burst', [2, 8], [0.3, 1.2]),
    shareTryingOthers: p('share also calling other services', [0.1, 0.3], [0.5, 0.8]),
  },
  agent_fleet: {
    agents: p('agent wallets', [10, 25], [30, 70], true),
    servicesPerAgent: p('services per agent', [5, 9], [12, 25], true),
    callsPerService: p('calls per service (median)', [4, 10], [1.5, 3]),
    fundingSpreadDays: p('days over which the treasury funds the fleet', [20, 60], [0, 1]),
  },
  heavy_single: {
    calls: p('calls on its one service', [200, 600], [1500, 4000], true),
    spanDays: p('days active', [30, 90], [3, 10]),
  },
  analytics_bot: {
    periodMinutes: p('minutes between runs', [60, 360], [5, 20]),
    spanDays: p('days active', [20, 60], [5, 9]),
    services: p('services polled', [1, 2], [3, 5], true),
  },
  verifier: {
    listings: p('new listings visited', [25, 50], [8, 18], true),
    delayHours: p('hours from listing to first visit (median)', [1, 24], [40, 70]),
  },
  seller_test: {
    wallets: p("seller's own test wallets", [1, 3], [4, 8], true),
  },
  // ------------------------------------------------------------- issue 29 (written from its descriptions of real behaviour)
  operator_many_sellers: {
    sellers: p('seller addresses the operator runs', [2, 3], [5, 9], true),
    buyers: p('fake buyer wallets', [12, 25], [30, 60], true),
    hops: p('funding hops from the shared root to each seller and buyer', [1, 2], [3, 4], true),
    sellerShare: p("share of the operator's sellers each buyer pays", [0.7, 1], [0.2, 0.5]),
    callsMedian: p('calls per buyer (median)', [20, 50], [5, 12]),
    startSpreadDays: p('days from first to last buyer start', [0.5, 3], [10, 40]),
    organicBuyers: p('organic buyers per operator service', [1, 3], [5, 10], true),
  },
  exchange_burst: {
    wallets: p('fresh wallets withdrawn to in the burst', [10, 20], [25, 60], true),
    burstHours: p('hours from first to last withdrawal', [0.2, 1.5], [2.5, 6]),
    amountSpread: p('relative spread of the withdrawn amounts (+/-)', [0, 0.01], [0.02, 0.06]),
    startDelayHours: p('hours from withdrawal to first payment (median)', [0.5, 4], [12, 72]),
    sellers: p("sellers paid (one operator's)", [1, 1], [2, 3], true),
    callsMedian: p('calls per wallet (median)', [20, 50], [5, 12]),
    organicBuyers: p("organic buyers of the operator's services", [0, 2], [4, 8], true),
  },
  dev_event: {
    attendees: p('attendees funded by the organisation', [20, 40], [60, 120], true),
    startWindowMinutes: p('minutes from first to last attendee start', [30, 60], [5, 20]),
    servicesPerAttendee: p('services each attendee calls (sponsor first)', [2, 3], [4, 6], true),
    callsPerService: p('calls per service (median)', [6, 15], [1.5, 4]),
    sponsorServices: p("the sponsor's services", [1, 1], [2, 3], true),
  },
  onboarding: {
    signups: p('sign-ups the paymaster funds', [60, 120], [150, 250], true),
    grantUsd: p('USDC each sign-up gets (the same for all)', [1, 3], [0.05, 0.5]),
    signupSpreadDays: p('days over which they sign up', [5, 20], [0.2, 2]),
    extraServicesMean: p('extra popular services per user (mean)', [0.5, 1.2], [2, 4]),
    callsMedian: p('calls per service (median)', [1.5, 3], [3.5, 5]),
  },
  viral_api: {
    buyers: p('unrelated buyers of the viral service', [50, 100], [150, 260], true),
    arrivalDays: p('days over which most buyers arrive', [10, 30], [0.5, 3]),
    callsMedian: p('calls per buyer on the viral service (median)', [2, 4], [6, 15]),
    shareOnlyThis: p('share of buyers paying only the viral service', [0.2, 0.5], [0.7, 0.95]),
  },
  ci_fleet: {
    wallets: p("the company's CI wallets", [2, 4], [6, 10], true),
    ownEndpoints: p("the company's own endpoints called per run", [1, 2], [3, 5], true),
    dependencies: p("others' endpoints called per run", [1, 2], [3, 5], true),
    periodMinutes: p('minutes between runs', [90, 240], [720, 1440]),
    spanDays: p('days the schedule runs', [15, 30], [60, 120]),
  },
  research_crawler: {
    wallets: p("the crawler's wallets", [1, 1], [2, 5], true),
    coverage: p('share of listed services paid once per crawl', [0.3, 0.6], [0.85, 1]),
    crawlHours: p('hours a crawl takes', [24, 72], [0.5, 4]),
    crawls: p('crawls (about a month apart)', [1, 1], [2, 4], true),
  },
  payroll: {
    employees: p('employees paid the same amount who then pay for services', [10, 25], [40, 90], true),
    payWindowMinutes: p('minutes from first to last payment of a payday', [60, 480], [0, 5]),
    paydays: p('monthly paydays', [1, 2], [3, 5], true),
    callsMedian: p('calls per service (median)', [1.5, 3], [4, 8]),
  },
} as const satisfies Record<Exclude<ChallengePattern, 'organic'>, Record<string, ParameterSpec>>;

export type ParameterizedPattern = keyof typeof CHALLENGE_PARAMETERS;
export type ParamsOf<P extends ParameterizedPattern> = { [K in keyof (typeof CHALLENGE_PARAMETERS)[P]]: number };

/**
 * One group's parameters drawn from the split's ranges (integers where the spec says so). The
 * challenge world draws every group with it, and the demo world (sources/demo/analytics/challenge-patterns.ts)
 * draws its groups of the same patterns from the "in" ranges, so both read this one table.
 */
export function drawParameters<P extends ParameterizedPattern>(rng: Rng, pattern: P, split: Split): ParamsOf<P> {
  const out: Record<string, number> = {};
  for (const [name, spec] of Object.entries(CHALLENGE_PARAMETERS[pattern]) as Array<[string, ParameterSpec]>) {
    const [lo, hi] = spec[split];
    out[name] = spec.integer ? rng.int(lo, hi) : rng.uniform(lo, hi);
  }
  return out as ParamsOf<P>;
}

/** Groups (cohorts, fleets, individual wallets) planted per pattern, the same in both splits. */
export const CHALLENGE_GROUPS: Record<ParameterizedPattern, number> = {
  coordinated_cohort: 4,
  relay_funded: 4,
  seller_funded_ring: 4,
  sybil_spread: 4,
  vanity_exchange: 4,
  round_trip: 5,
  hackathon: 3,
  agent_fleet: 3,
  heavy_single: 30,
  analytics_bot: 30,
  verifier: 12,
  seller_test: 8,
  operator_many_sellers: 4,
  exchange_burst: 4,
  dev_event: 3,
  onboarding: 2,
  viral_api: 2,
  ci_fleet: 3,
  research_crawler: 4,
  payroll: 2,
};

/** The organic background, shared by both splits. */
export const ORGANIC = {
  users: 1500,
  /**
   * share of organic users who withdraw from the one large exchange (challenge-exchange-1) rather
   * than any of the five: the exchange an exchange_burst withdraws from funds many honest users too
   */
  largeExchangeShare: 0.5,
  /** share of exchange withdrawals of a round amount less a fixed fee (near-equal amounts are common) */
  roundWithdrawalShare: 0.5,
  /** services per user: 1 + geometric with this mean of extra services */
  extraServicesMean: 1.2,
  callsMedian: 3,
  callsSigma: 1,
  spanDaysMedian: 20,
} as const;

/** True when the range `a` and the range `b` share no value. */
export function disjoint(a: Range, b: Range): boolean {
  return a[1] < b[0] || b[1] < a[0];
}
