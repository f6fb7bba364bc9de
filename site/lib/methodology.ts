/**
 * The methodology page's model, built from the classifier's own constants (catalog/wash-rules.ts)
 * and label list (catalog/categories.ts), so the page cannot drift from what the code decides with:
 * the numbers are read from THRESHOLDS and RULE_CONFIDENCE at build time, and the words that
 * explain each constant are keyed by its name with `satisfies Record<keyof ...>`, so a constant
 * added to the classifier without an explanation here fails the type check.
 *
 * The evaluation figures come from site/data/wash-eval.json, written by
 * `npm run eval:wash -- --seed 1 --held-out 4 --ood-seed 1 --write site/data/wash-eval.json`: the
 * usual split (demo world) and the out-of-distribution split (challenge world "ood"). Each run
 * takes several seconds, too slow to repeat in every site build; site/methodology.test.ts re-runs
 * them and fails when the file is out of date.
 */
import { z } from 'zod';
import { WASH_LABELS, type WashLabel } from '../../catalog/categories.ts';
import { RULE_CONFIDENCE, THRESHOLDS, type Thresholds } from '../../catalog/wash-rules.ts';
import washEvalJson from '../data/wash-eval.json' with { type: 'json' };
import washLofoJson from '../data/wash-lofo.json' with { type: 'json' };
import { MODEL_KEYS, WASH_MODEL, type WashModelThresholds } from '../../catalog/wash-model.ts';

export type ThresholdKey = keyof Thresholds;
export type RuleKey = keyof typeof RULE_CONFIDENCE;

/** The parts of the classifier a threshold belongs to, in the order the page explains them. */
export const SIGNAL_GROUPS = [
  { id: 'bands', title: 'Confidence bands', about: 'How a label’s confidence is read and when it is withheld.' },
  { id: 'timing', title: 'Timing signals', about: 'Periodic (cron-like) pairs, bursts and soak tests, from daily payment counts.' },
  {
    id: 'pair-rules',
    title: 'Pair rules',
    about: 'The conditions of the verifier, developer, bot, agent and self-test rules on one (buyer, seller) pair.',
  },
  { id: 'guards', title: 'Global guards', about: 'What keeps a diversified buyer from being called wash on the strength of one seller.' },
  {
    id: 'seller-flags',
    title: 'Seller flags',
    about: 'Flags on a seller’s cohort of payers: self-payment, seller funding, farms, concentration, launches.',
  },
  { id: 'funding', title: 'Funding', about: 'First-USDC-funder links between wallets.' },
  { id: 'cycles', title: 'Payment rings', about: 'Wallets that pay each other in a balanced loop.' },
  { id: 'vanity', title: 'Vanity-address clusters', about: 'Wallets that share an address prefix and suffix inside one seller’s cohort.' },
] as const;
export type SignalGroupId = (typeof SIGNAL_GROUPS)[number]['id'];

type Unit =
  | 'share'
  | 'confidence'
  | 'days'
  | 'hours'
  | 'payments'
  | 'per day'
  | 'per minute'
  | 'per active minute'
  | 'transfers'
  | 'clusters'
  | 'USDC'
  | 'wallets'
  | 'sellers'
  | 'characters'
  | 'ratio'
  | 'categories'
  | 'price points'
  | 'signals';

interface ThresholdMeaning {
  group: SignalGroupId;
  unit: Unit;
  meaning: string;
}

/** What each threshold decides, in words; the values are THRESHOLDS' own. */
const THRESHOLD_MEANINGS = {
  windowDays: { group: 'bands', unit: 'days', meaning: 'Rolling window of every 30-day figure (labels, real and wash shares).' },
  unlabeledBelow: { group: 'bands', unit: 'confidence', meaning: 'Below this confidence a pair or buyer is published as unlabeled.' },
  strongBand: { group: 'bands', unit: 'confidence', meaning: 'Strong band: at or above this a label is strong.' },
  likelyBand: { group: 'bands', unit: 'confidence', meaning: 'Likely band: at or above this (and below strong) a label is likely.' },
  periodicMinTx: { group: 'timing', unit: 'payments', meaning: 'A pair needs at least this many payments to be judged periodic.' },
  periodicMinInteriorDays: {
    group: 'timing',
    unit: 'days',
    meaning: 'Fewest interior days (first and last day left out) a periodic pair needs.',
  },
  periodicMidDays: {
    group: 'timing',
    unit: 'days',
    meaning: 'Below this many interior days a pair must be busy (see the next line) to count as periodic.',
  },
  periodicShortSpanMinDailyTx: {
    group: 'timing',
    unit: 'per day',
    meaning: 'Payments a day a short-span pair needs to count as periodic.',
  },
  periodicMinDailyTx: { group: 'timing', unit: 'per day', meaning: 'Fewest payments a day of a periodic pair.' },
  periodicMaxDispersion: {
    group: 'timing',
    unit: 'ratio',
    meaning: 'Highest index of dispersion (variance / mean of daily counts) of a periodic pair; random payers read about 1.',
  },
  periodicBusyDailyTx: { group: 'timing', unit: 'per day', meaning: 'A pair with this many payments a day over enough days is busy…' },
  periodicMaxDispersionBusy: {
    group: 'timing',
    unit: 'ratio',
    meaning: '…and a busy pair may read up to this dispersion and still be periodic.',
  },
  burstPerMinute: { group: 'timing', unit: 'per minute', meaning: 'Developer burst: payments per minute on the pair’s busiest day.' },
  burstMinDayTx: { group: 'timing', unit: 'payments', meaning: 'A day needs this many payments before it can hold a burst.' },
  burstDensity: {
    group: 'timing',
    unit: 'per active minute',
    meaning: 'Burst density: payments per distinct active minute over a pair; testing reads 4 to 30, paced use about 1.',
  },
  densityMinTx: { group: 'timing', unit: 'payments', meaning: 'A pair needs this many payments before its burst density counts.' },
  testerMaxSpanDays: {
    group: 'timing',
    unit: 'days',
    meaning: 'Tester: a burst-dense main pair that lasted at most this long; testers leave the seller’s cohort and the cohort rules.',
  },
  periodicShortMinInteriorDays: { group: 'timing', unit: 'days', meaning: 'A short busy poller: at least this many interior days…' },
  periodicShortMinDailyTx: { group: 'timing', unit: 'per day', meaning: '…of at least this many payments a day…' },
  periodicShortMaxDispersion: { group: 'timing', unit: 'ratio', meaning: '…with daily counts dispersed at most this much.' },
  periodicSparseMinInteriorDays: {
    group: 'timing',
    unit: 'days',
    meaning: 'A sparse schedule (a daily job) is periodic too: at least this many interior days…',
  },
  periodicSparseMinDailyTx: { group: 'timing', unit: 'per day', meaning: '…at least this many payments a day…' },
  periodicSparseMaxDispersion: { group: 'timing', unit: 'ratio', meaning: '…with daily counts dispersed at most this much.' },
  periodicClockMaxHours: {
    group: 'timing',
    unit: 'hours',
    meaning: 'A clock schedule is periodic too: over as many days, payments at no more than this many hours of the day…',
  },
  periodicClockMaxDispersion: { group: 'timing', unit: 'ratio', meaning: '…with daily counts dispersed at most this much.' },
  soakMinDayTx: { group: 'timing', unit: 'payments', meaning: 'Soak test: at least this many payments in one day…' },
  soakPerMinute: { group: 'timing', unit: 'per minute', meaning: '…at this sustained rate over the day’s span.' },
  developerMinPairShare: {
    group: 'pair-rules',
    unit: 'share',
    meaning: 'Developer: the load-tested pair carries at least this share of the buyer’s payments…',
  },
  developerMaxSpanDays: { group: 'pair-rules', unit: 'days', meaning: '…within a span shorter than this.' },
  testerMinPairShare: {
    group: 'pair-rules',
    unit: 'share',
    meaning: '…or this share when the wallet is a tester (hackathon developers also try other services).',
  },
  verifierBroadSellers: {
    group: 'pair-rules',
    unit: 'sellers',
    meaning: 'From this many sellers the listing timing is enough for a verifier; below it, it must also never come back.',
  },
  verifierMaxRevisitShare: {
    group: 'pair-rules',
    unit: 'share',
    meaning: 'A verifier with fewer sellers returns to at most this share of them on a later day.',
  },
  verifierMinListedPriceShare: {
    group: 'pair-rules',
    unit: 'share',
    meaning: 'A verifier pays the listed prices on at least this share of its sellers (where prices are listed).',
  },
  agentBroadSellers: { group: 'pair-rules', unit: 'sellers', meaning: 'An agent this broad needs no minimum payment count.' },
  selfTestMaxSpanDays: {
    group: 'pair-rules',
    unit: 'days',
    meaning: 'A seller-funded wallet paying for longer than this counts toward a funded loop; shorter is launch testing.',
  },
  commonFunderDedication: {
    group: 'pair-rules',
    unit: 'share',
    meaning: 'Common funder without a funding window: at least this share of every paying wallet below the root pays this seller most.',
  },
  returnMaxHops: {
    group: 'cycles',
    unit: 'transfers',
    meaning: 'Round trip: money back from the seller to its buyer within this many transfers…',
  },
  returnMaxFanOut: {
    group: 'cycles',
    unit: 'wallets',
    meaning: '…through no wallet funding more than this many (exchanges and bridges end a path)…',
  },
  sweepMinShare: {
    group: 'funding',
    unit: 'share',
    meaning:
      'A seller sweeps its takings to an address that receives at least this share of all it sends (refunds and rewards spread over customers are no sweep).',
  },
  trailMaxHops: {
    group: 'funding',
    unit: 'transfers',
    meaning: 'Money trail: a seller side’s money is followed through at most this many transfers or payments…',
  },
  trailMinTaint: {
    group: 'funding',
    unit: 'share',
    meaning: '…and a wallet holding less than this share of it is not kept (far below any decision).',
  },
  roundTripMinReturnShare: { group: 'cycles', unit: 'share', meaning: '…repaying at least this share of what the pair paid…' },
  roundTripMinReturns: { group: 'cycles', unit: 'transfers', meaning: '…in at least this many transfers after its first payment…' },
  roundTripMinTx: { group: 'cycles', unit: 'payments', meaning: '…on a pair of at least this many payments.' },
  botMaxSellers: {
    group: 'pair-rules',
    unit: 'sellers',
    meaning: 'Analytics bot: a periodic pair of a buyer with at most this many sellers.',
  },
  verifierMinSellers: { group: 'pair-rules', unit: 'sellers', meaning: 'Verifier: pays at least this many sellers…' },
  verifierMaxMedianPairTx: { group: 'pair-rules', unit: 'payments', meaning: '…with a median of at most this many payments per seller…' },
  verifierListingWindowHours: { group: 'pair-rules', unit: 'hours', meaning: '…mostly within this many hours of a listing appearing…' },
  verifierMinNearListingShare: { group: 'pair-rules', unit: 'share', meaning: '…for at least this share of its pairs.' },
  agentMinSellers: { group: 'pair-rules', unit: 'sellers', meaning: 'AI agent: pays at least this many sellers…' },
  agentMinTx: { group: 'pair-rules', unit: 'payments', meaning: '…with at least this many payments…' },
  agentMinCategories: { group: 'pair-rules', unit: 'categories', meaning: '…in at least this many categories…' },
  agentMinSpanDays: { group: 'pair-rules', unit: 'days', meaning: '…over at least this many days…' },
  agentMinAmountCv: { group: 'pair-rules', unit: 'ratio', meaning: '…with an amount coefficient of variation above this…' },
  agentMinPricePoints: { group: 'pair-rules', unit: 'price points', meaning: '…or at least this many distinct prices.' },
  fleetMinWallets: {
    group: 'pair-rules',
    unit: 'wallets',
    meaning: 'Agent fleet: a non-exchange funder of at least this many paying wallets…',
  },
  fleetMinAgentShare: { group: 'pair-rules', unit: 'share', meaning: '…at least this share of them agents.' },
  fleetAgentMinTx: { group: 'pair-rules', unit: 'payments', meaning: '…and this many payments.' },
  fleetAgentMinSellers: {
    group: 'pair-rules',
    unit: 'sellers',
    meaning: 'A fleet member is an agent from this many sellers (with an agent’s span and irregularity)…',
  },
  coreMinPairTx: {
    group: 'pair-rules',
    unit: 'payments',
    meaning: 'A pair below this many payments cannot make a buyer a core cohort member.',
  },
  coreMinPairShare: {
    group: 'pair-rules',
    unit: 'share',
    meaning: 'Core cohort member: the seller gets more than this share of the buyer’s payments.',
  },
  selfTestMaxSellers: {
    group: 'pair-rules',
    unit: 'sellers',
    meaning: 'Self-test by funding or a shared funder only for buyers with fewer sellers than this.',
  },
  sellerBrandChars: {
    group: 'pair-rules',
    unit: 'characters',
    meaning: 'Seller-branded test wallet: shares this many first and last address characters with the seller.',
  },
  guardMinSellers: { group: 'guards', unit: 'sellers', meaning: 'A buyer with at least this many sellers…' },
  guardMinTx: {
    group: 'guards',
    unit: 'payments',
    meaning: '…and at least this many payments is diversified: never wash on one seller’s cohort…',
  },
  guardMaxTopShare: { group: 'guards', unit: 'share', meaning: '…unless one seller still takes at least this share of its payments.' },
  washWalletMinShare: {
    group: 'guards',
    unit: 'share',
    meaning: 'A wallet whose wash pairs carry at least this share of its payments is a wash wallet on every pair.',
  },
  selfPayShare: {
    group: 'seller-flags',
    unit: 'share',
    meaning: 'self_pay: payer = seller carries more than this share of the seller’s payments.',
  },
  fundedPayerShare: {
    group: 'seller-flags',
    unit: 'share',
    meaning: 'seller_funded: more than this share of payers were funded by the seller.',
  },
  fundedLoopMinWallets: {
    group: 'seller-flags',
    unit: 'wallets',
    meaning: 'funded_loop: at least this many seller-funded payers is a wash loop; fewer is launch testing.',
  },
  farmMinCore: { group: 'seller-flags', unit: 'wallets', meaning: 'farm: a core of at least this many dedicated repeat wallets…' },
  farmMinCoreShare: { group: 'seller-flags', unit: 'share', meaning: '…making up at least this share of the cohort…' },
  farmMinSignals: {
    group: 'seller-flags',
    unit: 'signals',
    meaning:
      '…and at least this many independent farm signals (coordinated start, synchronised start, common funder, uniform amount, uniform tx count).',
  },
  farmMaxLogCountSpread: {
    group: 'seller-flags',
    unit: 'ratio',
    meaning: 'uniform tx count: 1.4826 × MAD of ln(payments) over the core at most this (organic repeat counts read about 1.2).',
  },
  coordinatedStartPct: {
    group: 'seller-flags',
    unit: 'share',
    meaning: 'coordinated start: at least this share of the cohort starts paying in one hour.',
  },
  farmMaxStartSpreadDays: {
    group: 'seller-flags',
    unit: 'days',
    meaning: 'synchronised start: the core’s 10th–90th percentile first payments fall within this many days.',
  },
  farmStartMarginDays: {
    group: 'seller-flags',
    unit: 'days',
    meaning: 'A farm member started inside the core’s start window widened by this many days (or a quarter of the window).',
  },
  commonFunderShare: {
    group: 'seller-flags',
    unit: 'share',
    meaning: 'common funder: at least this share of the core has one funding root.',
  },
  uniformAmountPct: {
    group: 'seller-flags',
    unit: 'share',
    meaning: 'uniform amount: at least this share of the cohort pays one amount signature (when the seller takes several).',
  },
  commonFunderMinWallets: {
    group: 'seller-flags',
    unit: 'wallets',
    meaning: 'Common-funder group: at least this many core wallets with one funding root…',
  },
  commonFunderWindowHours: { group: 'seller-flags', unit: 'hours', meaning: '…funded within this many hours.' },
  concentrationShare: {
    group: 'seller-flags',
    unit: 'share',
    meaning: 'concentration: the top payer carries at least this share of the seller’s volume…',
  },
  concentrationMinTx: { group: 'seller-flags', unit: 'payments', meaning: '…with at least this many payments…' },
  concentrationMinVolume: { group: 'seller-flags', unit: 'USDC', meaning: '…and at least this volume from payers…' },
  concentrationMaxBuyerSellers: { group: 'seller-flags', unit: 'sellers', meaning: '…and the top payer pays at most this many sellers.' },
  concentrationMaxEarlierPayers: {
    group: 'seller-flags',
    unit: 'wallets',
    meaning:
      '…and at most this many other payers paid the seller before the top payer did (it made the volume from the start; a heavy customer of an established service is demand).',
  },
  freshWalletDays: {
    group: 'seller-flags',
    unit: 'days',
    meaning: 'Fresh wallet: first funded at most this many days before its first payment.',
  },
  commonFunderMinDedication: {
    group: 'seller-flags',
    unit: 'share',
    meaning:
      'common_funder (funding-window branch): the root’s paying wallets pay this seller at least this share of all their payments (an event’s attendees spread over its services).',
  },
  commonFunderMinCoreShare: {
    group: 'seller-flags',
    unit: 'share',
    meaning:
      '…and the group makes up at least this share of the seller’s core (a payroll’s staff who all use one popular service are its customers).',
  },
  launchMaxBuyers: { group: 'seller-flags', unit: 'wallets', meaning: 'launch (informational): at most this many wallets…' },
  launchShare: {
    group: 'seller-flags',
    unit: 'share',
    meaning: '…carry at least this share of the first week’s payments within 48 hours of listing…',
  },
  launchMinTx: { group: 'seller-flags', unit: 'payments', meaning: '…of at least this many payments.' },
  hubMinWallets: { group: 'funding', unit: 'wallets', meaning: 'Funding hub: a funder of at least this many wallets…' },
  hubMaxDedication: {
    group: 'funding',
    unit: 'share',
    meaning: '…and fewer than this share of its paying wallets have one main operator, is infrastructure and ends a funding chain.',
  },
  fundingMaxHops: {
    group: 'funding',
    unit: 'transfers',
    meaning: 'First-funding links followed up from a wallet (relays between an operator and its wallets).',
  },
  operatorMaxKeySellers: {
    group: 'funding',
    unit: 'sellers',
    meaning:
      'Operator: sellers sharing a funding key (a funder up their chains, an address they sweep takings to) are one owner; a key shared by more sellers than this is a platform and joins nobody.',
  },
  operatorMinShare: {
    group: 'funding',
    unit: 'share',
    meaning:
      'An operator’s wallet pays the operator’s sellers at least this share of its payments (spending a third elsewhere: a customer of others, a CI fleet).',
  },
  operatorMinWallets: {
    group: 'funding',
    unit: 'wallets',
    meaning:
      'operator: at least this many such wallets, funded from the operator’s keys and paying for more than a few days, are a wash cohort; fewer are its own tests (self_test).',
  },
  burstWindowHours: {
    group: 'funding',
    unit: 'hours',
    meaning: 'Funding burst: fresh wallets funded by one source (an exchange, a paymaster, anyone) within this many hours…',
  },
  burstMinWallets: { group: 'funding', unit: 'wallets', meaning: '…at least this many of them, each paying mostly one operator…' },
  burstAmountBand: { group: 'funding', unit: 'ratio', meaning: '…with amounts within this relative band of the burst’s median…' },
  burstMinBuyerShare: {
    group: 'funding',
    unit: 'share',
    meaning:
      '…making up at least this share of the operator’s buyers: a cohort. A burst whose wallets spread over unrelated services is a crowd.',
  },
  waveWindowHours: {
    group: 'funding',
    unit: 'hours',
    meaning:
      'Funding wave: fresh wallets first funded by one source within this many hours, whatever the amounts (a coordination kind of the wash verdict)…',
  },
  waveMinRate: {
    group: 'funding',
    unit: 'ratio',
    meaning: '…and from a public source, at least this many times the pace it funds the operator’s fresh payers at.',
  },
  cycleMinEdgeVolume: { group: 'cycles', unit: 'USDC', meaning: 'Payment edges below this volume do not join a ring.' },
  cycleMaxBalance: {
    group: 'cycles',
    unit: 'ratio',
    meaning: 'Each ring member passes on what it receives: |in − out| / max(in, out) at most this.',
  },
  cycleMinFlow: { group: 'cycles', unit: 'USDC', meaning: 'Both the in and out flow of every ring member at least this.' },
  vanityStrictPrefix: { group: 'vanity', unit: 'characters', meaning: 'Strict key: this many leading characters…' },
  vanityStrictSuffix: { group: 'vanity', unit: 'characters', meaning: '…plus this many trailing characters…' },
  vanityStrictMinSize: { group: 'vanity', unit: 'wallets', meaning: '…shared by at least this many wallets.' },
  vanityBroadPrefix: { group: 'vanity', unit: 'characters', meaning: 'Broad key: this many leading characters…' },
  vanityBroadSuffix: { group: 'vanity', unit: 'characters', meaning: '…plus this many trailing characters…' },
  vanityBroadMinSize: { group: 'vanity', unit: 'wallets', meaning: '…shared by at least this many wallets…' },
  vanityBroadLargeCohort: {
    group: 'vanity',
    unit: 'wallets',
    meaning: '…one more above this many payers, where broad keys collide by chance.',
  },
  vanityLongChars: {
    group: 'vanity',
    unit: 'characters',
    meaning: 'A long shared prefix or suffix alone, mined at one end of the address.',
  },
  vanityChanceMax: {
    group: 'vanity',
    unit: 'clusters',
    meaning: 'A long-end cluster counts when at most this many clusters its size are expected by chance among the seller’s payers.',
  },
  vanityOperatorMultiple: {
    group: 'vanity',
    unit: 'ratio',
    meaning: 'A cluster member paying this multiple of the cluster’s median is the operator’s own wallet.',
  },
} as const satisfies Record<ThresholdKey, ThresholdMeaning>;

/** Which label each rule gives and when it fires, in words; the confidences are RULE_CONFIDENCE's. */
const RULE_MEANINGS = {
  self_pay: { label: 'self_test', when: 'The payer is the seller.' },
  money_trail: {
    label: 'suspected_wash',
    when: 'Money from the seller’s side (the seller, its owner, its operator) financed the buyer’s payments, by whatever path (funding, relays, returns, a payment ring), the buyer lives for the operator and the operator’s trail-financed wallets are a cohort: the model’s thresholds.',
  },
  vanity_operator: { label: 'self_test', when: 'The vanity cluster’s operator wallet (pays a multiple of the cluster median).' },
  cohort: {
    label: 'suspected_wash',
    when: 'A coordinated group (a funding root, a burst, a wave, a vanity cluster, a synchronised start) that dominates the operator’s traffic, whose member lives for the operator, sustained over days: the model’s thresholds. Coordination alone is never enough.',
  },
  evidence_step: {
    label: 'suspected_wash',
    when: 'Added to a wash verdict’s confidence for each piece of evidence beyond what it needs (a dominant trail group, a second coordination kind).',
  },
  concentration: { label: 'suspected_wash', when: 'The fresh top payer of a concentration-flagged seller.' },
  wash_wallet: {
    label: 'suspected_wash',
    when: 'Any other pair of a wash wallet (its wash pairs carry most of its payments, or its evidence is about the wallet).',
  },
  money_trail_test: {
    label: 'self_test',
    when: 'Financed by the seller’s side, but too few, too brief, too spread or on a schedule: the operator’s own tests or CI.',
  },
  seller_branded: { label: 'self_test', when: 'Shares the seller’s first and last address characters.' },
  verifier: { label: 'verifier', when: 'Many sellers, few calls each, mostly right after a listing appears.' },
  developer: { label: 'developer', when: 'A burst or soak test on one service within a short span.' },
  analytics_bot: { label: 'analytics_bot', when: 'A periodic pair of a buyer with few sellers.' },
  ai_agent: { label: 'ai_agent', when: 'A diversified, irregular, week-long consumer of many sellers and categories.' },
  organic: { label: 'organic_user', when: 'No rule fired: ordinary use (the default).' },
  organic_conflicting: {
    label: 'organic_user',
    when: 'Organic-looking pair with a wash-flagged seller: conflicting, so below the unlabeled band (published as unlabeled).',
  },
} as const satisfies Record<RuleKey, { label: WashLabel; when: string }>;

/** What each label means and whether its volume counts as real demand (the site's real_volume_pct). */
const LABEL_MEANINGS = {
  organic_user: { meaning: 'Ordinary use, no evidence of anything else (the default).', realDemand: 'yes' },
  ai_agent: { meaning: 'An autonomous multi-service consumer.', realDemand: 'yes' },
  analytics_bot: { meaning: 'A periodic data pull on a few services.', realDemand: 'no (reported separately)' },
  verifier: { meaning: 'A directory or health-check crawler paying a few calls per new listing.', realDemand: 'no' },
  developer: { meaning: 'A third-party load test or soak test on one service.', realDemand: 'no' },
  self_test: { meaning: 'The operator paying its own service (its own, seller-funded or seller-branded wallets).', realDemand: 'no' },
  suspected_wash: {
    meaning: 'Manufactured volume: farms, funded loops, payment rings, vanity cohorts, single-payer concentration.',
    realDemand: 'no',
  },
  unlabeled: { meaning: 'Confidence below the unlabeled band: thin or conflicting evidence.', realDemand: 'not counted either way' },
} as const satisfies Record<WashLabel, { meaning: string; realDemand: string }>;

// ------------------------------------------------------------------ evaluation record

const LabelScore = z.object({
  label: z.string(),
  truth: z.number().int(),
  predicted: z.number().int(),
  correct: z.number().int(),
  precision: z.number(),
  recall: z.number(),
  f1: z.number(),
});
const TargetCheck = z.object({ name: z.string(), value: z.number(), target: z.string(), met: z.boolean() });
const EvaluationRun = z.object({
  seed: z.number().int(),
  /** the demo world's scale; null for the challenge world */
  scale: z.number().int().nullable(),
  held_out: z.boolean(),
  now: z.string(),
  transactions: z.number().int(),
  buyers: z.number().int(),
  pairs: z.number().int(),
  buyer: z.array(LabelScore),
  pair: z.array(LabelScore),
  organic: z.object({
    buyers: z.number().int(),
    asWash: z.number().int(),
    asWashStrong: z.number().int(),
    asWashLikely: z.number().int(),
    unlabeled: z.number().int(),
  }),
  wash_recall_by_difficulty: z.array(z.object({ difficulty: z.string(), buyers: z.number().int(), recall: z.number() })),
  patterns: z.array(
    z.object({
      pattern: z.string(),
      label: z.string(),
      wallets: z.number().int(),
      asWash: z.number().int(),
      correct: z.number().int(),
      unlabeled: z.number().int(),
    }),
  ),
  volume: z.object({
    truthWashShare: z.number(),
    predictedWashShare: z.number(),
    absError: z.number(),
    sellerWeightedAbsError: z.number(),
  }),
  targets: z.array(TargetCheck).min(1),
  targets_missed: z.array(z.string()),
});
/** The shape `npm run eval:wash -- --write` produces (pipelines/analytics/eval-wash.ts WashEvalRecord): both splits. */
export const WashEvalRecordSchema = z.object({
  measured_on: z.string(),
  targets: z.object({
    washPrecision: z.number(),
    washRecall: z.number(),
    organicAsWash: z.number(),
    lookAlikeAsWash: z.number(),
    crowdAsWash: z.number(),
    otherF1: z.number(),
  }),
  splits: z
    .array(
      z.object({
        split: z.enum(['usual', 'ood']),
        world: z.enum(['demo', 'challenge']),
        about: z.string(),
        runs: z.array(EvaluationRun).min(1),
      }),
    )
    .length(2)
    .refine((splits) => splits[0]?.split === 'usual' && splits[1]?.split === 'ood', 'splits are [usual, ood]'),
});
export type WashEvalRecordFile = z.infer<typeof WashEvalRecordSchema>;

/**
 * The leave-one-family-out record (`npm run eval:wash -- --lofo --seeds 1-2 --learned --write site/data/wash-lofo.json`,
 * pipelines/analytics/eval-wash-lofo.ts): what the page shows of it.
 */
const LofoMacroSchema = z.object({
  washRecall: z.number(),
  washMinRecall: z.number(),
  honestMaxFlagged: z.number(),
  honestOverTarget: z.number().int(),
});

export const WashLofoSchema = z.object({
  worlds: z.array(z.string()).min(1),
  now: z.string(),
  macro: z.object({
    washRecall: z.number(),
    washMinRecall: z.number(),
    honestMaxFlagged: z.number(),
    washFamilies: z.number().int(),
    honestFamilies: z.number().int(),
  }),
  targets: z.array(z.object({ name: z.string(), value: z.number(), target: z.string(), met: z.boolean() })).min(1),
  families: z
    .array(
      z.object({
        family: z.string(),
        kind: z.enum(['wash', 'honest']),
        label: z.string(),
        against: z.string(),
        wallets: z.number().int(),
        lofo: z.number().min(0).max(1),
        inSample: z.number().min(0).max(1),
      }),
    )
    .min(1),
  model: z.record(z.string(), z.number()),
  /** --learned: gradient-boosted trees over the same evidence beside the rules, both from the candidates. */
  learned: z
    .object({
      about: z.string(),
      rules: LofoMacroSchema,
      learned: LofoMacroSchema,
      importance: z.array(z.object({ feature: z.string(), weight: z.number() })),
    })
    .optional(),
});
export type WashLofoFile = z.infer<typeof WashLofoSchema>;

/** What each fitted threshold of the verdict means (catalog/wash-model.ts). */
const MODEL_MEANINGS: Record<keyof WashModelThresholds, string> = {
  trailCover: 'Money trail: the operator’s side financed at least this share of what the buyer paid it…',
  trailLife: '…the median trail-financed wallet pays the operator at least this share of its payments…',
  trailWallets: '…and they are at least this many wallets…',
  trailDominance: '…or make at least this share of the operator’s payer volume…',
  trailSpanDays: '…over at least this many days.',
  trailPeriodicLife: 'On a schedule (a CI job): the group pays the operator at least this share…',
  trailPeriodicWallets: '…and is at least this many wallets; else the operator’s own monitoring (self_test).',
  cohortWallets: 'Cohort: a coordinated group of at least this many wallets…',
  cohortDominance: '…making at least this share of the operator’s payer volume…',
  cohortSpanDays: '…paying over at least this many days…',
  cohortLife: '…whose median member pays the operator at least this share of its payments.',
};

// ------------------------------------------------------------------ the page model

export interface ThresholdRow {
  key: ThresholdKey;
  value: number;
  /** The value as the page prints it (THRESHOLDS' own number, no rounding). */
  valueText: string;
  unit: Unit;
  meaning: string;
}

export interface MethodologyModel {
  labels: Array<{ label: WashLabel; meaning: string; realDemand: string; rules: Array<{ rule: RuleKey; confidence: number }> }>;
  bands: { unlabeledBelow: number; likely: number; strong: number };
  groups: Array<{ id: SignalGroupId; title: string; about: string; thresholds: ThresholdRow[] }>;
  rules: Array<{ rule: RuleKey; label: WashLabel; confidence: number; confidenceText: string; when: string; belowBand: boolean }>;
  evaluation: WashEvalRecordFile;
  /** The verdict's fitted thresholds and how they were fitted. */
  model: { thresholds: Array<{ key: string; value: number; meaning: string }>; fitted: typeof WASH_MODEL.fitted };
  lofo: WashLofoFile;
}

/** A constant exactly as the code holds it: 30000 reads "30000", 0.1 reads "0.1". */
export function constantText(value: number): string {
  return String(value);
}

export function methodologyModel(evaluation: unknown = washEvalJson, lofo: unknown = washLofoJson): MethodologyModel {
  const meanings: Record<ThresholdKey, ThresholdMeaning> = THRESHOLD_MEANINGS;
  const rules = (Object.keys(RULE_CONFIDENCE) as RuleKey[]).map((rule) => {
    const confidence: number = RULE_CONFIDENCE[rule];
    const { label, when } = RULE_MEANINGS[rule];
    return { rule, label, confidence, confidenceText: constantText(confidence), when, belowBand: confidence < THRESHOLDS.unlabeledBelow };
  });
  return {
    labels: WASH_LABELS.map((label) => ({
      label,
      ...LABEL_MEANINGS[label],
      rules: rules.filter((r) => r.label === label).map(({ rule, confidence }) => ({ rule, confidence })),
    })),
    bands: { unlabeledBelow: THRESHOLDS.unlabeledBelow, likely: THRESHOLDS.likelyBand, strong: THRESHOLDS.strongBand },
    groups: SIGNAL_GROUPS.map((g) => ({
      ...g,
      thresholds: (Object.keys(THRESHOLDS) as ThresholdKey[])
        .filter((key) => meanings[key].group === g.id)
        .map((key) => {
          const value: number = THRESHOLDS[key];
          const { unit, meaning } = meanings[key];
          return { key, value, valueText: constantText(value), unit, meaning };
        }),
    })),
    rules,
    evaluation: WashEvalRecordSchema.parse(evaluation),
    model: {
      thresholds: MODEL_KEYS.map((key) => ({ key, value: WASH_MODEL.thresholds[key], meaning: MODEL_MEANINGS[key] })),
      fitted: WASH_MODEL.fitted,
    },
    lofo: WashLofoSchema.parse(lofo),
  };
}
