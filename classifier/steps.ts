/**
 * The classifier's step list, in dependency order, split where the cycle search (TypeScript) has
 * to run between the SQL steps. classify() builds its SQL from here.
 */
import { buyerRollupSteps } from './buyer-rollup.ts';
import { buyerSteps, pairSteps, sellerMetaSteps, transactionSteps } from './features.ts';
import { fundingSteps } from './funding.ts';
import { operatorCohortSteps, operatorPairSteps } from './operators.ts';
import { returnSteps } from './returns.ts';
import { trailSteps } from './trails.ts';
import { PAIR_REASONS_SQL, PAIR_SIGNALS_SQL, pairRuleSteps } from './pair-rules.ts';
import { step, timestampSql, type SqlStep, type StepContext } from './plan.ts';
import { pairContextSteps, SELLER_FLAGS_SQL, sellerSteps } from './seller-flags.ts';
import { vanitySteps } from './vanity.ts';
import { EVIDENCE_TYPE, evidenceNameSteps, evidenceSteps, groupSteps, verdictSteps } from './evidence.ts';
import { WASH_MODEL, type WashModelThresholds } from '../catalog/wash-model.ts';

/** Up to the pair table and the features that need no cycle information. */
export function featureSteps(ctx: StepContext): SqlStep[] {
  return [
    ...transactionSteps(ctx),
    ...pairSteps(ctx),
    ...sellerMetaSteps(),
    ...buyerSteps(ctx),
    ...fundingSteps(ctx),
    ...operatorPairSteps(),
    ...returnSteps(ctx),
    ...trailSteps(),
    ...pairContextSteps(),
    ...vanitySteps(),
  ];
}

/** From the cycle members (a relation built by cycles.ts) to buyer labels, deciding with `model`'s thresholds. */
export function labelSteps(cyclesSql: string, model: WashModelThresholds = WASH_MODEL.thresholds, funding = 'wallet_funding'): SqlStep[] {
  return [
    step('wc_cycles', cyclesSql),
    ...operatorCohortSteps(),
    ...sellerSteps(),
    ...groupSteps(),
    ...evidenceNameSteps(funding),
    ...verdictSteps(model),
    ...pairRuleSteps(evidenceSteps()),
    ...buyerRollupSteps(),
  ];
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
       tx_count, volume, tx_count_30d, volume_30d, first_time, last_time,
       evidence::${EVIDENCE_TYPE} AS evidence
  FROM wc_pair_labels_all`;

/**
 * One row per buyer: its label and features, and its heaviest pair's seller and chain with that
 * seller's cohort summary (uniform amounts, coordinated start; NULL when the seller has no cohort
 * row), which the paid wash check answers with.
 */
export const BUYER_LABELS_SQL = `SELECT b.address, b.label, b.confidence::DOUBLE AS confidence,
       b.reason::VARCHAR[] AS reason, b.reason_text,
       b.signals::MAP(VARCHAR, DOUBLE) AS signals,
       b.vanity_strict, b.vanity_broad, b.vanity_cluster_size::INTEGER AS vanity_cluster_size,
       b.mean_interval_s::DOUBLE AS mean_interval_s, b.interval_cv::DOUBLE AS interval_cv,
       b.tx_count::BIGINT AS tx_count, b.volume::DOUBLE AS volume, b.n_sellers::INTEGER AS n_sellers,
       b.top_service_share::DOUBLE AS top_service_share, b.first_funder,
       b.first_time::TIMESTAMP AS first_time, b.last_time::TIMESTAMP AS last_time,
       k.seller_address AS top_seller_address, b.top_chain,
       round(s.uniform_amount_pct, 4)::DOUBLE AS top_cohort_uniform_amount,
       round(s.coordinated_start_pct, 4)::DOUBLE AS top_cohort_coordinated_start,
       b.evidence::${EVIDENCE_TYPE} AS evidence
  FROM wc_buyer_labels b
  LEFT JOIN wc_seller_keys k ON k.sak = b.top_sak AND k.chain = b.top_chain
  LEFT JOIN wc_sellers s ON s.sak = b.top_sak AND s.chain = b.top_chain`;

export const SELLER_COHORTS_SQL = `SELECT k.seller_address, s.chain,
       s.cohort_size::INTEGER AS cohort_size,
       round(s.uniform_amount_pct, 4)::DOUBLE AS uniform_amount_pct,
       round(s.coordinated_start_pct, 4)::DOUBLE AS coordinated_start_pct,
       round(coalesce(s.tx_count_cv, 0), 4)::DOUBLE AS uniform_tx_count_cv,
       ${SELLER_FLAGS_SQL}::VARCHAR[] AS flags
  FROM wc_sellers s JOIN wc_seller_keys k USING (sak, chain)`;
