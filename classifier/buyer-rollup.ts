/**
 * From pair labels to one label per wallet (docs/wash-methodology.md §6; x402watch's derive_global, §11.7): the tx-weighted
 * majority over the wallet's pairs, ties broken by mean confidence. Disagreement between pairs
 * lowers the confidence: it is the winning pairs' tx-weighted confidence times
 * (0.5 + 0.5 * their share of the wallet's payments), so a wallet split evenly between two labels
 * falls into the unlabeled band. The wallet's `reason` names the signals of its heaviest pair
 * when that pair carries the winning label.
 */
import { WASH_LABELS } from '../catalog/categories.ts';
import { PAIR_REASONS_SQL, signalMapSql } from './pair-rules.ts';
import { RULE_CONFIDENCE as C, THRESHOLDS as T } from '../catalog/wash-rules.ts';
import { step, type SqlStep } from './plan.ts';

const BASE: ReadonlyArray<readonly [string, string]> = [
  ['n_sellers', 'b.n_sellers'],
  ['top_service_share', 'b.top_share'],
  ['label_share', 'r.winner_share'],
];

export function buyerRollupSteps(): SqlStep[] {
  const perLabel = WASH_LABELS.map(
    (l) => `coalesce(sum(tx_count) FILTER (WHERE label = '${l}'), 0) AS tx_${l},
         coalesce(sum(tx_count * confidence) FILTER (WHERE label = '${l}'), 0) AS cw_${l}`,
  ).join(',\n         ');
  // A label's vote: its payments, then (ties) its tx-weighted confidence, then the label order.
  const vote = (l: string, i: number) => `CASE WHEN tx_${l} > 0 THEN tx_${l} + 0.5 * cw_${l} / tx_${l} + ${i} * 1e-6 ELSE -1 END`;
  const best = `greatest(${WASH_LABELS.map(vote).join(', ')})`;
  const pick = (f: (l: string) => string) => `CASE winner ${WASH_LABELS.map((l) => `WHEN '${l}' THEN ${f(l)}`).join(' ')} END`;
  const shares = `[${WASH_LABELS.map((l) => `{'s': tx_${l} / total, 'l': '${l}'}`).join(', ')}]`;
  const topKey = '(tx_count * 1048576 + (sak % 1048576)::BIGINT)';
  return [
    // Only wallets with a labelled pair are rolled up; the payments of their default pairs are
    // organic (or wash, for a wash wallet) and come from the wallet's totals. Every other wallet
    // is organic with the default confidence.
    step(
      'wc_buyer_rollup',
      `WITH agg AS (
  SELECT bk, sum(tx_count) AS labelled_tx, max(tx_count) AS top_labelled_tx,
         ${perLabel},
         arg_max(rule, ${topKey}) AS top_rule,
         arg_max(label, ${topKey}) AS top_rule_label,
         arg_max(reason_bits, ${topKey}) AS top_bits,
         arg_max(${PAIR_REASONS_SQL}, ${topKey}) AS top_reasons
    FROM wc_pair_final GROUP BY bk
), j AS (
  SELECT a.*, b.n_tx AS total, b.top_tx, b.n_tx - a.labelled_tx AS rest_tx, coalesce(w.wash_wallet, false) AS ww
    FROM agg a JOIN wc_buyers b USING (bk) LEFT JOIN wc_wash_wallets w USING (bk)
), m AS (
  SELECT * REPLACE (
           tx_organic_user + CASE WHEN ww THEN 0 ELSE rest_tx END AS tx_organic_user,
           cw_organic_user + CASE WHEN ww THEN 0 ELSE rest_tx * ${C.organic} END AS cw_organic_user,
           tx_suspected_wash + CASE WHEN ww THEN rest_tx ELSE 0 END AS tx_suspected_wash,
           cw_suspected_wash + CASE WHEN ww THEN rest_tx * ${C.wash_wallet} ELSE 0 END AS cw_suspected_wash),
         -- the heaviest pair: a labelled one, unless a default pair pays more
         CASE WHEN top_labelled_tx >= top_tx THEN top_rule WHEN ww THEN 'wash_wallet' ELSE 'organic' END AS rule,
         CASE WHEN top_labelled_tx >= top_tx THEN top_rule_label WHEN ww THEN 'suspected_wash' ELSE 'organic_user' END AS top_label,
         CASE WHEN top_labelled_tx >= top_tx THEN top_bits ELSE 0 END AS reason_bits,
         CASE WHEN top_labelled_tx >= top_tx THEN top_reasons WHEN ww THEN ['wash_wallet'] ELSE ['default'] END AS reasons
    FROM j
), w AS (
  SELECT *, CASE ${best} ${WASH_LABELS.map((l, i) => `WHEN ${vote(l, i)} THEN '${l}'`).join(' ')} END AS winner FROM m
)
SELECT bk, winner, rule, top_label, reason_bits, reasons,
       ${pick((l) => `tx_${l}`)} / total AS winner_share,
       ${pick((l) => `cw_${l} / tx_${l}`)} AS winner_confidence,
       tx_suspected_wash / total AS wash_tx_share,
       'derived_from_pairs:' || array_to_string(list_transform(list_sort(list_filter(${shares}, e -> e.s > 0), 'DESC'),
           e -> e.l || '(' || CASE WHEN e.s < 0.005 THEN '<1' ELSE round(100 * e.s)::INTEGER::VARCHAR END || '%)'), ',') AS reason_text
  FROM w
UNION ALL
SELECT bk, 'organic_user' AS winner, 'organic' AS rule, 'organic_user' AS top_label, 0 AS reason_bits, ['default'] AS reasons,
       1.0 AS winner_share, ${C.organic} AS winner_confidence, 0.0 AS wash_tx_share,
       'derived_from_pairs:organic_user(100%)' AS reason_text
  FROM wc_buyers ANTI JOIN (SELECT DISTINCT bk FROM wc_pair_rules) USING (bk)`,
    ),
    step(
      'wc_buyer_vanity',
      `SELECT bk,
       bool_or(vanity_strict_size IS NOT NULL) AS vanity_strict,
       bool_or(vanity_broad_size IS NOT NULL) AS vanity_broad,
       max(vanity_cluster_size)::INTEGER AS vanity_cluster_size
  FROM wc_pair_vanity GROUP BY bk`,
    ),
    step(
      'wc_buyer_labels',
      `WITH r AS (
  SELECT *,
         winner_confidence * (0.5 + 0.5 * winner_share) AS confidence,
         CASE WHEN winner = 'organic_user' THEN ['default']
              WHEN top_label = winner THEN reasons
              ELSE ['majority_of_pairs'] END AS reason
    FROM wc_buyer_rollup
)
SELECT r.bk, b.address,
       CASE WHEN r.confidence < ${T.unlabeledBelow} THEN 'unlabeled' ELSE r.winner END AS label,
       round(r.confidence, 4) AS confidence,
       r.reason,
       r.reason_text,
       -- building MAPs is costly per entry (~0.3 us): a labelled wallet gets its concentration,
       -- label share and the few features its label rests on; the default (organic, no evidence)
       -- gets none, its features are columns of this table
       CASE r.winner
         WHEN 'organic_user' THEN ${signalMapSql([])}
         WHEN 'ai_agent' THEN ${signalMapSql([...BASE, ['n_categories', 'b.n_categories'], ['amount_cv', 'b.amount_cv'], ['span_days', 'b.span_days']])}
         WHEN 'verifier' THEN ${signalMapSql([...BASE, ['near_listing_share', 'b.near_listing_share']])}
         WHEN 'developer' THEN ${signalMapSql([...BASE, ['max_burst_per_min', 'b.max_burst_per_min']])}
         WHEN 'analytics_bot' THEN ${signalMapSql([...BASE, ['daily_dispersion', 'b.dispersion'], ['span_days', 'b.span_days']])}
         WHEN 'suspected_wash' THEN ${signalMapSql([...BASE, ['wash_tx_share', 'r.wash_tx_share']])}
         ELSE ${signalMapSql(BASE)}
       END AS signals,
       coalesce(v.vanity_strict, false) AS vanity_strict,
       coalesce(v.vanity_broad, false) AS vanity_broad,
       coalesce(v.vanity_cluster_size, 0)::INTEGER AS vanity_cluster_size,
       b.mean_interval_s,
       b.interval_cv,
       b.n_tx AS tx_count,
       b.volume,
       b.n_sellers,
       b.top_share AS top_service_share,
       b.top_sak,
       b.top_chain,
       f.first_funder,
       b.first_time,
       b.last_time,
       CASE WHEN r.winner = 'suspected_wash' THEN ev.evidence END AS evidence
  FROM r
  JOIN wc_buyers b USING (bk)
  LEFT JOIN wc_buyer_vanity v USING (bk)
  LEFT JOIN wc_funding f ON f.fk = r.bk
  LEFT JOIN wc_buyer_evidence ev ON ev.bk = r.bk`,
    ),
  ];
}
