/**
 * wash-detail (paid table): one row per service id (every indexed service), ordered by
 * service_id, holding the pieces of GET /api/v1/services/{id}/wash-detail as JSON columns:
 *   buyers          up to 50 buyers by 30-day volume (then payments; exact ties in a fixed order), with the
 *                   pair label, confidence, signals (name → number, keys sorted) and evidence (what a
 *                   suspected_wash label rests on, [] for any other) of its (buyer, seller, chain)
 *                   pair, 30-day tx_count and volume, first/last payment
 *   cohort_summary  the seller's cohort signals (a seller's services share them); the
 *                   classifier's *_pct fractions are shown as percents 0-100; zeros without a cohort row
 * A run rewrites only the rows of the services a run touched (by-service.ts).
 */
import type { DatasetStep } from '../../runner.ts';
import { byServiceStep } from './by-service.ts';
import { TOP_BUYERS_KEPT } from './rollups.ts';
import { evidenceJsonSql, finiteSql, fractionToPctSql, isoSql, labelNameSql, moneySql, rankedJsonArraySql, signalsJsonSql } from './sql.ts';

/** Top buyers per service; rollups keeps ranks and addresses for exactly this many. */
export const WASH_DETAIL_BUYERS = TOP_BUYERS_KEPT;

export const washDetailStep: DatasetStep = byServiceStep({
  dataset: 'wash-detail',
  key: 'service_id',
  select: (_ctx, services) => `WITH top AS (
           SELECT b.service_id,
                  ${rankedJsonArraySql(
                    'r.rank_30d',
                    WASH_DETAIL_BUYERS,
                    `struct_pack(
                    address := a.address,
                    label := ${labelNameSql('b.label_code')},
                    confidence := round(greatest(0, least(1, ${finiteSql('coalesce(p.confidence, 0)')})), 4),
                    signals := ${signalsJsonSql('p.signals')},
                    evidence := ${evidenceJsonSql('p.evidence')},
                    tx_count := b.tx_30d,
                    volume := ${moneySql('b.micro_30d')},
                    first_tx_at := ${isoSql('b.first_30d')},
                    last_tx_at := ${isoSql('b.last_30d')}
                  )`,
                  )} AS buyers
             FROM top_buyers_30d r
             JOIN service_buyer_stats b ON b.service_id = r.service_id AND b.buyer_h = r.buyer_h
             JOIN buyer_addresses a ON a.buyer_h = b.buyer_h
             LEFT JOIN pair_label_codes p ON p.pk = b.pk
            WHERE r.rank_30d <= ${WASH_DETAIL_BUYERS} AND ${services('r.service_id')}
            GROUP BY b.service_id
         )
         SELECT f.id AS service_id,
                coalesce(t.buyers, '[]'::JSON) AS buyers,
                to_json(struct_pack(
                  uniform_amount_pct := ${fractionToPctSql('coalesce(c.uniform_amount_pct, 0)')},
                  coordinated_start_pct := ${fractionToPctSql('coalesce(c.coordinated_start_pct, 0)')},
                  uniform_tx_count_cv := round(greatest(0, ${finiteSql('coalesce(c.uniform_tx_count_cv, 0)')}), 6),
                  cohort_size := coalesce(c.cohort_size, 0)::INTEGER
                )) AS cohort_summary
           FROM service_facts f
           LEFT JOIN top t ON t.service_id = f.id
           LEFT JOIN seller_cohorts c ON c.seller_address = f.seller_address AND c.chain = f.chain
          WHERE ${services('f.id')}
          ORDER BY f.id`,
});
