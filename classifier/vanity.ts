/**
 * Vanity clusters inside one seller's payer cohort (docs/wash-methodology.md §3.5, §11.5). Keys: strict = 4 prefix
 * + 3 suffix characters (about 2.7e8 buckets on EVM, never accidental at cohort sizes), broad =
 * 2 + 3 (about 1e6 buckets: safe up to ~30k payers with 4 members, so bigger cohorts need 5).
 * Keys are taken after `0x` on EVM (addresses stored lower-case); a base58 (Solana) address has
 * no `0x`, so its prefix is 2 characters longer, which only makes a chance cluster rarer.
 * The member paying >= 5x the cluster's median is the operator's main wallet (x402watch).
 */
import { step, type SqlStep } from './plan.ts';
import { THRESHOLDS as T } from '../catalog/wash-rules.ts';

export function vanitySteps(): SqlStep[] {
  return [
    // One pass over the pairs: a strict key (4 + 3) implies the broad key (2 + 3), so every
    // cluster member is in a broad-key group of at least the smaller minimum size.
    step(
      'wc_vanity_candidates',
      `WITH g AS (
  SELECT sak, chain, vkey_broad FROM wc_pair_ctx WHERE NOT self_pay
   GROUP BY ALL HAVING count(*) >= ${Math.min(T.vanityStrictMinSize, T.vanityBroadMinSize)}
)
SELECT p.pk, p.bk, p.sak, p.chain, p.tx_count, p.vkey_strict, p.vkey_broad
  FROM wc_pair_ctx p JOIN g USING (sak, chain, vkey_broad)
 WHERE NOT p.self_pay`,
    ),
    step(
      'wc_vanity_clusters',
      `SELECT sak, chain, 'strict' AS tier, vkey_strict AS key, count(*)::INTEGER AS size, median(tx_count) AS median_tx
  FROM wc_vanity_candidates GROUP BY ALL HAVING count(*) >= ${T.vanityStrictMinSize}
UNION ALL
SELECT c.sak, c.chain, 'broad' AS tier, c.vkey_broad AS key, count(*)::INTEGER AS size, median(c.tx_count) AS median_tx
  FROM wc_vanity_candidates c JOIN wc_seller_keys k USING (sak, chain)
 GROUP BY c.sak, c.chain, c.vkey_broad, k.payer_count
HAVING count(*) >= CASE WHEN k.payer_count > ${T.vanityBroadLargeCohort} THEN ${T.vanityBroadMinSize + 1} ELSE ${T.vanityBroadMinSize} END
UNION ALL
-- one long end (prefix or suffix, ${T.vanityLongChars} or ${T.vanityLongChars - 1} characters): kept when a cluster
-- that size is not expected by chance among the seller's payers: C(n, k) / B^(k - 1) < ${T.vanityChanceMax},
-- B = 16^chars buckets (a shorter end needs a bigger cluster, and more of them among many payers)
-- (counted first, the median of a cluster's payments only for the clusters kept: most keys are one wallet's)
SELECT k.sak, k.chain, k.tier, k.key, any_value(k.size) AS size, median(m.tx_count) AS median_tx FROM (
  SELECT c.* FROM (
    SELECT sak, chain, 'prefix' AS tier, ${T.vanityLongChars} AS chars, vkey_prefix AS key, count(*)::INTEGER AS size
      FROM wc_pair_ctx WHERE NOT self_pay GROUP BY sak, chain, vkey_prefix HAVING count(*) >= ${T.vanityStrictMinSize}
    UNION ALL
    SELECT sak, chain, 'suffix', ${T.vanityLongChars}, vkey_suffix, count(*)::INTEGER
      FROM wc_pair_ctx WHERE NOT self_pay GROUP BY sak, chain, vkey_suffix HAVING count(*) >= ${T.vanityStrictMinSize}
    UNION ALL
    SELECT sak, chain, 'prefix5', ${T.vanityLongChars - 1}, vkey_prefix5, count(*)::INTEGER
      FROM wc_pair_ctx WHERE NOT self_pay GROUP BY sak, chain, vkey_prefix5 HAVING count(*) >= ${T.vanityStrictMinSize}
    UNION ALL
    SELECT sak, chain, 'suffix5', ${T.vanityLongChars - 1}, vkey_suffix5, count(*)::INTEGER
      FROM wc_pair_ctx WHERE NOT self_pay GROUP BY sak, chain, vkey_suffix5 HAVING count(*) >= ${T.vanityStrictMinSize}
  ) c JOIN wc_seller_keys sk USING (sak, chain)
   WHERE lgamma(sk.payer_count + 1) - lgamma(c.size + 1) - lgamma(greatest(sk.payer_count - c.size, 0) + 1)
         - (c.size - 1) * c.chars * ln(16) < ln(${T.vanityChanceMax})
) k JOIN wc_pair_ctx m ON m.sak = k.sak AND m.chain = k.chain
 WHERE NOT m.self_pay
   AND k.key = CASE k.tier WHEN 'prefix' THEN m.vkey_prefix WHEN 'suffix' THEN m.vkey_suffix
                           WHEN 'prefix5' THEN m.vkey_prefix5 ELSE m.vkey_suffix5 END
 GROUP BY k.sak, k.chain, k.tier, k.key`,
    ),
    // every (pair, cluster) membership: the evidence layer reads each cluster as a group (evidence.ts)
    step(
      'wc_vanity_members',
      `SELECT m.pk, m.bk, m.sak, m.chain, m.tx_count, c.tier, c.key, c.size, c.median_tx
    FROM wc_vanity_candidates m JOIN wc_vanity_clusters c
      ON c.sak = m.sak AND c.chain = m.chain AND c.tier = 'strict' AND c.key = m.vkey_strict
  UNION ALL
  SELECT m.pk, m.bk, m.sak, m.chain, m.tx_count, c.tier, c.key, c.size, c.median_tx
    FROM wc_vanity_candidates m JOIN wc_vanity_clusters c
      ON c.sak = m.sak AND c.chain = m.chain AND c.tier = 'broad' AND c.key = m.vkey_broad
  UNION ALL
  SELECT m.pk, m.bk, m.sak, m.chain, m.tx_count, c.tier, c.key, c.size, c.median_tx
    FROM wc_pair_ctx m JOIN wc_vanity_clusters c
      ON c.sak = m.sak AND c.chain = m.chain
     AND ((c.tier = 'prefix' AND c.key = m.vkey_prefix) OR (c.tier = 'suffix' AND c.key = m.vkey_suffix)
          OR (c.tier = 'prefix5' AND c.key = m.vkey_prefix5) OR (c.tier = 'suffix5' AND c.key = m.vkey_suffix5))
   WHERE NOT m.self_pay`,
    ),
    step(
      'wc_pair_vanity',
      `SELECT pk, any_value(bk) AS bk,
       -- a long end is as unlikely by chance as the strict key: it counts as strict
       max(size) FILTER (WHERE tier IN ('strict', 'prefix', 'suffix', 'prefix5', 'suffix5')) AS vanity_strict_size,
       max(size) FILTER (WHERE tier = 'broad') AS vanity_broad_size,
       max(size) AS vanity_cluster_size,
       any_value(key) FILTER (WHERE tier IN ('strict', 'prefix', 'suffix', 'prefix5', 'suffix5')) AS vanity_strict_key,
       any_value(key) FILTER (WHERE tier = 'broad') AS vanity_broad_key,
       bool_or(tx_count >= ${T.vanityOperatorMultiple} * median_tx) AS vanity_operator
  FROM wc_vanity_members GROUP BY pk`,
    ),
  ];
}
