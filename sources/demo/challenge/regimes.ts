/**
 * The parameter regimes of the challenge world (issue 15): for every planted pattern, the range each
 * parameter is drawn from in the "in" split (the ranges a rule writer would have in mind) and in the
 * "ood" split (out of distribution: every range lies wholly outside its "in" range). One table, so a
 * reader sees both side by side; sources/demo/challenge/challenge.test.ts checks the disjointness.
 *
 * Ranges are inclusive. `integer` parameters are drawn as integers. Counts of groups per pattern and
 * the organic background are the same in both splits (CHALLENGE_GROUPS, ORGANIC) so the splits
 * differ only in the pattern parameters.
 */
import type { WashLabel } from '../../../catalog/categories.ts';
import type { Rng } from '../random.ts';

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
  // ------------------------------------------------------------- wash the independent test found missed
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
} as const satisfies Record<string, { label: Exclude<WashLabel, 'unlabeled'>; kind: string }>;

export type ChallengePattern = keyof typeof CHALLENGE_PATTERNS;

/** The honest look-alikes the issue sets a flagged-as-wash target for (at most 2 % each). */
export const LOOK_ALIKES = ['hackathon', 'agent_fleet', 'heavy_single'] as const satisfies readonly ChallengePattern[];

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
} as const satisfies Record<Exclude<ChallengePattern, 'organic'>, Record<string, ParameterSpec>>;

export type ParameterizedPattern = keyof typeof CHALLENGE_PARAMETERS;
export type ParamsOf<P extends ParameterizedPattern> = { [K in keyof (typeof CHALLENGE_PARAMETERS)[P]]: number };

/**
 * One group's parameters drawn from the split's ranges (integers where the spec says so). The
 * challenge world draws every group with it, and the demo world (sources/demo/x402-challenge-patterns.ts)
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
};

/** The organic background, shared by both splits. */
export const ORGANIC = {
  users: 1500,
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
