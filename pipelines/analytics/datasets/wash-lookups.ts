/**
 * The wash check's own table (POST /api/v1/wash/check; paid-only, never downloadable): a buyer is
 * answered from its `buyers` row, a seller that never paid from its row here.
 */
import type { DatasetStep } from '../../runner.ts';
import { SELLER_FLAGS_SQL } from '../../../classifier/seller-flags.ts';
import { evidenceJsonSql, labelNameSql, tableStep } from './sql.ts';

/**
 * wash-check-sellers: one row per seller address (every payee of a labelled pair), what the paid
 * wash check answers an address with that sold and never paid (docs/wash-methodology.md §7):
 *   payments           its payments as seller, all time (pair_labels' counts)
 *   label              the 30-day-volume-weighted majority of the labels of its pairs with other
 *                      wallets (ties: the later label name); NULL when none had a payment in 30 days
 *   confidence         that label's volume-weighted pair confidence x (0.5 + 0.5 x its volume share)
 *   wash_share         the share of that 30-day volume on suspected_wash pairs
 *   uniform_amount, coordinated_start  the day state's cohort summary of its busiest chain (30-day
 *                      volume, ties: the later chain name), 0 without a cohort row
 *   vanity_strict, vanity_broad  its cohort holds a strict / broad vanity cluster
 *   flags              [{chain, flags}]: the classifier's seller flags per chain (the day state's)
 *   evidence           when its label is suspected_wash, the evidence of its biggest 30-day wash pair
 *                      ([{kind, via, addresses, share, text}], classifier/evidence.ts); else []
 * Volumes are integer micro-USDC and pair confidences (4 decimals) are summed as integers (a
 * pair's micro-USDC times 10^4 stays within BIGINT below 900M USDC; the sums are HUGEINT), so the
 * same labels give the same bytes however the run's threads add. Written whole every run: a
 * seller's 30-day volumes move with `now` (thousands of rows at real scale).
 */
export const washCheckSellersStep: DatasetStep = tableStep(
  'wash-check-sellers',
  // pair keys throughout (rollups' pair_label_codes and pair_volume_30d): at 10M payments the
  // labels' 1.9M pairs are not hashed or joined again, only the 30-day pairs (a third of them)
  () => `WITH recent AS (
      SELECT c.sak, c.chain, c.label_code, c.self_pay, round(c.confidence * 1e4)::BIGINT AS confidence_e4, v.micro_30d AS micro,
             c.evidence, v.pk
        FROM pair_volume_30d v JOIN pair_label_codes c USING (pk)
    ),
    -- a wash seller's evidence: that of its biggest suspected_wash pair over 30 days (ties: the smaller pair key)
    wash_evidence AS (
      SELECT sak, arg_max(evidence, (micro, -pk::HUGEINT)) AS evidence
        FROM recent WHERE NOT self_pay AND ${labelNameSql('label_code')} = 'suspected_wash' AND evidence IS NOT NULL GROUP BY sak
    ),
    votes AS (
      SELECT sak, ${labelNameSql('label_code')} AS label, sum(micro) AS v, sum(micro * confidence_e4) AS cw
        FROM recent WHERE NOT self_pay GROUP BY ALL
    ),
    tally AS (
      SELECT sak,
             first(label ORDER BY v DESC, label DESC) FILTER (WHERE v > 0) AS label,
             first(cw::DOUBLE / 1e4 / v::DOUBLE ORDER BY v DESC, label DESC) FILTER (WHERE v > 0) AS weighted,
             max(v) AS win, sum(v) AS total,
             coalesce(sum(v) FILTER (WHERE label = 'suspected_wash'), 0) AS wash
        FROM votes GROUP BY ALL
    ),
    chains AS (SELECT sak, chain, sum(tx_count)::BIGINT AS payments FROM pair_label_codes GROUP BY ALL),
    chain_volume AS (SELECT sak, chain, sum(micro) AS m FROM recent GROUP BY ALL),
    per_seller AS (
      SELECT c.sak, sum(c.payments)::BIGINT AS payments,
             -- the busiest chain by 30-day volume (ties: the later chain name)
             first(c.chain ORDER BY coalesce(m.m, 0) DESC, c.chain DESC) AS chain
        FROM chains c LEFT JOIN chain_volume m USING (sak, chain)
       GROUP BY c.sak
    ),
    names AS (SELECT DISTINCT seller_address, hash(seller_address) AS sak FROM pair_labels),
    state AS (
      SELECT seller_address,
             list({'chain': chain, 'flags': ${SELLER_FLAGS_SQL}} ORDER BY chain) AS flags,
             bool_or(coalesce(len(list_filter(vanity_clusters, c -> c.tier = 'strict')) > 0, false)) AS vanity_strict,
             bool_or(coalesce(len(list_filter(vanity_clusters, c -> c.tier = 'broad')) > 0, false)) AS vanity_broad
        FROM seller_state GROUP BY ALL
    )
    SELECT n.seller_address, p.payments,
           CASE WHEN t.total > 0 THEN t.label END AS label,
           CASE WHEN t.total > 0 THEN round(t.weighted * (0.5 + 0.5 * (t.win::DOUBLE / t.total::DOUBLE)), 4) ELSE 0 END AS confidence,
           CASE WHEN t.total > 0 THEN round(t.wash::DOUBLE / t.total::DOUBLE, 4) ELSE 0 END AS wash_share,
           round(coalesce(s.uniform_amount_pct, 0), 4)::DOUBLE AS uniform_amount,
           round(coalesce(s.coordinated_start_pct, 0), 4)::DOUBLE AS coordinated_start,
           coalesce(st.vanity_strict, false) AS vanity_strict,
           coalesce(st.vanity_broad, false) AS vanity_broad,
           coalesce(st.flags, []) AS flags,
           CASE WHEN t.total > 0 AND t.label = 'suspected_wash' THEN ${evidenceJsonSql('e.evidence')} ELSE '[]'::JSON END AS evidence
      FROM per_seller p
      JOIN names n USING (sak)
      LEFT JOIN tally t USING (sak)
      LEFT JOIN wash_evidence e USING (sak)
      LEFT JOIN seller_state s ON s.seller_address = n.seller_address AND s.chain = p.chain
      LEFT JOIN state st ON st.seller_address = n.seller_address
     ORDER BY n.seller_address`,
);

export const washLookupSteps: DatasetStep[] = [washCheckSellersStep];
