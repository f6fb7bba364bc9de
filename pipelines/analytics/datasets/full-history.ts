/**
 * full-history (paid table): per category, the 8760 hourly points of the last 365 days ending
 * with the current hour, zero-filled, from the kept history `category_hourly` as this run's
 * category_hourly step left it; ordered by category, time (oldest first). 33 × 8760 rows; the
 * endpoint reads `WHERE category = ?`.
 */
import type { DatasetStep } from '../../runner.ts';
import { HISTORY_HOURS } from './category-hourly.ts';
import { categoriesSql, isoSql, pctSql, tableStep } from './sql.ts';

export const fullHistoryStep: DatasetStep = tableStep(
  'full-history',
  () => `WITH hours AS (
           SELECT run.last_hour - INTERVAL (${HISTORY_HOURS - 1} - i) HOUR AS hour
             FROM category_hourly_run run CROSS JOIN range(${HISTORY_HOURS}) r(i)
         )
         SELECT c.slug AS category,
                ${isoSql('h.hour')} AS time,
                coalesce(ch.services_count, 0)::INTEGER AS services_count,
                round(coalesce(ch.volume, 0), 6) AS volume,
                coalesce(ch.tx_count, 0)::INTEGER AS tx_count,
                ${pctSql('ch.real_volume', 'ch.volume')} AS real_volume_pct
           FROM ${categoriesSql('c')} CROSS JOIN hours h
           LEFT JOIN category_hourly ch ON ch.category = c.slug AND ch.hour = h.hour
          ORDER BY c.slug, h.hour`,
);
