/**
 * The classifier's step list, in dependency order, split where the cycle search (TypeScript) has
 * to run between the SQL steps. classify() builds its SQL from here.
 */
import { buyerRollupSteps } from './buyer-rollup.ts';
import { buyerSteps, pairSteps, sellerMetaSteps, transactionSteps } from './features.ts';
import { fundingSteps } from './funding.ts';
import { returnSteps } from './returns.ts';
import { PAIR_REASONS_SQL, PAIR_SIGNALS_SQL, pairRuleSteps } from './pair-rules.ts';
import { step, timestampSql, type SqlStep, type StepContext } from './plan.ts';
import { pairContextSteps, SELLER_FLAGS_SQL, sellerSteps } from './seller-flags.ts';
import { vanitySteps } from './vanity.ts';

/** Up to the pair table and the features that need no cycle information. */
export function featureSteps(ctx: StepContext): SqlStep[] {
  return [
    ...transactionSteps(ctx),
    ...pairSteps(ctx),
    ...sellerMetaSteps(),
    ...buyerSteps(ctx),
    ...fundingSteps(ctx),
    ...returnSteps(ctx),
    ...pairContextSteps(),
    ...vanitySteps(),
  ];
}

/** From the cycle members (a relation built by cycles.ts) to buyer labels. */
export function labelSteps(cyclesSql: string): SqlStep[] {
  return [step('wc_cycles', cyclesSql), ...sellerSteps(), ...pairRuleSteps(), ...buyerRollupSteps()];
}

/** Whole-world pairs (buyer, seller_address, chain, volume) for the cycle search of one check. */
export function globalPairsSql(now: Date): string {
  return `SELECT buyer, seller_address, chain, hash(buyer) AS bk, hash(seller_address) AS sak, sum(amount) AS volume FROM x402_transactions
  WHERE time <= ${timestampSql(now)} AND buyer IS NOT NULL AND seller_address IS NOT NULL AND chain IS NOT NULL
  GROUP BY buyer, seller_address, chain`;
}

// ---------------------------------------------------------------- the three published tables

export const PAIR_LABELS_SQL = `SELECT buyer, seller_address, chain, label,
       round(confidence, 4)::DOUBLE AS confidence,
       (${PAIR_REASONS_SQL})::VARCHAR[] AS reasons,
       (${PAIR_SIGNALS_SQL})::MAP(VARCHAR, DOUBLE) AS signals,
       tx_count, volume, tx_count_30d, volume_30d, first_time, last_time
  FROM wc_pair_labels_all`;

export const BUYER_LABELS_SQL = `SELECT address, label, confidence::DOUBLE AS confidence,
       reason::VARCHAR[] AS reason, reason_text,
       signals::MAP(VARCHAR, DOUBLE) AS signals,
       vanity_strict, vanity_broad, vanity_cluster_size::INTEGER AS vanity_cluster_size,
       mean_interval_s::DOUBLE AS mean_interval_s, interval_cv::DOUBLE AS interval_cv,
       tx_count::BIGINT AS tx_count, volume::DOUBLE AS volume, n_sellers::INTEGER AS n_sellers,
       top_service_share::DOUBLE AS top_service_share, first_funder,
       first_time::TIMESTAMP AS first_time, last_time::TIMESTAMP AS last_time
  FROM wc_buyer_labels`;

export const SELLER_COHORTS_SQL = `SELECT k.seller_address, s.chain,
       s.cohort_size::INTEGER AS cohort_size,
       round(s.uniform_amount_pct, 4)::DOUBLE AS uniform_amount_pct,
       round(s.coordinated_start_pct, 4)::DOUBLE AS coordinated_start_pct,
       round(coalesce(s.tx_count_cv, 0), 4)::DOUBLE AS uniform_tx_count_cv,
       ${SELLER_FLAGS_SQL}::VARCHAR[] AS flags
  FROM wc_sellers s JOIN wc_seller_keys k USING (sak, chain)`;
