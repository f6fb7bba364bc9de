/**
 * buyers (paid table): one row per classified buyer wallet (buyer_labels), partitioned by address
 * and ordered by it within each part (sql.ts ADDRESS_PARTITIONS):
 * the classification and its features, and what the paid wash check answers a buyer with
 * (POST /api/v1/wash/check, proxy/data/wash-check.ts): the seller and chain of its heaviest pair
 * (top_seller_address, top_chain) and that seller's cohort summary of the day state
 * (top_cohort_uniform_amount, top_cohort_coordinated_start: fractions, 0 without a cohort row).
 * Counts and volume are the classifier's (its window); times are ISO 8601 UTC; signals is a JSON
 * object name → number with keys sorted; evidence is what a suspected_wash label rests on
 * (classifier/evidence.ts: [{kind, via, addresses, share, text}], [] for any other label). A run that kept the day state publishes only the rows of
 * the buyers it labelled again, as a delta file (keyed.ts).
 */
import type { DatasetStep } from '../../runner.ts';
import { keyedStep } from './keyed.ts';
import { ADDRESS_PARTITIONS, POINT_LOOKUP_ROW_GROUP, WASH_LABELS_SQL, evidenceJsonSql, finiteSql, isoSql, signalsJsonSql } from './sql.ts';

export const buyersStep: DatasetStep = keyedStep({
  dataset: 'buyers',
  partitionBy: ADDRESS_PARTITIONS.buyers,
  rowGroupSize: POINT_LOOKUP_ROW_GROUP.buyers,
  count: 'SELECT count(*)::BIGINT AS n FROM buyer_labels',
  select: (_ctx, keys) => `SELECT address,
                CASE WHEN label IN ${WASH_LABELS_SQL} THEN label ELSE 'unlabeled' END AS label,
                round(greatest(0, least(1, ${finiteSql('coalesce(confidence, 0)')})), 4) AS confidence,
                coalesce(reason, []::VARCHAR[]) AS reason,
                coalesce(reason_text, '') AS reason_text,
                coalesce(tx_count, 0)::INTEGER AS tx_count,
                round(${finiteSql('coalesce(volume, 0)')}, 6) AS volume,
                coalesce(n_sellers, 0)::INTEGER AS n_sellers,
                round(greatest(0, least(1, ${finiteSql('coalesce(top_service_share, 0)')})), 6) AS top_service_share,
                coalesce(vanity_strict, false) AS vanity_strict,
                coalesce(vanity_broad, false) AS vanity_broad,
                coalesce(vanity_cluster_size, 0)::INTEGER AS vanity_cluster_size,
                round(greatest(0, ${finiteSql('coalesce(mean_interval_s, 0)')}), 3) AS mean_interval_s,
                round(greatest(0, ${finiteSql('coalesce(interval_cv, 0)')}), 6) AS interval_cv,
                first_funder,
                ${isoSql('first_time')} AS first_time,
                ${isoSql('last_time')} AS last_time,
                ${signalsJsonSql('signals')} AS signals,
                ${evidenceJsonSql('evidence')} AS evidence,
                top_seller_address,
                top_chain,
                round(greatest(0, least(1, ${finiteSql('coalesce(top_cohort_uniform_amount, 0)')})), 4) AS top_cohort_uniform_amount,
                round(greatest(0, least(1, ${finiteSql('coalesce(top_cohort_coordinated_start, 0)')})), 4) AS top_cohort_coordinated_start
           FROM buyer_labels
          WHERE ${keys('hash(address)')}`,
});
