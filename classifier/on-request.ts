/**
 * The classifier's step list over a set of buyers' payments and the day state, instead of the
 * warehouse's raw tables: the hourly labels (classifier/buyer-set.ts, pipelines/analytics/labels.ts)
 * label the day's buyers with it. The same SQL as the batch run, step for step, except where a
 * step's answer depends on payers outside the set. (It began as the paid wash check's computation
 * for one address; the check now reads the labels it produces, docs/wash-methodology.md §7.)
 *
 * What runs as in the batch (the buyers' own evidence, from their payments and funding edges):
 *   wc_tx .. wc_pair_time     their pairs, timing, bursts, burst density, periodicity
 *   wc_buyer_*                their buyer features over all their sellers (crawler, verifier, agent,
 *                             tester; the listed prices their sellers ask come from the state)
 *   wc_first_fund, wc_chains, wc_funding  their funding chains (one walk up, over the scoped edges)
 *                             and their sellers' (`links`, `roots`, `r1`, as in the batch)
 *   wc_transfers, wc_pair_returns  the transfers into them after they paid, from their sellers' reach
 *   wc_pair_ctx               the pair context (cohort membership, core, seller links)
 *   wc_pair_vanity            their membership of their sellers' vanity clusters (every tier)
 *   wc_funder_members .. wc_buyer_labels   the pair rules, the wash-wallet pass and the roll-up
 * What the day state's seller rows stand in for (a seller's cohort spans thousands of payers):
 *   wc_seller_meta, wc_listings          listings, categories and listed prices of their sellers
 *   wc_exchanges, wc_hubs                whether a funder ends a funding chain (flags on the edges;
 *                                        a hub is judged by where all its wallets go)
 *   wc_fleet_members                     whether a first funder runs an agent fleet (a flag on
 *                                        the edges: judged by every wallet it funded)
 *   wc_return_reach                      the wallets each seller's money reaches (round trips),
 *                                        those of them that paid its payers back
 *   wc_vanity_clusters                   the clusters of each seller's cohort (strict, broad, long
 *                                        prefix / suffix: membership is a key match)
 *   wc_funder_groups                     each seller's common-funder groups (a dedicated root is
 *                                        judged by every wallet it funded, payer or not)
 *   wc_sellers                           each seller's cohort summary and flags
 *   wc_cycles                            payment-ring membership (a whole-graph search)
 *
 * The state is SELLER_STATE_SQL (one row per seller and chain) and FUNDING_STOPS_SQL, written by
 * classify() while its `wc_*` tables exist and kept in the warehouse with the day state.
 */
import { cyclesRelationSql } from './cycles.ts';
import { step, type SqlStep } from './plan.ts';
import { featureSteps, labelSteps } from './steps.ts';
import type { WashModelThresholds } from '../catalog/wash-model.ts';

/** The columns the seller state adds to wc_sellers' own (which follow the rules and may change). */
const STATE_EXTRA_COLUMNS = [
  'seller_address',
  'meta_first_seen',
  'meta_category',
  'listings',
  'vanity_clusters',
  'funder_groups',
  'cycle_id',
  'cycle_size',
  'cycle_balanced',
  'cycle_pass_through',
  'listed_prices',
  'return_sources',
  'operator_keys',
  'trail_seeds',
  'funding_bursts',
] as const;

/**
 * One row per (seller, chain) with payments: every column of wc_sellers, the seller's listing
 * metadata and listed prices, its cohort's vanity clusters and common-funder groups, its
 * payment-ring membership and the wallets its money reaches that sent money back to its payers
 * after they paid (round trips: the reach is far bigger than that part). Reads the batch run's
 * `wc_*` tables and x402_services (classify() writes it as `seller_state`).
 */
export const SELLER_STATE_SQL = `SELECT k.seller_address,
       -- a published dataset is the same bytes for the same input: parallel float sums differ in
       -- their last bits from run to run, and a top payer is only used (concentration) when unique
       s.* REPLACE (round(s.seller_volume, 6) AS seller_volume, round(s.payer_volume, 6) AS payer_volume,
                    round(s.top_payer_volume, 6) AS top_payer_volume, round(s.tx_count_cv, 9) AS tx_count_cv,
                    round(s.top_payer_share, 9) AS top_payer_share,
                    CASE WHEN s.top_payer_share > 0.5 THEN s.top_payer END AS top_payer),
       m.first_seen AS meta_first_seen, m.category AS meta_category,
       l.listings, vc.vanity_clusters, fg.funder_groups,
       cy.cycle_id, cy.cycle_size, cy.balanced AS cycle_balanced, cy.pass_through AS cycle_pass_through,
       pr.listed_prices, rr.return_sources, so.op_keys AS operator_keys, ts.trail_seeds, ob.funding_bursts
  FROM wc_sellers s
  JOIN wc_seller_keys k USING (sak, chain)
  LEFT JOIN wc_seller_meta m USING (sak, chain)
  LEFT JOIN (SELECT sak, chain, list(first_seen ORDER BY first_seen) AS listings FROM wc_listings GROUP BY ALL) l USING (sak, chain)
  LEFT JOIN (SELECT sak, chain, list({'tier': tier, 'key': key, 'size': size, 'median_tx': median_tx} ORDER BY tier, key) AS vanity_clusters
               FROM wc_vanity_clusters GROUP BY ALL) vc USING (sak, chain)
  LEFT JOIN (SELECT sak, chain, list({'root': root, 'wallets': wallets} ORDER BY root) AS funder_groups
               FROM wc_funder_groups GROUP BY ALL) fg USING (sak, chain)
  LEFT JOIN wc_cycles cy ON cy.ak = s.sak AND cy.chain = s.chain
  LEFT JOIN wc_seller_ops so ON so.sak = s.sak
  LEFT JOIN (SELECT op, list_sort(list(node)) AS trail_seeds FROM wc_trail_seeds GROUP BY op) ts ON ts.op = s.operator_id
  LEFT JOIN (SELECT op, list({'fkey': fkey, 't_from': t_from, 't_to': t_to, 'med': med, 'wallets': wallets} ORDER BY fkey, t_from) AS funding_bursts
               FROM wc_op_bursts GROUP BY op) ob ON ob.op = s.operator_id
  LEFT JOIN (SELECT hash(seller_address) AS sak, chain, list_sort(list(DISTINCT round(price_amount, 6))) AS listed_prices
               FROM x402_services WHERE price_amount IS NOT NULL GROUP BY ALL) pr ON pr.sak = s.sak AND pr.chain = s.chain
  LEFT JOIN (SELECT p.sak, list_sort(list(DISTINCT r.node)) AS return_sources
               FROM wc_pairs p JOIN wc_return_reach r ON r.sak = p.sak JOIN wc_transfers t ON t.src = r.node AND t.dst = p.bk
              WHERE p.bk <> p.sak AND t.time > p.first_time GROUP BY p.sak) rr ON rr.sak = s.sak`;

/**
 * The funders a check cannot judge from its own wallets: exchange hot wallets (as hash keys, the
 * way wc_funding joins them), funding hubs and agent-fleet treasuries. Small; the funding-edge
 * dataset carries them as three flags.
 */
export const FUNDING_STOPS_SQL = `SELECT k, NULL::VARCHAR AS hub, NULL::VARCHAR AS fleet FROM wc_exchanges
UNION ALL
SELECT NULL::UBIGINT AS k, address AS hub, NULL::VARCHAR AS fleet FROM wc_hubs
UNION ALL
SELECT DISTINCT NULL::UBIGINT AS k, NULL::VARCHAR AS hub, f.first_funder AS fleet
  FROM wc_funding f JOIN wc_fleet_members m ON m.bk = f.fk`;

/**
 * Every wallet an operator's money reached (trails.ts) with what it got and one path back: the
 * day state's `money_trails`, which a set of buyers reads for its wallets.
 */
export const MONEY_TRAILS_SQL = `SELECT r.op, r.node, r.tainted, r.taint, r.depth, r.arrivals, p.path
  FROM wc_trail_reach r LEFT JOIN wc_trail_paths p USING (op, node)`;

/** Every evidence group (evidence.ts) with its keys, figures and the name of its key: the day state's `evidence_groups`. */
export const EVIDENCE_GROUPS_SQL = `SELECT g.*, n.key_address FROM wc_groups g LEFT JOIN wc_group_names n USING (op, kind, key)`;

/** The names of the relations a check gives the steps (each may be a view over Parquet). */
export interface OnRequestInputs {
  now: Date;
  /** Payments (buyer, seller_address, chain, amount, time): all of the address's as buyer; for a seller, all of its payers' too. */
  payments: string;
  /**
   * Funding edges (address, funder, time, amount, funder_exchange, funder_hub, funder_fleet) of the payments'
   * wallets and sellers and of their funders, up the first-funding chain to fundingMaxHops.
   */
  funding: string;
  /** Seller state rows (SELLER_STATE_SQL's columns) of the payments' sellers and of the address itself. */
  sellers: string;
  /** The day state's money trails (MONEY_TRAILS_SQL's columns) into the payments' buyers. */
  trails: string;
  /** The day state's evidence groups (EVIDENCE_GROUPS_SQL's columns) of the payments' sellers' operators. */
  groups: string;
  /** The thresholds the verdict decides with (default the fitted model). */
  model?: WashModelThresholds;
}

/** The step list of one check, in dependency order (run it with runStepsBatch under a prefix of its own). */
export function onRequestSteps(inputs: OnRequestInputs): SqlStep[] {
  const state = inputs.sellers;
  // the listed prices, as x402_services holds them (wc_buyer_extra: does a verifier pay them?)
  const services = `(SELECT seller_address, chain, unnest(listed_prices) AS price_amount FROM ${state})`;
  const ctx = {
    now: inputs.now,
    scope: { kind: 'address' as const, relations: { payments: inputs.payments, funding: inputs.funding, services } },
  };

  const cycles = `SELECT sak AS ak, chain, cycle_id, cycle_size::INTEGER AS cycle_size, cycle_balanced AS balanced,
       cycle_pass_through AS pass_through
  FROM ${state} WHERE cycle_id IS NOT NULL`;
  const replaced: Record<string, (batch: SqlStep) => SqlStep | null> = {
    wc_listings: () => step('wc_listings', `SELECT sak, chain, unnest(listings) AS first_seen FROM ${state}`),
    wc_seller_meta: () =>
      step('wc_seller_meta', `SELECT sak, chain, meta_first_seen AS first_seen, meta_category AS category FROM ${state}`),
    wc_exchanges: () => step('wc_exchanges', `SELECT DISTINCT hash(funder) AS k FROM ${inputs.funding} WHERE funder_exchange`),
    wc_hubs: () => step('wc_hubs', `SELECT DISTINCT funder AS address FROM ${inputs.funding} WHERE funder_hub`),
    // a fleet is judged by every wallet its treasury funded: the edges flag fleet treasuries
    wc_fleet_members: () =>
      step(
        'wc_fleet_members',
        `SELECT DISTINCT fk AS bk FROM wc_funding WHERE first_funder IN (SELECT funder FROM ${inputs.funding} WHERE funder_fleet)`,
      ),
    // every pair that could be in a cluster (the batch's pre-filter needs the whole cohort); the
    // join with the clusters' keys decides membership
    wc_vanity_candidates: () =>
      step('wc_vanity_candidates', `SELECT pk, bk, sak, chain, tx_count, vkey_strict, vkey_broad FROM wc_pair_ctx WHERE NOT self_pay`),
    wc_vanity_clusters: () =>
      step(
        'wc_vanity_clusters',
        `SELECT sak, chain, c.tier AS tier, c.key AS key, c.size AS size, c.median_tx AS median_tx
  FROM (SELECT sak, chain, unnest(vanity_clusters) AS c FROM ${state})`,
      ),
    // a root's dedication counts every wallet it funded, payers of other sellers too: from the state
    wc_funder_groups: () =>
      step(
        'wc_funder_groups',
        `SELECT sak, chain, g.root AS root, g.wallets AS wallets FROM (SELECT sak, chain, unnest(funder_groups) AS g FROM ${state})`,
      ),
    // the reach of a seller's money is a walk of the whole transfer graph: the state keeps the part
    // of it that sent money back to the seller's payers (wc_pair_returns reads no other)
    wc_return_reach: () => step('wc_return_reach', `SELECT DISTINCT sak, unnest(return_sources) AS node FROM ${state}`),
    // operators span sellers and payers far outside the check: from the state
    wc_seller_ops: () =>
      step(
        'wc_seller_ops',
        `SELECT DISTINCT sak, operator_id AS op, operator_sellers AS op_sellers, operator_keys AS op_keys FROM ${state}`,
      ),
    wc_op_bursts: () =>
      step(
        'wc_op_bursts',
        `SELECT DISTINCT operator_id AS op, b.fkey AS fkey, b.t_from AS t_from, b.t_to AS t_to, b.med AS med, b.wallets AS wallets
  FROM (SELECT operator_id, unnest(funding_bursts) AS b FROM ${state})`,
      ),
    wc_sellers: () => step('wc_sellers', `SELECT * EXCLUDE (${STATE_EXTRA_COLUMNS.join(', ')}) FROM ${state}`),
    // money trails and groups are walks and groupings of the whole world: from the state
    wc_trail_seeds: () =>
      step(
        'wc_trail_seeds',
        `SELECT DISTINCT operator_id AS op, unnest(trail_seeds) AS node, 1.0::DOUBLE AS taint, 0 AS depth, NULL::UBIGINT AS pred FROM ${state}`,
      ),
    wc_trail_reach: () =>
      step('wc_trail_reach', `SELECT op, node, tainted, taint, depth, NULL::UBIGINT AS pred, arrivals FROM ${inputs.trails}`),
    wc_trail_paths: () => step('wc_trail_paths', `SELECT op, node, path FROM ${inputs.trails} WHERE path IS NOT NULL`),
    wc_group_defs: () =>
      step('wc_group_defs', `SELECT op, kind, key, sak, chain, fkey, t_from, t_to, med, w_from, w_to FROM ${inputs.groups}`),
    wc_groups_keyed: () => step('wc_groups_keyed', `SELECT * EXCLUDE (key_address) FROM ${inputs.groups} WHERE kind <> 'coordinated'`),
    wc_groups: () => step('wc_groups', `SELECT * EXCLUDE (key_address) FROM ${inputs.groups}`),
    wc_group_names: () => step('wc_group_names', `SELECT op, kind, key, key_address FROM ${inputs.groups} WHERE key_address IS NOT NULL`),
  };
  // the cohort-level intermediates feed only wc_funder_groups and wc_sellers, which come from the state
  const cohortOnly = new Set([
    // the money graph and its walk (the state keeps what they reached), the group figures' inputs
    'wc_money_edges',
    'wc_money_in',
    'wc_trail_stops',
    'wc_trails',
    'wc_trail_path_keys',
    'wc_key_names',
    'wc_op_volume',
    'wc_operators',
    'wc_seller_starts',
    'wc_seller_amounts',
    'wc_seller_funders',
    'wc_seller_base',
    'wc_seller_top_payer',
  ]);

  const steps = [...featureSteps(ctx), ...labelSteps(cyclesRelationSql([]), inputs.model)];
  const out: SqlStep[] = [];
  for (const s of steps) {
    if (s.name === 'wc_cycles') out.push(step('wc_cycles', cycles));
    else if (cohortOnly.has(s.name)) continue;
    else {
      const r = replaced[s.name]?.(s) ?? s;
      // scoped runs are small: every step written down once (a view would be re-run per reader)
      out.push({ ...r, materialize: true });
    }
  }
  return out;
}
