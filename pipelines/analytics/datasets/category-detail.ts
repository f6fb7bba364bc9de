/**
 * category-detail (free table): one row per category slug (all 33), ordered by slug, holding the
 * pieces of GET /api/v1/categories/{slug} as JSON columns:
 *   category      CategoryStats (as in the categories document)
 *   daily_series  30 days oldest first, zero-filled: date, tx_count, volume, real_volume_pct,
 *                 active_services, new_services
 *   top_services  up to 10 services list items by tx_24h desc, id asc; placeholders left out
 *                 (as the list hides them by default) except in test_dummy, which holds nothing else
 */
import type { DatasetStep } from '../../runner.ts';
import { categoryStatsSql } from './categories.ts';
import { serviceListItemSql } from './services.ts';
import { categoriesSql, dateSql, daysSql, moneySql, nowSql, pctSql, tableStep, windows } from './sql.ts';

export const categoryDetailStep: DatasetStep = tableStep('category-detail', (ctx) => {
  const now = nowSql(ctx);
  const w = windows(now);
  return `WITH traffic AS (
            SELECT f.category, d.day,
                   sum(d.tx_count) AS tx_count, sum(d.micro) AS micro, sum(d.real_micro) AS real_micro,
                   count(*) AS active_services
              FROM service_daily d JOIN service_facts f ON f.id = d.service_id
             GROUP BY f.category, d.day
          ),
          new_services AS (
            SELECT category, first_seen_time::DATE AS day, count(*) AS n
              FROM service_facts WHERE first_seen_time >= ${w.firstDay(30)}
             GROUP BY category, day
          ),
          series AS (
            SELECT c.slug,
                   to_json(list(struct_pack(
                     date := ${dateSql('d.day')},
                     tx_count := coalesce(t.tx_count, 0)::INTEGER,
                     volume := ${moneySql('t.micro')},
                     real_volume_pct := ${pctSql('t.real_micro', 't.micro')},
                     active_services := coalesce(t.active_services, 0)::INTEGER,
                     new_services := coalesce(n.n, 0)::INTEGER
                   ) ORDER BY d.day)) AS daily_series
              FROM ${categoriesSql('c')} CROSS JOIN ${daysSql(now, 30, 'd')}
              LEFT JOIN traffic t ON t.category = c.slug AND t.day = d.day
              LEFT JOIN new_services n ON n.category = c.slug AND n.day = d.day
             GROUP BY c.slug
          ),
          top AS (
            SELECT f.category, to_json(list(${serviceListItemSql('f')} ORDER BY f.tx_24h DESC, f.id)) AS top_services
              FROM (SELECT * FROM service_facts
                     WHERE NOT is_placeholder OR category = 'test_dummy'
                   QUALIFY row_number() OVER (PARTITION BY category ORDER BY tx_24h DESC, id) <= 10) f
             GROUP BY f.category
          )
          SELECT c.slug, to_json(${categoryStatsSql('c')}) AS category, s.daily_series,
                 coalesce(t.top_services, '[]'::JSON) AS top_services
            FROM category_facts c
            JOIN series s ON s.slug = c.slug
            LEFT JOIN top t ON t.category = c.slug
           ORDER BY c.slug`;
});
