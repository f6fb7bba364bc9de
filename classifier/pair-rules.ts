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

const notGuarded = 'NOT r.diversified';
const vanityReasons = `list_filter([CASE WHEN ${bit('vanity_strict')} THEN 'vanity_strict' END,
    CASE WHEN ${bit('vanity_broad')} THEN 'vanity_broad' END], x -> x IS NOT NULL)`;

/** The coordination kinds of a cohort verdict in the words of the buyer profile's `reason`. */
const COHORT_KIND_REASONS = `list_transform(coalesce(cohort_kinds, []), k -> CASE k
    WHEN 'funding_root' THEN 'common_funder' WHEN 'funding_burst' THEN 'funding_burst'
    WHEN 'vanity' THEN 'vanity_cluster' WHEN 'start_window' THEN 'synchronized_start' ELSE k END)`;

/** How the money came back round, when a known shape: a ring, returns after payments, the seller's or its operator's funding. */
const TRAIL_REASONS = `list_filter(['money_trail',
    CASE WHEN cycle_id IS NOT NULL THEN 'payment_ring' END,
    CASE WHEN coalesce(returned_share >= ${T.roundTripMinReturnShare} AND returns >= ${T.roundTripMinReturns}, false) THEN 'funds_returned' END,
    CASE WHEN seller_funded THEN 'seller_funded' END,
    CASE WHEN operator_funded AND NOT seller_funded THEN 'operator_funded' END,
    CASE WHEN operator_funded AND operator_sellers > 1 THEN 'operator_cohort' END], x -> x IS NOT NULL)`;

/** More independent evidence than the verdict needs raises its confidence (docs/wash-methodology.md §6). */
const E = C.evidence_step;

/** First match wins. */
export const PAIR_RULES: readonly PairRule[] = [
  { rule: 'self_pay', label: 'self_test', confidence: `${C.self_pay}`, when: 'r.self_pay', reasons: `['self_pay']`, signals: [] },
  {
    rule: 'money_trail',
    label: 'suspected_wash',
    // the trail, plus the trail-financed wallets making most of the operator's volume, plus a coordinated group
    confidence: `${C.money_trail} + ${E} * (coalesce(dominance, 0) >= 0.5)::INTEGER + ${E} * coalesce(cohort_wash, false)::INTEGER`,
    when: 'coalesce(vd.trail_wash, false)',
    reasons: TRAIL_REASONS,
    signals: [
      ['trail_cover', 'trail_cover'],
      ['dominance', 'dominance'],
      ['operator_share', 'op_share'],
      ['group_wallets', 'group_wallets'],
    ],
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
    rule: 'cohort',
    label: 'suspected_wash',
    // a second coordination kind, and a group that is nearly all of the operator, raise it
    confidence: `${C.cohort} + ${E} * least(len(coalesce(cohort_kinds, [])) - 1, 2) + ${E} * (coalesce(dominance, 0) >= 0.8)::INTEGER`,
    // the verdict holds the diversified guard itself (evidence.ts), so the fit decides as the rule does
    when: 'coalesce(vd.cohort_wash, false)',
    reasons: `list_distinct(list_concat(['cohort'], ${COHORT_KIND_REASONS}))`,
    signals: [
      ['dominance', 'dominance'],
      ['group_wallets', 'group_wallets'],
      ['operator_share', 'op_share'],
      ['group_span_days', 'group_span_days'],
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
    rule: 'money_trail_test',
    label: 'self_test',
    confidence: `${C.money_trail_test}`,
    // financed by the operator's side, too few, too brief or too spread for a cohort: its own tests, its CI
    when: `coalesce(vd.trail_financed, false) AND r.buyer_sellers < ${T.selfTestMaxSellers}`,
    reasons: `list_filter(['money_trail', CASE WHEN seller_funded THEN 'seller_funded' END,
      CASE WHEN operator_funded AND NOT seller_funded THEN 'operator_funded' END], x -> x IS NOT NULL)`,
    signals: [
      ['trail_cover', 'trail_cover'],
      ['operator_share', 'op_share'],
    ],
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
const IDENTITY_RULES = `rule IN ('money_trail', 'cohort')`;

/** The rules, then `evidence` (steps over wc_pair_rules that the published labels read), then the final labels. */
export function pairRuleSteps(evidence: readonly SqlStep[]): SqlStep[] {
  return [
    step(
      'wc_pair_rules',
      `WITH joined AS (
  SELECT r.pk, r.bk, r.sak, r.chain, r.tx_count, r.volume,
         r.pair_share, r.buyer_tx, r.buyer_sellers, r.burst_per_min, r.calls_per_minute, r.tester, r.dispersion, r.periodic, r.core, r.seller_funded,
         r.operator_funded, vd.trail_cover, vd.trail_wash, vd.cohort_wash, vd.trail_financed, vd.dominance, vd.group_wallets, vd.group_span_days,
         vd.cohort_kinds, vd.cohort_groups,
         s.funded_loop, s.farm, s.cohort_size, s.coordinated_start_pct, s.uniform_amount_pct, s.tx_count_cv,
         s.common_funder_share, s.funded_wallets, s.top_payer_share,
         s.sig_coordinated_start, s.sig_synchronized_start, s.sig_common_funder, s.sig_uniform_amount, s.sig_uniform_tx_count,
         r.op_share, s.operator_sellers, s.operator_wallets,
         v.vanity_strict_size, v.vanity_broad_size, v.vanity_cluster_size, v.vanity_strict_key, v.vanity_broad_key,
         rt.returns, rt.returned / nullif(r.volume, 0) AS returned_share,
         CASE WHEN cb.cycle_id = cs.cycle_id THEN cb.cycle_id END AS cycle_id,
         CASE WHEN cb.cycle_id = cs.cycle_id THEN cb.cycle_size END AS cycle_size,
         ${REASON_BITS_SQL} AS reason_bits,
         ${caseOf((r) => `'${r.rule}'`)} AS rule
    FROM wc_pair_ctx r
    JOIN wc_sellers s USING (sak, chain)
    LEFT JOIN wc_pair_vanity v USING (pk)
    LEFT JOIN wc_pair_returns rt USING (pk)
    LEFT JOIN wc_pair_verdict vd USING (pk)
    LEFT JOIN wc_cycles cb ON cb.ak = r.bk AND cb.chain = r.chain
    LEFT JOIN wc_cycles cs ON cs.ak = r.sak AND cs.chain = r.chain
)
-- only labelled pairs are kept: a default (organic) pair is any pair of wc_pairs not in here
SELECT *,
       ${byRule((r) => `'${r.label}'`)} AS candidate_label,
       ${byRule((r) => r.confidence)} AS rule_confidence
  FROM joined WHERE rule <> 'organic'`,
    ),
    ...evidence,
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
       f.cycle_id, f.returns, f.returned_share, f.seller_funded, f.operator_funded, f.operator_sellers,
       f.trail_cover, f.dominance, f.group_wallets, f.group_span_days, f.cohort_kinds,
       f.vanity_cluster_size, f.top_payer_share, f.buyer_sellers,
       f.burst_per_min, f.calls_per_minute, f.dispersion, f.op_share,
       -- what a wash verdict rests on: the pair's own evidence, or for a wash wallet's other pairs its strongest
       CASE WHEN coalesce(f.label, CASE WHEN w.wash_wallet THEN 'suspected_wash' END) = 'suspected_wash'
            THEN coalesce(e.evidence, be.evidence) END AS evidence
  FROM wc_pairs p
  LEFT JOIN wc_pair_final f USING (pk)
  LEFT JOIN (SELECT bk, buyer_tx, wash_tx_share, wash_wallet FROM wc_wash_wallets WHERE wash_wallet) w ON w.bk = p.bk
  LEFT JOIN wc_pair_evidence e USING (pk)
  LEFT JOIN wc_buyer_evidence be ON be.bk = p.bk`,
      false,
    ),
  ];
}
