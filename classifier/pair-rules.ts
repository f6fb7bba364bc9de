/**
 * Pair labels (docs/wash-methodology.md §5; starting rules §11.7): every (buyer, seller, chain) pair gets the first rule that matches,
 * in priority order: definitional self-pay, then wash evidence, then the seller links that mean
 * self-testing, then the honest behaviours, then organic use as the default. Then one buyer-level
 * pass: a wash wallet is wash on every pair (its payments to popular sellers are camouflage, not
 * demand). A wallet is a wash wallet when its wash pairs carry most of its payments, or when the
 * evidence is about the wallet itself (a ring node, funded by the seller's loop or a common-funder
 * cohort, mined into a strict vanity cluster). Last, the confidence band: a pair below it is
 * published as `unlabeled`.
 */
import type { WashLabel } from '../catalog/categories.ts';
import { step, type SqlStep } from './plan.ts';
import { RULE_CONFIDENCE as C, THRESHOLDS as T } from '../catalog/wash-rules.ts';

interface PairRule {
  rule: string;
  label: Exclude<WashLabel, 'unlabeled'>;
  /** SQL for the confidence (usually a constant; over the columns of wc_pair_rules). */
  confidence: string;
  /** SQL condition over the joined pair row (aliases: r pair context, s seller, v vanity, g funder group, cb/cs cycles). */
  when: string;
  /** SQL list of signal names that support the label (over the columns of wc_pair_rules). */
  reasons: string;
  /** The signals this rule publishes (key, SQL over wc_pair_final), besides pair_share. */
  signals: ReadonlyArray<readonly [string, string]>;
}

/**
 * The flags that name a pair's reasons, packed into one integer (`reason_bits`), so a wallet's
 * reason can be named from its heaviest pair's (rule, bits) without carrying lists around.
 */
export const REASON_BITS = {
  coordinated_start: 1,
  uniform_amount: 2,
  uniform_tx_count: 4,
  common_funder: 8,
  synchronized_start: 16,
  vanity_strict: 32,
  vanity_broad: 64,
} as const;

const bit = (name: keyof typeof REASON_BITS) => `(reason_bits & ${REASON_BITS[name]}) <> 0`;

export const REASON_BITS_SQL = `(coalesce(s.sig_coordinated_start, false)::INTEGER * ${REASON_BITS.coordinated_start}
         + coalesce(s.sig_uniform_amount, false)::INTEGER * ${REASON_BITS.uniform_amount}
         + coalesce(s.sig_uniform_tx_count, false)::INTEGER * ${REASON_BITS.uniform_tx_count}
         + coalesce(s.sig_common_funder, false)::INTEGER * ${REASON_BITS.common_funder}
         + coalesce(s.sig_synchronized_start, false)::INTEGER * ${REASON_BITS.synchronized_start}
         + (v.vanity_strict_size IS NOT NULL)::INTEGER * ${REASON_BITS.vanity_strict}
         + (v.vanity_broad_size IS NOT NULL)::INTEGER * ${REASON_BITS.vanity_broad})`;

/** Signal names of a farm seller that are true, in the words of the buyer profile's `reason` (docs/services.md, "Analytics paid responses"). */
const FARM_REASONS = `list_filter([
    CASE WHEN ${bit('coordinated_start')} THEN 'coordinated_start' END,
    CASE WHEN ${bit('uniform_amount')} THEN 'uniform_amount' END,
    CASE WHEN ${bit('uniform_tx_count')} THEN 'uniform_tx_count' END,
    CASE WHEN ${bit('common_funder')} THEN 'common_funder' END,
    CASE WHEN ${bit('synchronized_start')} THEN 'synchronized_start' END,
    'dedicated_cohort'], x -> x IS NOT NULL)`;

const notGuarded = 'NOT r.diversified';
/** The seller's cohort summary, published on a farm pair. */
const COHORT_SIGNALS: ReadonlyArray<readonly [string, string]> = [
  ['seller_cohort_size', 'cohort_size'],
  ['coordinated_start', 'coordinated_start_pct'],
  ['uniform_amount', 'uniform_amount_pct'],
  ['uniform_tx_count_cv', 'coalesce(tx_count_cv, 0)'],
  ['common_funder_share', 'common_funder_share'],
];
const vanityReasons = `list_filter([CASE WHEN ${bit('vanity_strict')} THEN 'vanity_strict' END,
    CASE WHEN ${bit('vanity_broad')} THEN 'vanity_broad' END], x -> x IS NOT NULL)`;

/** First match wins. */
export const PAIR_RULES: readonly PairRule[] = [
  { rule: 'self_pay', label: 'self_test', confidence: `${C.self_pay}`, when: 'r.self_pay', reasons: `['self_pay']`, signals: [] },
  {
    rule: 'cycle',
    label: 'suspected_wash',
    confidence: `${C.cycle}`,
    when: 'cb.cycle_id IS NOT NULL AND cb.cycle_id = cs.cycle_id AND cb.balanced',
    reasons: `['cycle', 'balanced_flow']`,
    signals: [['cycle_size', 'cycle_size']],
  },
  {
    rule: 'round_trip',
    label: 'suspected_wash',
    confidence: `${C.round_trip}`,
    when: `coalesce(rt.returned >= ${T.roundTripMinReturnShare} * r.volume AND rt.returns >= ${T.roundTripMinReturns}
           AND r.tx_count >= ${T.roundTripMinTx}, false)`,
    reasons: `['round_trip', 'funds_returned']`,
    signals: [
      ['returned_share', 'return_share'],
      ['returns', 'returns'],
    ],
  },
  {
    rule: 'funded_loop',
    label: 'suspected_wash',
    confidence: `${C.funded_loop}`,
    when: `${notGuarded} AND r.seller_funded AND s.funded_loop`,
    reasons: `['seller_funded', 'funded_loop']`,
    signals: [['seller_funded_wallets', 'funded_wallets']],
  },
  {
    rule: 'operator',
    label: 'suspected_wash',
    confidence: `${C.operator}`,
    // funded from the keys of the seller's operator and paying it most: one of enough such wallets
    when: `${notGuarded} AND s.operator_wash AND r.operator_funded AND r.in_cohort AND r.op_share >= ${T.operatorMinShare}`,
    reasons: `['operator_funded', 'operator_cohort']`,
    signals: [
      ['operator_sellers', 'operator_sellers'],
      ['operator_wallets', 'operator_wallets'],
      ['operator_share', 'op_share'],
    ],
  },
  {
    rule: 'operator_test',
    label: 'self_test',
    confidence: `${C.operator_test}`,
    // the operator's own wallets, too few or too spread for a cohort: its tests, its CI
    when: `r.operator_funded AND NOT r.seller_funded AND r.buyer_sellers < ${T.selfTestMaxSellers}`,
    reasons: `['operator_funded']`,
    signals: [['operator_sellers', 'operator_sellers']],
  },
  {
    rule: 'vanity_operator',
    label: 'self_test',
    confidence: `${C.vanity_operator}`,
    when: `${notGuarded} AND coalesce(v.vanity_operator, false) AND NOT r.periodic AND r.buyer_sellers < ${T.selfTestMaxSellers}`,
    reasons: `list_prepend('vanity_operator', ${vanityReasons})`,
    signals: [['vanity_cluster_size', 'vanity_cluster_size']],
  },
  {
    rule: 'vanity',
    label: 'suspected_wash',
    confidence: `CASE WHEN vanity_strict_size IS NOT NULL AND vanity_broad_size IS NOT NULL THEN ${C.vanity_strict_and_broad}
                      WHEN vanity_strict_size IS NOT NULL THEN ${C.vanity_strict} ELSE ${C.vanity_broad} END`,
    // strict keys (7 characters) are never shared by chance: membership is enough; a broad key
    // also needs the seller to be the wallet's main one. The seller's own branding is self-testing.
    when: `${notGuarded} AND NOT r.periodic AND NOT r.seller_branded
           AND (v.vanity_strict_size IS NOT NULL OR (v.vanity_broad_size IS NOT NULL AND r.pair_share > ${T.coreMinPairShare}))`,
    reasons: vanityReasons,
    signals: [
      ['vanity_cluster_size', 'vanity_cluster_size'],
      ['seller_cohort_size', 'cohort_size'],
    ],
  },
  {
    rule: 'farm',
    label: 'suspected_wash',
    // more independent farm signals than the two the flag needs raise it
    confidence: `CASE WHEN sig_coordinated_start::INTEGER + sig_synchronized_start::INTEGER + sig_common_funder::INTEGER
                           + sig_uniform_amount::INTEGER + sig_uniform_tx_count::INTEGER >= 3
                      THEN ${C.farm + 0.05} ELSE ${C.farm} END`,
    // a core wallet of a farm seller that joined with the farm: it started inside the core's
    // start window, or shares the cohort's funding root (a late real customer does neither)
    when: `${notGuarded} AND s.farm AND r.core
           AND (epoch(r.first_time) BETWEEN s.core_start_p10 - greatest(${T.farmStartMarginDays} * 86400, 0.25 * (s.core_start_p90 - s.core_start_p10))
                                      AND s.core_start_p90 + greatest(${T.farmStartMarginDays} * 86400, 0.25 * (s.core_start_p90 - s.core_start_p10))
                OR (s.cohort_root IS NOT NULL AND list_contains(r.roots, s.cohort_root)))`,
    reasons: FARM_REASONS,
    signals: COHORT_SIGNALS,
  },
  {
    rule: 'common_funder',
    label: 'suspected_wash',
    confidence: `${C.common_funder}`,
    when: `${notGuarded} AND g.root IS NOT NULL`,
    reasons: `['common_funder', 'funding_window']`,
    signals: [
      ['common_funder_share', 'common_funder_share'],
      ['seller_cohort_size', 'cohort_size'],
    ],
  },
  {
    rule: 'funding_burst',
    label: 'suspected_wash',
    confidence: `${C.funding_burst}`,
    when: `${notGuarded} AND bm.pk IS NOT NULL`,
    reasons: `['funding_burst']`,
    signals: [
      ['burst_wallets', 'burst_wallets'],
      ['operator_share', 'op_share'],
    ],
  },
  {
    rule: 'concentration',
    label: 'suspected_wash',
    confidence: `${C.concentration}`,
    // the top payer made the volume from the seller's start: a heavy customer of an established
    // service (more than a few payers before it) is demand, however concentrated
    when: `${notGuarded} AND s.concentration AND r.bk = s.top_payer AND NOT r.periodic AND r.buyer_sellers <= ${T.concentrationMaxBuyerSellers}
           AND coalesce(s.top_payer_earlier_payers, 0) <= ${T.concentrationMaxEarlierPayers}
           AND r.fund_time IS NOT NULL AND r.fund_time >= r.buyer_first_time - INTERVAL ${T.freshWalletDays} DAY`,
    reasons: `['single_payer_concentration', 'fresh_wallet']`,
    signals: [['seller_top_payer_share', 'top_payer_share']],
  },
  {
    rule: 'seller_funded',
    label: 'self_test',
    confidence: `${C.seller_funded}`,
    when: `r.seller_funded AND r.buyer_sellers < ${T.selfTestMaxSellers}`,
    reasons: `['seller_funded']`,
    signals: [['seller_funded_wallets', 'funded_wallets']],
  },
  {
    rule: 'shared_funder',
    label: 'self_test',
    confidence: `${C.shared_funder}`,
    when: `r.shared_funder AND r.buyer_sellers < ${T.selfTestMaxSellers}`,
    reasons: `['shared_funder']`,
    signals: [],
  },
  {
    rule: 'seller_branded',
    label: 'self_test',
    confidence: `${C.seller_branded}`,
    when: `r.seller_branded AND r.buyer_sellers < ${T.selfTestMaxSellers}`,
    reasons: `['seller_branded_vanity']`,
    signals: [],
  },
  {
    rule: 'verifier',
    label: 'verifier',
    confidence: `${C.verifier}`,
    when: 'r.verifier_like',
    reasons: `['many_sellers', 'few_calls_per_seller', 'new_listing_calls']`,
    signals: [['buyer_sellers', 'buyer_sellers']],
  },
  {
    rule: 'developer',
    label: 'developer',
    confidence: `${C.developer}`,
    when: `(r.burst_per_min >= ${T.burstPerMinute} OR r.calls_per_minute >= ${T.burstDensity}) AND NOT r.periodic
           AND (r.pair_share >= ${T.developerMinPairShare} OR (r.tester AND r.pair_share >= ${T.testerMinPairShare}))
           AND r.span_days < ${T.developerMaxSpanDays}`,
    reasons: `['burst']`,
    signals: [
      ['burst_per_min', 'burst_per_min'],
      ['calls_per_minute', 'calls_per_minute'],
    ],
  },
  {
    rule: 'analytics_bot',
    label: 'analytics_bot',
    confidence: `${C.analytics_bot}`,
    when: `r.periodic AND r.buyer_sellers <= ${T.botMaxSellers}`,
    reasons: `['periodic']`,
    signals: [['daily_dispersion', 'dispersion']],
  },
  {
    rule: 'ai_agent',
    label: 'ai_agent',
    confidence: `${C.ai_agent}`,
    when: 'r.agent_like',
    reasons: `['many_sellers', 'multi_category', 'varied_amounts']`,
    signals: [['buyer_sellers', 'buyer_sellers']],
  },
  {
    rule: 'organic_conflicting',
    label: 'organic_user',
    confidence: `${C.organic_conflicting}`,
    // only a farm's cohort is almost all farm wallets; a seller that funds a loop or holds a
    // vanity cluster still has real customers, and being one is no evidence against them
    when: 's.farm',
    reasons: `['default', 'seller_flagged']`,
    signals: [['buyer_sellers', 'buyer_sellers']],
  },
  // the default rests on no evidence: its signals map stays empty (building maps is costly per row)
  { rule: 'organic', label: 'organic_user', confidence: `${C.organic}`, when: 'true', reasons: `['default']`, signals: [] },
];

const caseOf = (pick: (r: PairRule) => string): string =>
  `CASE ${PAIR_RULES.map((r) => `WHEN ${r.when} THEN ${pick(r)}`).join('\n    ')} END`;

const byRule = (pick: (r: PairRule) => string): string =>
  `CASE rule ${PAIR_RULES.map((r) => `WHEN '${r.rule}' THEN ${pick(r)}`).join('\n    ')} END`;

/**
 * A MAP(VARCHAR, DOUBLE) of the entries (none of them NULL). Building maps is DuckDB's slowest
 * per-row operation here (~0.4 us per entry), so each rule publishes only the few signals it rests on.
 */
export function signalMapSql(entries: ReadonlyArray<readonly [string, string]>): string {
  if (entries.length === 0) return 'MAP {}::MAP(VARCHAR, DOUBLE)';
  return `map_from_entries([${entries.map(([k, e]) => `{'key': '${k}', 'value': coalesce((${e})::DOUBLE, 0)}`).join(', ')}])`;
}

/** The pair's published signals: pair_share plus those of the rule that labelled it (none for the default). */
export const PAIR_SIGNALS_SQL = `CASE rule
    WHEN 'organic' THEN ${signalMapSql([])}
    ${[
      ...PAIR_RULES.filter((r) => r.rule !== 'organic').map((r) => [r.rule, r.signals] as const),
      ['wash_wallet', [['wash_tx_share', 'wash_tx_share']]] as const,
    ]
      .map(([rule, entries]) => `WHEN '${rule}' THEN ${signalMapSql([['pair_share', 'pair_share'], ...entries])}`)
      .join('\n    ')}
  END`;

/** The signal names behind a pair's label, from its final rule (over wc_pair_final's columns). */
export const PAIR_REASONS_SQL = `CASE rule WHEN 'wash_wallet' THEN ['wash_wallet']
    ${PAIR_RULES.map((r) => `WHEN '${r.rule}' THEN ${r.reasons}`).join('\n    ')} END`;

/** Rules whose evidence is about the wallet itself (made, funded or mined for the purpose), not one pair. */
const IDENTITY_RULES = `rule IN ('cycle', 'round_trip', 'funded_loop', 'operator', 'funding_burst', 'common_funder') OR (rule = 'vanity' AND vanity_strict_size IS NOT NULL)`;

export function pairRuleSteps(): SqlStep[] {
  return [
    step(
      'wc_funder_members',
      `SELECT DISTINCT c.pk, g.root
  FROM wc_pair_ctx c JOIN wc_funder_groups g ON g.sak = c.sak AND g.chain = c.chain
 WHERE c.in_cohort AND c.pair_share > ${T.coreMinPairShare} AND list_contains(c.roots, g.root)`,
    ),
    step(
      'wc_pair_rules',
      `WITH joined AS (
  SELECT r.pk, r.bk, r.sak, r.chain, r.tx_count, r.volume,
         r.pair_share, r.buyer_tx, r.buyer_sellers, r.burst_per_min, r.calls_per_minute, r.tester, r.dispersion, r.periodic, r.core, r.seller_funded,
         s.funded_loop, s.farm, s.cohort_size, s.coordinated_start_pct, s.uniform_amount_pct, s.tx_count_cv,
         s.common_funder_share, s.funded_wallets, s.top_payer_share,
         s.sig_coordinated_start, s.sig_synchronized_start, s.sig_common_funder, s.sig_uniform_amount, s.sig_uniform_tx_count,
         r.op_share, s.operator_sellers, s.operator_wallets, bm.burst_wallets,
         v.vanity_strict_size, v.vanity_broad_size, v.vanity_cluster_size, v.vanity_strict_key, v.vanity_broad_key,
         g.root AS funder_group_root,
         rt.returns, rt.returned / nullif(r.volume, 0) AS return_share,
         CASE WHEN cb.cycle_id = cs.cycle_id THEN cb.cycle_id END AS cycle_id,
         CASE WHEN cb.cycle_id = cs.cycle_id THEN cb.cycle_size END AS cycle_size,
         ${REASON_BITS_SQL} AS reason_bits,
         ${caseOf((r) => `'${r.rule}'`)} AS rule
    FROM wc_pair_ctx r
    JOIN wc_sellers s USING (sak, chain)
    LEFT JOIN wc_pair_vanity v USING (pk)
    LEFT JOIN (SELECT pk, min(root) AS root FROM wc_funder_members GROUP BY ALL) g USING (pk)
    LEFT JOIN wc_pair_returns rt USING (pk)
    LEFT JOIN wc_burst_members bm USING (pk)
    LEFT JOIN wc_cycles cb ON cb.ak = r.bk AND cb.chain = r.chain
    LEFT JOIN wc_cycles cs ON cs.ak = r.sak AND cs.chain = r.chain
)
-- only labelled pairs are kept: a default (organic) pair is any pair of wc_pairs not in here
SELECT *,
       ${byRule((r) => `'${r.label}'`)} AS candidate_label,
       ${byRule((r) => r.confidence)} AS rule_confidence
  FROM joined WHERE rule <> 'organic'`,
    ),
    // Wash wallets: the few wallets with a wash pair, their wash share and identity evidence.
    step(
      'wc_wash_wallets',
      `SELECT bk, any_value(buyer_tx) AS buyer_tx,
       sum(tx_count) / any_value(buyer_tx) AS wash_tx_share,
       sum(tx_count) / any_value(buyer_tx) >= ${T.washWalletMinShare} OR bool_or(${IDENTITY_RULES}) AS wash_wallet
  FROM wc_pair_rules WHERE candidate_label = 'suspected_wash' GROUP BY bk`,
    ),
    // Final labels of the labelled pairs (a view: a join with a small table, read a few times).
    step(
      'wc_pair_final',
      `WITH p AS (
  SELECT r.*, coalesce(w.wash_tx_share, 0) AS wash_tx_share,
         coalesce(w.wash_wallet, false) AND r.candidate_label NOT IN ('suspected_wash', 'self_test') AS propagated
    FROM wc_pair_rules r LEFT JOIN wc_wash_wallets w USING (bk)
)
SELECT * EXCLUDE (rule, candidate_label, rule_confidence, propagated),
       CASE WHEN propagated THEN 'wash_wallet' ELSE rule END AS rule,
       CASE WHEN propagated THEN 'suspected_wash'
            WHEN rule_confidence >= ${T.unlabeledBelow} THEN candidate_label ELSE 'unlabeled' END AS label,
       CASE WHEN propagated THEN ${C.wash_wallet} ELSE rule_confidence END AS confidence
  FROM p`,
      false,
    ),
    // Every pair with its final label: labelled pairs as above; the rest are organic, or wash when
    // the wallet is a wash wallet. A view over the pair table joined with two small tables.
    step(
      'wc_pair_labels_all',
      `SELECT p.pk, p.bk, p.sak, p.buyer, p.seller_address, p.chain, p.tx_count, p.volume, p.tx_count_30d, p.volume_30d,
       p.first_time, p.last_time,
       coalesce(f.rule, CASE WHEN w.wash_wallet THEN 'wash_wallet' ELSE 'organic' END) AS rule,
       coalesce(f.label, CASE WHEN w.wash_wallet THEN 'suspected_wash' ELSE 'organic_user' END) AS label,
       coalesce(f.confidence, CASE WHEN w.wash_wallet THEN ${C.wash_wallet} ELSE ${C.organic} END) AS confidence,
       coalesce(f.pair_share, p.tx_count / w.buyer_tx) AS pair_share,
       coalesce(f.wash_tx_share, w.wash_tx_share) AS wash_tx_share,
       coalesce(f.reason_bits, 0) AS reason_bits,
       f.cycle_size, f.funded_wallets, f.vanity_cluster_size, f.cohort_size, f.coordinated_start_pct,
       f.uniform_amount_pct, f.tx_count_cv, f.common_funder_share, f.top_payer_share, f.buyer_sellers,
       f.burst_per_min, f.calls_per_minute, f.dispersion, f.returns, f.return_share,
       f.op_share, f.operator_sellers, f.operator_wallets, f.burst_wallets
  FROM wc_pairs p
  LEFT JOIN wc_pair_final f USING (pk)
  LEFT JOIN (SELECT bk, buyer_tx, wash_tx_share, wash_wallet FROM wc_wash_wallets WHERE wash_wallet) w ON w.bk = p.bk`,
      false,
    ),
  ];
}
