/**
 * The trust grade of the service-health dataset (pipelines/analytics/datasets/service-health.ts,
 * docs/wash-methodology.md §13): every threshold and point it uses, once. The SQL reads them from
 * here and the methodology page prints them, so the page says what the code does.
 */
export const TRUST_GRADE = {
  /** Fewer probes than this, or spanning less than minSpanHours: no grade ("not enough evidence"). */
  minProbes: 8,
  minSpanHours: 24,
  /** Lowest score of each grade; below D is F. */
  cuts: { A: 90, B: 80, C: 65, D: 50 },
  /** recommendation: pay from this score, caution from cautionFrom, else avoid (no grade: caution). */
  payFrom: 80,
  cautionFrom: 50,
  /** Flags. */
  flakyBelowUptimePct: 90,
  slowP50Ms: 2_000,
  priceTrapDriftPct: 50,
  /** This many payTo addresses offered within 7 days is rotation (a pool, or one per sale), not a move; a new one on at least freshShare of the offers is one per sale. */
  rotationMinPayTos: 3,
  freshShare: 0.9,
  /** The price reference is the median settled amount from this many payments on, else the listed price. */
  minSettledForPrice: 3,
  /** Points taken from 100. */
  uptimeTargetPct: 99,
  pointsPerUptimePoint: 2,
  maxUptimePenalty: 40,
  slowP99Ms: 5_000,
  penalties: {
    slow: 15,
    slowP99: 10,
    movedPayout: 25,
    unsignable: 30,
    paytoInconsistent: 25,
    washHigh: 30,
    washSome: 15,
    young: 10,
    fewBuyers: 5,
  },
  washHighPct: 50,
  washSomePct: 20,
  washMinPayments: 10,
  youngDays: 14,
  fewBuyers: 3,
  /** A price trap scores at most this (D at best); a dead service or a decoy scores 0 (F). */
  priceTrapCap: 55,
} as const;
