/**
 * Every number the wash classifier decides with, in one place, so the methodology document
 * (docs/wash-methodology.md) and the code cannot drift apart. Starting values come from
 * docs/wash-methodology.md §11.7 (x402watch v2.1, merona wash v3); where a value differs, the comment says why.
 *
 * In the catalog because more than the classifier (classifier/) reads them: the
 * proxy's wash check names patterns and breaks ties the classifier's way, and the site shows them.
 */
export const THRESHOLDS = {
  /** Rolling window of the `_30d` columns. */
  windowDays: 30,

  // ------------------------------------------------------------------ confidence bands
  /** Below this a pair or buyer is published as `unlabeled` (thin or conflicting evidence). */
  unlabeledBelow: 0.6,
  /** The strong band (x402watch: audited FP crosses ~1% here). */
  strongBand: 0.85,
  /** The likely band (x402watch: audited FP crosses ~5% here). */
  likelyBand: 0.7,

  // ------------------------------------------------------------------ pair timing
  /**
   * A pair is periodic (cron-like) when its interior daily counts (first and last day are partial)
   * are far less dispersed than Poisson. A random payer's index of dispersion over k interior days
   * is ~ chi2(k-1)/(k-1), so a bar of 0.1 lets one through with probability ~0.03% at k = 10 and
   * ~1.7% at k = 5; short spans therefore need a busy pair (>= 100 a day, which random wallets
   * rarely reach), and long pairs of 4 or more a day get 0.2 (a random payer passes with ~0.6 % at
   * k = 10 and far less beyond; a job every 6 hours whose runs drift over midnight reads 0.1-0.12, a
   * bot calling several endpoints at each tick ~0.02 per endpoint). A steady human (gaps with CV ~0.5)
   * reads ~0.25 and stays out.
   */
  periodicMinTx: 20,
  periodicMinInteriorDays: 5,
  periodicMidDays: 10,
  periodicShortSpanMinDailyTx: 100,
  periodicMinDailyTx: 2,
  periodicMaxDispersion: 0.1,
  periodicBusyDailyTx: 4,
  periodicMaxDispersionBusy: 0.2,
  /**
   * A short busy run: 3 interior days of at least 50 a day with dispersion <= 0.05. A Poisson
   * payer passes with ~5 % (chi2(2) <= 0.1), but nothing paying 50+ times a day at random is a
   * person; a heavy human's sessions read far above 1.
   */
  periodicShortMinInteriorDays: 3,
  periodicShortMinDailyTx: 50,
  periodicShortMaxDispersion: 0.05,
  /**
   * A sparse schedule (issue 46): a daily job makes the same few calls every day, so over 10 or more
   * interior days its dispersion is about 0, where a payer at random reads about 1 (the chance that
   * one reads <= 0.1 over 10 days is about 3e-4) and a person's sessions read more.
   */
  periodicSparseMinInteriorDays: 10,
  periodicSparseMinDailyTx: 0.9,
  periodicSparseMaxDispersion: 0.1,
  /**
   * A clock schedule: over as many days, payments at no more than this many hours of the day, with
   * daily counts dispersed at most this much (a random payer at one or more a day reads about 1 and
   * uses most hours over weeks; a person's evening habit keeps hours but not counts).
   */
  periodicClockMaxHours: 8,
  periodicClockMaxDispersion: 0.5,
  /** Developer burst: payments per minute (x402watch: > 10 tx/min, docs/wash-methodology.md §11.4). */
  burstPerMinute: 10,
  /** A day needs this many payments before it can hold a burst. */
  burstMinDayTx: 10,
  /**
   * Burst density: payments per distinct active minute over a whole pair. A person or a script
   * testing an endpoint fires calls seconds apart (a hackathon's developers read 4 to 30); paced
   * use, human or farmed, reads about 1 to 1.5 (calls a minute or more apart). Measured on pairs
   * with at least `densityMinTx` payments.
   */
  burstDensity: 3,
  densityMinTx: 5,
  /**
   * A tester: its main pair is burst-dense and lasted at most this many days. Testers stay
   * out of a seller's cohort (like crawlers and pollers) and out of the cohort rules (farm, common
   * funder, vanity): a hackathon is many such wallets on one fresh service, funded by one faucet.
   * Farms pump a ranking for weeks; a burst-dense wallet that keeps paying is not a tester.
   */
  testerMaxSpanDays: 3,
  /** Soak test: this many payments in a day at this sustained rate (calls per minute over the day's span). */
  soakMinDayTx: 500,
  soakPerMinute: 2,

  // ------------------------------------------------------------------ pair rules
  /** Developer: the load-tested pair carries this share of the buyer's payments, within this span. */
  developerMinPairShare: 0.9,
  /** ...or this share when the wallet is a tester (short-lived; a hackathon's developers also try other services). */
  testerMinPairShare: 0.5,
  developerMaxSpanDays: 14,
  /** Analytics bot: a periodic pair of a buyer with at most this many sellers. */
  botMaxSellers: 5,
  /**
   * Verifier: many sellers, few calls each, mostly right after a listing appears. From 20 sellers
   * that is enough (a health-check crawler comes back); from 6, only with the once-per-listing
   * timing too: (almost) never back on a later day, where an agent keeps coming back.
   */
  verifierMinSellers: 6,
  verifierBroadSellers: 20,
  verifierMaxRevisitShare: 0.2,
  /** A verifier pays listed prices: at least this share of its pairs (with a known listed price) paid only those. */
  verifierMinListedPriceShare: 0.8,
  /** 1-3 calls per listing; a seller lists a few endpoints, so per seller a few more. */
  verifierMaxMedianPairTx: 5,
  verifierListingWindowHours: 72,
  verifierMinNearListingShare: 0.6,
  /** AI agent: a diversified, irregular, week-long consumer. */
  agentMinSellers: 5,
  /** An agent pays on and on; with fewer payments a multi-seller wallet is as likely a person. */
  agentMinTx: 20,
  /** ...unless it is this broad (so many sellers that a person's casual use does not reach it). */
  agentBroadSellers: 10,
  agentMinCategories: 4,
  agentMinSpanDays: 7,
  agentMinAmountCv: 0.3,
  agentMinPricePoints: 3,
  /**
   * Agent fleet: a non-exchange funder of at least this many paying wallets, at least this share of
   * them agents. Its members count as agents from this many sellers and payments (with the
   * agent's span and irregularity): one program runs on every wallet, some just drew fewer tools
   * or ran less.
   */
  fleetMinWallets: 10,
  fleetMinAgentShare: 0.5,
  fleetAgentMinSellers: 3,
  fleetAgentMinTx: 10,
  /** A pair below this tx count cannot make a buyer a core cohort member. */
  coreMinPairTx: 3,
  /** Core cohort member: the seller gets more than this share of the buyer's payments. */
  coreMinPairShare: 0.5,
  /** Self-test by funding or shared funder: only for buyers with fewer sellers (guard, docs/wash-methodology.md §11.7). */
  selfTestMaxSellers: 10,
  /** Seller-branded test wallet: shares the seller's first and last 4 address characters. */
  sellerBrandChars: 4,

  // ------------------------------------------------------------------ global guards
  /** A diversified buyer is never wash on the strength of one seller's cohort. */
  guardMinSellers: 20,
  guardMinTx: 500,
  /** ...unless one seller still takes at least this share of its payments (camouflaged farm members). */
  guardMaxTopShare: 0.5,
  /** A wallet whose wash pairs carry this share of its payments is a wash wallet on every pair. */
  washWalletMinShare: 0.5,

  // ------------------------------------------------------------------ seller flags
  /** F_selfpay and F_funded (merona). */
  selfPayShare: 0.2,
  fundedPayerShare: 0.2,
  /**
   * Seller-funded cohort (funding links up to fundingMaxHops): this many wallets that kept paying
   * for more than selfTestMaxSpanDays make a wash loop; fewer, or brief ones, are launch testing.
   */
  fundedLoopMinWallets: 10,
  selfTestMaxSpanDays: 3,
  /** F_farm: a cohort of repeat, dedicated wallets with little organic tail. */
  farmMinCore: 10,
  farmMinCoreShare: 0.8,
  /** Independent farm signals (coordinated start, synchronised start, common funder, uniform amount, uniform tx count) needed. */
  farmMinSignals: 2,
  /** uniform_tx_count: robust spread of core tx counts, 1.4826 * MAD(ln tx) (about the log-sd; organic repeat counts read ~1.2). */
  farmMaxLogCountSpread: 0.6,
  coordinatedStartPct: 0.7,
  /** Loosely synchronised start: 80% of the core started within this many days (SynchroTrap-style). */
  farmMaxStartSpreadDays: 7,
  /** A farm member started inside the core's 10th-90th percentile start window widened by this (or a quarter of it). */
  farmStartMarginDays: 1,
  commonFunderShare: 0.5,
  uniformAmountPct: 0.8,
  /** Common-funder cohort rule. */
  commonFunderMinWallets: 5,
  commonFunderWindowHours: 24,
  /** ...or at least this share of every paying wallet below the root has this seller as its main one. */
  commonFunderDedication: 0.8,
  /** F_conc: top payer share of seller volume, seller tx and volume (merona: $500; see methodology). */
  concentrationShare: 0.95,
  concentrationMinTx: 200,
  concentrationMinVolume: 200,
  concentrationMaxBuyerSellers: 2,
  /**
   * ...and the top payer made that volume from the seller's start: at most this many other payers
   * paid before it (a seller's own checks, a verifier). A heavy customer who arrives at a service
   * that already had customers is demand, however concentrated the volume now is.
   */
  concentrationMaxEarlierPayers: 3,
  /** Fresh wallet: first funded at most this many days before its first payment. */
  freshWalletDays: 7,
  /** F_launch (informational): <= 3 wallets carry >= 60% of the first week within 48 h. */
  launchMaxBuyers: 3,
  launchShare: 0.6,
  /** ...of at least this many payments (a listing's first two calls are no launch campaign). */
  launchMinTx: 10,

  /**
   * Funding hub: funds at least this many wallets, and fewer than this share of the paying ones
   * have one main seller (classifier/funding.ts): infrastructure, whose wallets go their own ways.
   * An operator's wallets serve its seller, however many it funds and over however long. 0.8, not
   * 0.5 (issue 46): an on-ramp missing from the exchange list whose customers are half the players of
   * one game is still public money; an operator's wallets serve it almost all.
   */
  hubMinWallets: 20,
  hubMaxDedication: 0.8,
  /** First-funding links followed up from a wallet (relays between an operator and its wallets). */
  fundingMaxHops: 4,

  // ------------------------------------------------------------------ operators and funding bursts (classifier/operators.ts)
  /**
   * Operator: sellers joined by a shared funding key (a funder up their chains, an address they
   * sweep their takings to). A key shared by more than this many sellers is a platform (a
   * launchpad, a bridge), not one owner: it joins nobody.
   */
  operatorMaxKeySellers: 50,
  /**
   * A sweep: an address that receives at least this share of all a seller sends (its treasury). Refunds,
   * rewards and an exchange's withdrawals spread over many customers are no sweep, and join no operator.
   */
  sweepMinShare: 0.25,
  /** An operator's wallet pays its sellers at least this share of its payments (a third or more elsewhere: a customer of others, a CI fleet). */
  operatorMinShare: 0.66,
  /** Operator cohort: at least this many dedicated, operator-funded wallets that kept paying; fewer are the operator's own tests. */
  operatorMinWallets: 10,
  /** Funding burst: fresh wallets funded by one source within this many hours (two alignments: any half-window burst fits one)... */
  burstWindowHours: 12,
  /** ...at least this many of them, paying mostly one operator... */
  burstMinWallets: 10,
  /** ...with amounts within this relative band of the burst's median... */
  burstAmountBand: 0.15,
  /** ...and making up at least this share of the operator's buyers. */
  burstMinBuyerShare: 0.5,
  /** Funding wave (evidence.ts): fresh wallets first funded by one source within this many hours, whatever the amounts... */
  waveWindowHours: 72,
  /** ...and from a public source (an exchange), at least this many times the pace it funds the operator's fresh payers at. */
  waveMinRate: 4,
  /** Common-funder group (funding-window branch): the root's paying wallets pay this seller at least this share of all their payments (an event's attendees spread). */
  commonFunderMinDedication: 0.66,
  /** ...and the group makes up at least this share of the seller's core (staff paid on one day who all use a popular service are its customers). */
  commonFunderMinCoreShare: 0.25,

  // ------------------------------------------------------------------ cycles (merona wash v3)
  /** Edges below this volume do not join a cycle. */
  cycleMinEdgeVolume: 1,
  /** Each member passes on what it receives: |in - out| / max(in, out) at most this. */
  cycleMaxBalance: 0.1,
  /** Both sides of every member at least this many USDC (merona: $100; see methodology). */
  cycleMinFlow: 10,

  // ------------------------------------------------------------------ round trips (classifier/returns.ts)
  /** Transfers from a seller to its buyer: the seller itself plus relays, at most this many transfers. */
  returnMaxHops: 4,
  /** A wallet funding more than this many wallets moves everyone's money (an exchange, a bridge): it ends a path. */
  returnMaxFanOut: 1000,
  /** Returns after the first payment repay at least this share of what the pair paid... */
  roundTripMinReturnShare: 0.5,
  /** ...in at least this many transfers (one refund is customer service; a loop repeats)... */
  roundTripMinReturns: 2,
  /** ...on a pair with at least this many payments (a seller's own test wallet makes a handful; a loop exists to make volume). */
  roundTripMinTx: 20,

  // ------------------------------------------------------------------ money trails (classifier/trails.ts, issue 46)
  /** Rounds of proportional taint from an operator's side: a trail longer than this many transfers is not followed. */
  trailMaxHops: 12,
  /** A wallet holding less than this share of an operator's money is not kept (bounds the rows; far below any decision). */
  trailMinTaint: 0.02,

  // ------------------------------------------------------------------ vanity (docs/wash-methodology.md §3.5, §11.5)
  vanityStrictPrefix: 4,
  vanityStrictSuffix: 3,
  vanityStrictMinSize: 3,
  vanityBroadPrefix: 2,
  vanityBroadSuffix: 3,
  vanityBroadMinSize: 4,
  /** A long shared prefix or suffix alone (characters after 0x), mined at one end of the address. */
  vanityLongChars: 6,
  /** A long-end cluster counts when at most this many clusters its size are expected by chance among the seller's payers. */
  vanityChanceMax: 0.01,
  /** Above this cohort size broad keys collide by chance (~0.03 clusters at 30k): ask for one more member. */
  vanityBroadLargeCohort: 30_000,
  /** A cluster member with this multiple of the cluster's median payments is the operator. */
  vanityOperatorMultiple: 5,
} as const;

export type Thresholds = typeof THRESHOLDS;

/** Confidence of each rule when it fires (before the unlabeled band is applied). */
export const RULE_CONFIDENCE = {
  self_pay: 1.0,
  /** A money trail that passes the model (catalog/wash-model.ts): the strongest evidence. */
  money_trail: 0.85,
  vanity_operator: 0.85,
  /** A coordinated group that dominates the operator's traffic and lives for it. */
  cohort: 0.75,
  /** Each piece of evidence beyond what the verdict needs (a dominant trail group, a second coordination kind) adds this. */
  evidence_step: 0.05,
  concentration: 0.7,
  wash_wallet: 0.75,
  /** Financed by the operator's side without making a cohort: the operator's own tests or CI. */
  money_trail_test: 0.85,
  seller_branded: 0.85,
  verifier: 0.9,
  developer: 0.8,
  analytics_bot: 0.8,
  ai_agent: 0.75,
  organic: 0.75,
  /** An organic-looking pair with a wash-flagged seller: conflicting, so below the band. */
  organic_conflicting: 0.55,
} as const;

/**
 * Orders a buyer's pairs by payments, ties by seller key: deterministic and numeric. SQL over a
 * relation `p` with `tx_count` and `sak` (hash of the seller address); the classifier picks a
 * buyer's top pair with it and the proxy's wash check its main seller.
 */
export const TOP_PAIR_KEY = '(p.tx_count * 1048576 + (p.sak % 1048576)::BIGINT)';
