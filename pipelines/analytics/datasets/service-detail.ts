/**
 * service-detail (free table): one row per service id (every indexed service), ordered by id,
 * holding the pieces of GET /api/v1/services/{id} as JSON columns:
 *   service       the list item plus volume_total, unique_buyers_30d, last_tx_at (null without payments)
 *   daily_series  30 days oldest first, zero-filled: date, tx_count, volume, unique_buyers, real_volume_pct
 *   top_buyers    up to 10 buyers by 30-day volume (then payments; exact ties in a fixed order): address,
 *                 label, tx_count, volume, share_pct. The label is the one wash-detail shows for the
 *                 buyer: the classifier's label of its pair with this service's seller (unlabeled
 *                 without one). Confidence, signals, the cohort and the top 50 stay in the paid wash-detail.
 * A run rewrites only the rows of the services a run touched (by-service.ts).
 */
import type { DatasetStep } from '../../runner.ts';
import { byServiceStep } from './by-service.ts';
import { serviceListItemSql } from './services.ts';
import { dateSql, daysSql, labelNameSql, moneySql, nowSql, pctSql, rankedJsonArraySql } from './sql.ts';

export const TOP_BUYERS = 10;
/** Days in a service's daily series. */
const SERIES_DAYS = 30;

export const serviceDetailStep: DatasetStep = byServiceStep({
  dataset: 'service-detail',
  key: 'id',
  select: (ctx, services) => {
    const now = nowSql(ctx);
    return `WITH with_traffic AS (
            -- services with payments in the 30 days, plus id 0 (no service has it) whose all-zero
            -- series stands in for every quiet service: most of a large index is quiet
            SELECT DISTINCT service_id AS id FROM service_daily WHERE ${services('service_id')} UNION ALL SELECT 0
          ),
          series AS (
            SELECT f.id,
                   ${rankedJsonArraySql(
                     'd.day',
                     SERIES_DAYS,
                     `struct_pack(
                     date := ${dateSql('d.day')},
                     tx_count := coalesce(sd.tx_count, 0),
                     volume := ${moneySql('sd.micro')},
                     unique_buyers := coalesce(sd.unique_buyers, 0),
                     real_volume_pct := ${pctSql('sd.real_micro', 'sd.micro')}
                   )`,
                   )} AS daily_series
              FROM with_traffic f CROSS JOIN ${daysSql(now, SERIES_DAYS, 'd')}
              LEFT JOIN service_daily sd ON sd.service_id = f.id AND sd.day = d.day
             GROUP BY f.id
          ),
          top AS (
            SELECT b.service_id,
                   ${rankedJsonArraySql(
                     'r.rank_30d',
                     TOP_BUYERS,
                     `struct_pack(
                     address := a.address,
                     label := ${labelNameSql('b.label_code')},
                     tx_count := b.tx_30d,
                     volume := ${moneySql('b.micro_30d')},
                     share_pct := ${pctSql('b.micro_30d', 'f.micro_30d')}
                   )`,
                   )} AS top_buyers
              FROM top_buyers_30d r
              JOIN service_buyer_stats b ON b.service_id = r.service_id AND b.buyer_h = r.buyer_h
              JOIN service_facts f ON f.id = b.service_id
              JOIN buyer_addresses a ON a.buyer_h = b.buyer_h
             WHERE r.rank_30d <= ${TOP_BUYERS} AND ${services('r.service_id')}
             GROUP BY b.service_id
          )
          SELECT f.id,
                 to_json(${serviceListItemSql('f', [
                   'volume_total := f.volume_total',
                   'unique_buyers_30d := f.unique_buyers_30d',
                   'last_tx_at := f.last_tx_at',
                 ])}) AS service,
                 coalesce(s.daily_series, quiet.daily_series) AS daily_series,
                 coalesce(t.top_buyers, '[]'::JSON) AS top_buyers
            FROM service_facts f
            CROSS JOIN (SELECT daily_series FROM series WHERE id = 0) quiet
            LEFT JOIN series s ON s.id = f.id
            LEFT JOIN top t ON t.service_id = f.id
           WHERE ${services('f.id')}
           ORDER BY f.id`;
  },
});
