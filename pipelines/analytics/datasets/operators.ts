/**
 * operators (free table, CC0): one row per operator the wash classifier found (classifier/operators.ts,
 * docs/wash-methodology.md §3.4): an owner behind several sellers (sellers sharing a funder, a
 * relay or the address they sweep their takings to, within fundingMaxHops), or behind one seller
 * with an operator cohort or a funding burst. A seller that runs alone with neither is not listed.
 * Read from the day state's seller rows (seller_state) and the pair labels:
 *   operator_id        'op_' and 16 hex characters of the SHA-256 of its smallest seller address (stable
 *                      while that seller stays in it)
 *   sellers, chains    its seller addresses and the chains they take payments on, sorted (JSON arrays,
 *                      as every nested column of the snapshot; the downloads type them)
 *   service_ids        the indexed services of those sellers (service ids), sorted (a JSON array)
 *   buyer_count        distinct paying wallets of its sellers (the sellers themselves apart)
 *   volume             all-time USDC its sellers took (the classifier's window)
 *   wash_volume_pct    share of that volume on suspected_wash pairs, 0-100
 *   operator_wallets   wallets funded from its keys that pay it most and kept paying (section 5 rule 4a)
 *   burst_wallets      wallets of its largest funding burst, 0 without one
 *   evidence           (a JSON array) why it is listed: shared_funding (several sellers joined by funding keys),
 *                      operator_cohort (>= operatorMinWallets operator wallets), funding_burst
 * Ordered by volume desc, then operator_id.
 */
import type { DatasetStep } from '../../runner.ts';
import { fractionToPctSql, moneySql, tableStep, WASH_LABEL } from './sql.ts';

/** The operators' rows over seller_state, pair_labels and service_catalog (also read by tests). */
export const OPERATORS_SQL = `WITH s AS (
  SELECT seller_address, chain, operator_id, operator_sellers, operator_wallets, operator_wash,
         coalesce(list_max(list_transform(funding_bursts, b -> b.wallets)), 0) AS burst_wallets
    FROM seller_state
), ops AS (
  SELECT operator_id, max(operator_wallets) AS operator_wallets, bool_or(operator_wash) AS operator_wash,
         max(burst_wallets) AS burst_wallets, count(DISTINCT seller_address) AS n_sellers
    FROM s GROUP BY operator_id
  HAVING count(DISTINCT seller_address) > 1 OR bool_or(operator_wash) OR max(burst_wallets) > 0
), money AS (
  SELECT s.operator_id,
         count(DISTINCT p.buyer) FILTER (WHERE p.buyer <> p.seller_address)::INTEGER AS buyer_count,
         coalesce(sum(round(p.volume * 1e6)::BIGINT), 0)::BIGINT AS micro,
         coalesce(sum(round(p.volume * 1e6)::BIGINT) FILTER (WHERE p.label = '${WASH_LABEL}'), 0)::BIGINT AS wash_micro
    FROM pair_labels p JOIN s USING (seller_address, chain)
   WHERE s.operator_id IN (SELECT operator_id FROM ops)
   GROUP BY s.operator_id
), services AS (
  SELECT s.operator_id, list_sort(list(DISTINCT c.id)) AS service_ids
    FROM service_catalog c JOIN s USING (seller_address, chain)
   WHERE s.operator_id IN (SELECT operator_id FROM ops)
   GROUP BY s.operator_id
)
SELECT 'op_' || left(sha256(min(s.seller_address)), 16) AS operator_id,
       to_json(list_sort(list(DISTINCT s.seller_address))) AS sellers,
       to_json(list_sort(list(DISTINCT s.chain))) AS chains,
       to_json(coalesce(any_value(sv.service_ids), []::INTEGER[])) AS service_ids,
       coalesce(any_value(m.buyer_count), 0)::INTEGER AS buyer_count,
       ${moneySql('coalesce(any_value(m.micro), 0)')} AS volume,
       ${fractionToPctSql('coalesce(any_value(m.wash_micro) / nullif(any_value(m.micro), 0), 0)')} AS wash_volume_pct,
       any_value(o.operator_wallets)::INTEGER AS operator_wallets,
       any_value(o.burst_wallets)::INTEGER AS burst_wallets,
       to_json(list_filter([CASE WHEN any_value(o.n_sellers) > 1 THEN 'shared_funding' END,
                            CASE WHEN any_value(o.operator_wash) THEN 'operator_cohort' END,
                            CASE WHEN any_value(o.burst_wallets) > 0 THEN 'funding_burst' END], x -> x IS NOT NULL)) AS evidence
  FROM s JOIN ops o USING (operator_id)
  LEFT JOIN money m USING (operator_id)
  LEFT JOIN services sv USING (operator_id)
 GROUP BY s.operator_id
 ORDER BY volume DESC, operator_id`;

export const operatorsStep: DatasetStep = tableStep('operators', () => OPERATORS_SQL);
