/**
 * landing-stats (free document): the market overview under `stats`.
 *   services_indexed       every listing in the index, placeholders included
 *   transactions_analyzed  attributed payments, all time
 *   active_buyers          distinct buyers with a payment in the last 30 days
 *   real_volume_pct        organic_user + ai_agent share of 30-day volume
 *   label_distribution     per label with 30-day traffic or buyers, largest volume first
 *   category_volume_series tidy (date, category) rows with traffic, 30 days, oldest first then slug
 *   daily_new_services     30 days, zero-filled, oldest first
 */
import type { DatasetStep } from '../../runner.ts';
import { dailyNewServicesSql, dateSql, documentStep, moneySql, nowSql, pctSql, queryJsonPieces, stamp, windows } from './sql.ts';

/**
 * Per label: buyers (by global label), tx_pct and volume_pct (by pair label) of the 30-day
 * totals; labels with neither buyers nor payments left out. A scalar subquery yielding JSON.
 */
export const LABEL_DISTRIBUTION_SQL = `(
  SELECT to_json(list(struct_pack(
           label := l.label, buyers := l.buyers,
           tx_pct := ${pctSql('l.tx_count', 'total.tx_count')},
           volume_pct := ${pctSql('l.micro', 'total.micro')}
         ) ORDER BY l.micro DESC, l.buyers DESC, l.label))
    FROM label_summary_30d l,
         (SELECT sum(tx_count) AS tx_count, sum(micro) AS micro FROM label_summary_30d) total
   WHERE l.buyers > 0 OR l.tx_count > 0)`;

export const landingStatsStep: DatasetStep = documentStep('landing-stats', async (ctx) => {
  const now = nowSql(ctx);
  const w = windows(now);
  const pieces = await queryJsonPieces(
    ctx,
    `WITH market AS (
       SELECT count(*)::INTEGER AS services_indexed,
              coalesce(sum(tx_total), 0)::BIGINT AS transactions_analyzed,
              coalesce(sum(micro_30d), 0)::BIGINT AS micro_30d,
              coalesce(sum(real_micro_30d), 0)::BIGINT AS real_micro_30d
         FROM service_facts
     ),
     category_days AS (
       SELECT d.day, f.category, sum(d.micro) AS micro, sum(d.tx_count) AS tx_count
         FROM service_daily d JOIN service_facts f ON f.id = d.service_id
        WHERE d.day >= ${w.firstDay(30)}
        GROUP BY d.day, f.category
     )
     SELECT to_json(m.services_indexed) AS services_indexed,
            to_json(m.transactions_analyzed) AS transactions_analyzed,
            to_json((SELECT count(DISTINCT buyer_h) FROM service_buyer_stats WHERE tx_30d > 0)::INTEGER) AS active_buyers,
            to_json(${pctSql('m.real_micro_30d', 'm.micro_30d')}) AS real_volume_pct,
            coalesce(${LABEL_DISTRIBUTION_SQL}, '[]'::JSON) AS label_distribution,
            coalesce((SELECT to_json(list(struct_pack(
                        date := ${dateSql('day')}, category := category,
                        volume := ${moneySql('micro')}, tx_count := tx_count::INTEGER
                      ) ORDER BY day, category)) FROM category_days), '[]'::JSON) AS category_volume_series,
            ${dailyNewServicesSql(now, 30)} AS daily_new_services
       FROM market m`,
  );
  const asOf = ctx.now.toISOString();
  return {
    ...stamp(ctx),
    stats: {
      services_indexed: pieces.services_indexed,
      transactions_analyzed: pieces.transactions_analyzed,
      active_buyers: pieces.active_buyers,
      real_volume_pct: pieces.real_volume_pct,
      last_updated: asOf,
      label_distribution: pieces.label_distribution,
      category_volume_series: pieces.category_volume_series,
      daily_new_services: pieces.daily_new_services,
    },
  };
});
