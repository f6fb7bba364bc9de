/**
 * Seller cohorts and seller flags (docs/wash-methodology.md §4; first layer, §11.6). Seller signals stay on sellers and
 * buyer signals on buyers; the two meet only per (buyer, seller) pair (x402watch's v1 -> v2
 * lesson). A seller's cohort is its payers, without itself, crawlers (they say nothing about one
 * seller) and periodic pollers (analytics, not farming). Its core is the cohort members for whom
 * it is the main seller and who paid it repeatedly.
 */
import { step, type SqlStep } from './plan.ts';
import { THRESHOLDS as T } from '../catalog/wash-rules.ts';

/** Pair features joined with the buyer's and both parties' funding (narrow: keys and numbers). */
export function pairContextSteps(): SqlStep[] {
  return [
    step(
      'wc_pair_ctx',
      `SELECT p.pk, p.bk, p.sak, p.chain, p.tx_count, p.volume, p.amount_min, p.amount_max, p.first_time, p.last_time,
       (epoch_ms(p.last_time) - epoch_ms(p.first_time)) / 86400000.0 AS span_days,
       coalesce(t.periodic, false) AS periodic,
       coalesce(t.burst_per_min, 0) AS burst_per_min,
       coalesce(t.calls_per_minute, 0) AS calls_per_minute,
       t.dispersion,
       p.tx_count / b.n_tx AS pair_share,
       b.n_tx AS buyer_tx,
       b.n_sellers AS buyer_sellers,
       b.first_time AS buyer_first_time,
       b.crawler, b.diversified, b.verifier_like, b.tester,
       -- a fleet member's parallel calls may read as a tester's burst; its fleet says what it is
       b.agent_like OR coalesce(fl.bk IS NOT NULL AND b.n_sellers >= ${T.fleetAgentMinSellers} AND b.n_tx >= ${T.fleetAgentMinTx}
         AND b.span_days >= ${T.agentMinSpanDays} AND b.periodic_tx < 0.5 * b.n_tx, false) AS agent_like,
       b.vkey_strict, b.vkey_broad, b.vkey_prefix, b.vkey_suffix, b.vkey_prefix5, b.vkey_suffix5,
       p.bk = p.sak AS self_pay,
       coalesce(list_contains(fb.links, p.sak), false) AS seller_funded,
       coalesce(fb.r1 <> p.sak AND fb.r1 = fs.r1, false) AS shared_funder,
       p.bk <> p.sak AND b.brand_key = k.brand_key AS seller_branded,
       fb.r1, coalesce(fb.roots, []) AS roots, fb.fund_time, fb.fund_amount,
       hash(fb.first_funder) AS funder_key,
       -- the seller's operator (itself when it runs alone), the buyer's share of payments to it,
       -- and whether the buyer was funded from the operator's keys
       coalesce(so.op, p.sak) AS op,
       coalesce(po.op_tx, p.tx_count) / b.n_tx AS op_share,
       coalesce(list_has_any(fb.roots, so.op_keys), false) AS operator_funded,
       p.bk <> p.sak AND NOT b.crawler AND NOT b.tester AND NOT coalesce(t.periodic, false) AS in_cohort,
       p.bk <> p.sak AND NOT b.crawler AND NOT b.tester AND NOT coalesce(t.periodic, false)
         AND p.tx_count >= ${T.coreMinPairTx} AND p.tx_count / b.n_tx > ${T.coreMinPairShare} AS core
  FROM wc_pairs p
  JOIN wc_buyers b USING (bk)
  LEFT JOIN wc_pair_time t USING (pk)
  LEFT JOIN wc_seller_keys k USING (sak, chain)
  LEFT JOIN wc_funding fb ON fb.fk = p.bk
  LEFT JOIN wc_funding fs ON fs.fk = p.sak
  LEFT JOIN wc_fleet_members fl ON fl.bk = p.bk
  LEFT JOIN wc_seller_ops so ON so.sak = p.sak
  LEFT JOIN wc_pair_ops po ON po.bk = p.bk AND po.op = so.op`,
    ),
  ];
}

export function sellerSteps(): SqlStep[] {
  return [
    // coordinated_start_pct: the largest share of the cohort whose first payment to the seller falls
    // in one hour; two alignments 30 minutes apart, so any 30-minute burst fits one bucket whole.
    step(
      'wc_seller_starts',
      `WITH b AS (
  SELECT sak, chain, count(*) AS n FROM wc_pair_ctx WHERE in_cohort GROUP BY sak, chain, epoch_ms(first_time) // 3600000
  UNION ALL
  SELECT sak, chain, count(*) AS n FROM wc_pair_ctx WHERE in_cohort GROUP BY sak, chain, (epoch_ms(first_time) + 1800000) // 3600000
)
SELECT sak, chain, max(n) AS max_start_bucket FROM b GROUP BY ALL`,
    ),
    // uniform_amount_pct: the largest share of the cohort with one amount signature (min, max).
    step(
      'wc_seller_amounts',
      `SELECT sak, chain, max(n) AS max_amount_group FROM (
  SELECT sak, chain, round(amount_min, 6), round(amount_max, 6), count(*) AS n
    FROM wc_pair_ctx WHERE in_cohort GROUP BY ALL
) GROUP BY ALL`,
    ),
    // common_funder_share: the largest share of the core with one funding root (the seller's own
    // funding is its own signal, funded_loop / seller_funded, and so are its operator's keys:
    // operator / operator_test; neither counts here).
    step(
      'wc_seller_funders',
      `SELECT sak, chain, max(n) AS max_funder_group, arg_max(root, (n, root)) AS top_root FROM (
  SELECT sak, chain, root, count(DISTINCT bk) AS n FROM (
    SELECT sak, chain, bk, unnest(roots) AS root FROM wc_pair_ctx WHERE core
  ) m LEFT JOIN wc_seller_ops o USING (sak)
   WHERE root IS NOT NULL AND root <> sak AND NOT coalesce(list_contains(o.op_keys, root), false) GROUP BY ALL
) GROUP BY ALL`,
    ),
    // Common-funder cohorts (docs/wash-methodology.md §5 rule 8, §11.7): >= 5 core wallets with one non-exchange root other than
    // the seller, funded within 24 h, with equal or whole-number amounts or a coordinated start.
    // Core (majority seller), not the 80% share of the starting rules (docs/wash-methodology.md §11.7): camouflage sprinkles push a sybil below 80%.
    step(
      'wc_funder_groups',
      `WITH m AS (
  SELECT sak, chain, bk, unnest(roots) AS root, fund_time, fund_amount, first_time
    FROM wc_pair_ctx WHERE core
), g AS (
  SELECT * FROM m WHERE root IS NOT NULL AND root <> sak
), starts AS (
  SELECT sak, chain, root, max(n) AS max_start FROM (
    SELECT sak, chain, root, count(DISTINCT bk) AS n FROM g GROUP BY sak, chain, root, epoch_ms(first_time) // 3600000
    UNION ALL
    SELECT sak, chain, root, count(DISTINCT bk) AS n FROM g GROUP BY sak, chain, root, (epoch_ms(first_time) + 1800000) // 3600000
  ) GROUP BY ALL
), paid AS (
  -- what the root's paying wallets pay, and how much of it this seller gets
  SELECT u.sak, u.chain, u.root, sum(b.n_tx) AS tx, coalesce(sum(c.tx_count), 0) AS to_seller
    FROM (SELECT DISTINCT g.sak, g.chain, g.root, f.fk AS bk
            FROM (SELECT DISTINCT sak, chain, root FROM g) g
            JOIN (SELECT fk, unnest(roots) AS root FROM wc_funding) f ON f.root = g.root) u
    JOIN wc_buyers b ON b.bk = u.bk
    LEFT JOIN wc_pair_ctx c ON c.bk = u.bk AND c.sak = u.sak AND c.chain = u.chain
   GROUP BY ALL
), dedicated AS (
  -- the root's paying wallets (anywhere below it) and how many have this seller as their main one
  SELECT root, top_sak AS sak, top_chain AS chain, count(*) AS n, any_value(total) AS total FROM (
    SELECT u.root, u.top_sak, u.top_chain, count(*) OVER (PARTITION BY u.root) AS total
      FROM (SELECT b.top_sak, b.top_chain, unnest(f.roots) AS root
              FROM wc_buyers b JOIN wc_funding f ON f.fk = b.bk WHERE NOT b.tester) u
     WHERE u.root IN (SELECT root FROM g)
  ) GROUP BY ALL
)
SELECT g.sak, g.chain, g.root, count(DISTINCT g.bk)::INTEGER AS wallets
  FROM g JOIN starts USING (sak, chain, root) LEFT JOIN dedicated d USING (sak, chain, root) LEFT JOIN paid pd USING (sak, chain, root)
  JOIN (SELECT sak, chain, count(*) AS core_size FROM wc_pair_ctx WHERE core GROUP BY ALL) cs USING (sak, chain)
 GROUP BY ALL
HAVING count(DISTINCT g.bk) >= ${T.commonFunderMinWallets}
   AND ((epoch_ms(max(g.fund_time)) - epoch_ms(min(g.fund_time)) <= ${T.commonFunderWindowHours} * 3600000
         -- an organisation funding an event's attendees at once: they spread over the event's services
         AND coalesce(any_value(pd.to_seller) >= ${T.commonFunderMinDedication} * any_value(pd.tx), false)
         -- a small part of a popular seller's customers (staff paid on one day) is not its volume
         AND count(DISTINCT g.bk) >= ${T.commonFunderMinCoreShare} * any_value(cs.core_size)
         AND (count(DISTINCT g.fund_amount) = 1 OR bool_and(g.fund_amount = round(g.fund_amount))
              OR max(starts.max_start) >= ${T.coordinatedStartPct} * count(DISTINCT g.bk)))
        -- or a dedicated root: almost every wallet it funded pays this seller most, however slowly
        -- they were funded and started (a sybil operator spreading its wallets over weeks)
        OR coalesce(any_value(d.n) >= ${T.commonFunderDedication} * any_value(d.total), false))`,
    ),
    step(
      'wc_seller_base',
      `SELECT c.sak, c.chain,
       count(*) FILTER (WHERE in_cohort)::INTEGER AS cohort_size,
       count(*) FILTER (WHERE core)::INTEGER AS core_size,
       count(*) FILTER (WHERE NOT self_pay)::INTEGER AS payers,
       sum(tx_count)::BIGINT AS seller_tx,
       -- exact sums (as wc_pairs' volumes): a seller whose top payer has exactly half of its volume
       -- must be judged the same way every run
       sum(volume::DECIMAL(38, 12))::DOUBLE AS seller_volume,
       coalesce(sum(tx_count) FILTER (WHERE self_pay), 0)::BIGINT AS self_pay_tx,
       count(*) FILTER (WHERE seller_funded AND NOT self_pay)::INTEGER AS funded_wallets,
       -- a seller checks its service with its own wallets for a few days; a loop keeps paying
       count(*) FILTER (WHERE seller_funded AND NOT self_pay AND span_days > ${T.selfTestMaxSpanDays})::INTEGER AS funded_sustained,
       coalesce(sum(tx_count) FILTER (WHERE NOT self_pay), 0)::BIGINT AS payer_tx,
       coalesce(sum(volume::DECIMAL(38, 12)) FILTER (WHERE NOT self_pay), 0)::DOUBLE AS payer_volume,
       max(volume) FILTER (WHERE NOT self_pay) AS top_payer_volume,
       arg_max(bk, volume) FILTER (WHERE NOT self_pay) AS top_payer,
       stddev_pop(tx_count) FILTER (WHERE in_cohort) / avg(tx_count) FILTER (WHERE in_cohort) AS tx_count_cv,
       1.4826 * mad(ln(tx_count)) FILTER (WHERE core) AS log_count_spread,
       (quantile_cont(epoch(first_time), 0.9) FILTER (WHERE core)
         - quantile_cont(epoch(first_time), 0.1) FILTER (WHERE core)) / 86400 AS start_spread_days,
       quantile_cont(epoch(first_time), 0.1) FILTER (WHERE core) AS core_start_p10,
       quantile_cont(epoch(first_time), 0.9) FILTER (WHERE core) AS core_start_p90,
       coalesce(min(amount_min) FILTER (WHERE in_cohort) < max(amount_max) FILTER (WHERE in_cohort) - 1e-9, false) AS multi_price,
       -- launch: payers in the first 48 h and in the first week of the seller's first listing
       count(*) FILTER (WHERE NOT self_pay AND first_time <= m.first_seen + INTERVAL 48 HOUR) AS launch_payers,
       coalesce(sum(tx_count) FILTER (WHERE NOT self_pay AND first_time <= m.first_seen + INTERVAL 48 HOUR), 0) AS launch_tx,
       coalesce(sum(tx_count) FILTER (WHERE NOT self_pay AND first_time <= m.first_seen + INTERVAL 7 DAY), 0) AS week_tx
  FROM wc_pair_ctx c LEFT JOIN wc_seller_meta m USING (sak, chain)
 GROUP BY ALL`,
    ),
    // Concentration sellers only (few): how many other payers came before the top payer. A wallet
    // that manufactures a seller's volume starts with the seller; a heavy customer arrives at a
    // service that already had customers.
    step(
      'wc_seller_top_payer',
      `SELECT s.sak, s.chain, count(c.bk)::INTEGER AS top_payer_earlier_payers
  FROM wc_seller_base s
  JOIN wc_pair_ctx t ON t.sak = s.sak AND t.chain = s.chain AND t.bk = s.top_payer
  LEFT JOIN wc_pair_ctx c ON c.sak = s.sak AND c.chain = s.chain AND NOT c.self_pay AND c.bk <> s.top_payer AND c.first_time < t.first_time
 WHERE s.top_payer_volume >= ${T.concentrationShare} * s.payer_volume AND s.payer_tx >= ${T.concentrationMinTx}
 GROUP BY ALL`,
    ),
    step(
      'wc_sellers',
      `WITH s AS (
  SELECT b.*,
         coalesce(st.max_start_bucket / nullif(b.cohort_size, 0), 0) AS coordinated_start_pct,
         coalesce(am.max_amount_group / nullif(b.cohort_size, 0), 0) AS uniform_amount_pct,
         coalesce(fu.max_funder_group / nullif(b.core_size, 0), 0) AS common_funder_share,
         fu.top_root AS cohort_root,
         coalesce(b.top_payer_volume / nullif(b.payer_volume, 0), 0) AS top_payer_share,
         coalesce(vc.has_vanity, false) AS vanity_cohort,
         coalesce(fg.has_group, false) AS common_funder_cohort,
         coalesce(cy.balanced, false) AS in_cycle,
         cy.cycle_id AS seller_cycle_id,
         tp.top_payer_earlier_payers,
         coalesce(so.op, b.sak) AS operator_id,
         coalesce(so.op_sellers, 1) AS operator_sellers,
         coalesce(op.buyers, 0) AS operator_buyers,
         coalesce(op.funded_wallets, 0) AS operator_wallets
    FROM wc_seller_base b
    LEFT JOIN wc_seller_top_payer tp USING (sak, chain)
    LEFT JOIN wc_seller_starts st USING (sak, chain)
    LEFT JOIN wc_seller_amounts am USING (sak, chain)
    LEFT JOIN wc_seller_funders fu USING (sak, chain)
    LEFT JOIN (SELECT DISTINCT sak, chain, true AS has_vanity FROM wc_vanity_clusters) vc USING (sak, chain)
    LEFT JOIN (SELECT DISTINCT sak, chain, true AS has_group FROM wc_funder_groups) fg USING (sak, chain)
    LEFT JOIN wc_cycles cy ON cy.ak = b.sak AND cy.chain = b.chain
    LEFT JOIN wc_seller_ops so ON so.sak = b.sak
    LEFT JOIN wc_operators op ON op.op = coalesce(so.op, b.sak)
), f AS (
  SELECT *,
         coordinated_start_pct >= ${T.coordinatedStartPct} AS sig_coordinated_start,
         common_funder_share >= ${T.commonFunderShare} AS sig_common_funder,
         multi_price AND uniform_amount_pct >= ${T.uniformAmountPct} AS sig_uniform_amount,
         coalesce(log_count_spread <= ${T.farmMaxLogCountSpread}, false) AS sig_uniform_tx_count,
         coalesce(start_spread_days <= ${T.farmMaxStartSpreadDays}, false) AS sig_synchronized_start
    FROM s
)
SELECT *,
       funded_sustained >= ${T.fundedLoopMinWallets} AS funded_loop,
       operator_wallets >= ${T.operatorMinWallets} AS operator_wash,
       core_size >= ${T.farmMinCore} AND core_size >= ${T.farmMinCoreShare} * cohort_size
         AND sig_coordinated_start::INTEGER + sig_synchronized_start::INTEGER + sig_common_funder::INTEGER
             + sig_uniform_amount::INTEGER + sig_uniform_tx_count::INTEGER >= ${T.farmMinSignals} AS farm,
       top_payer_share >= ${T.concentrationShare} AND payer_tx >= ${T.concentrationMinTx}
         AND payer_volume >= ${T.concentrationMinVolume} AS concentration,
       launch_payers BETWEEN 1 AND ${T.launchMaxBuyers} AND launch_tx >= ${T.launchMinTx} AND launch_tx >= ${T.launchShare} * week_tx AS launch
  FROM f`,
    ),
  ];
}

/** The seller flags as names (seller_cohorts.flags and a seller's wash check). */
export const SELLER_FLAGS_SQL = `list_filter([
  CASE WHEN self_pay_tx > ${T.selfPayShare} * seller_tx THEN 'self_pay' END,
  CASE WHEN funded_wallets > ${T.fundedPayerShare} * payers AND funded_wallets > 0 THEN 'seller_funded' END,
  CASE WHEN funded_loop THEN 'funded_loop' END,
  CASE WHEN farm THEN 'farm' END,
  CASE WHEN in_cycle THEN 'cycle' END,
  CASE WHEN concentration THEN 'concentration' END,
  CASE WHEN vanity_cohort THEN 'vanity_cohort' END,
  CASE WHEN common_funder_cohort THEN 'common_funder' END,
  CASE WHEN launch THEN 'launch' END
], x -> x IS NOT NULL)`;
