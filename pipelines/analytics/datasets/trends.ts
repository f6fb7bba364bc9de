/**
 * trends (free document): the last 24 hours against the 24 hours before.
 *   summary              new services (placeholders count: they are listings), payments, volume
 *                        and distinct buyers of the last 24 hours
 *   daily_new_services   15 calendar days ending today, zero-filled, oldest first
 *   recent_new_services  the 10 newest non-placeholder services, newest first (then id desc)
 *   category_movers      categories with payments in either window: the new ones (no payments
 *                        before) first by volume_24h desc, then the others by volume_change_pct
 *                        desc, then volume_24h desc, then slug
 *   hot_services         up to 10 non-placeholder services with tx_24h > tx_prev, by growth
 *                        (tx_24h - tx_prev) desc, then tx_24h desc, then id
 * The summary's new_services_change_pct follows the catalog rule (previous 0 gives 0 when current
 * is 0, else 100: the spec types it a number). Movers' and hot services' changes are null for
 * growth from zero, with "new": true: a made-up 100 % ranked a category that went from nothing
 * below one that went from 0.2 to 0.65.
 */
import type { DatasetStep } from '../../runner.ts';
import { changePctSql, dailyNewServicesSql, documentStep, moneySql, nowSql, queryJsonPieces, stamp, windows } from './sql.ts';

/** Change in percent; null for growth from zero (there is no percentage of nothing). */
const growthPctSql = (current: string, previous: string): string =>
  `(CASE WHEN ${previous} = 0 THEN (CASE WHEN ${current} = 0 THEN 0 ELSE NULL END) ELSE ${changePctSql(current, previous)} END)`;

export const trendsStep: DatasetStep = documentStep('trends', async (ctx) => {
  const now = nowSql(ctx);
  const w = windows(now);
  const pieces = await queryJsonPieces(
    ctx,
    `WITH new_services AS (
       SELECT count(*) FILTER (WHERE first_seen_time <= ${now} AND ${w.last24h('first_seen_time')})::INTEGER AS cur,
              count(*) FILTER (WHERE ${w.prev24h('first_seen_time')})::INTEGER AS prev,
              coalesce(sum(tx_24h), 0)::INTEGER AS total_tx_24h,
              coalesce(sum(micro_24h), 0)::BIGINT AS total_micro_24h
         FROM service_facts
     )
     SELECT to_json(struct_pack(
              new_services_24h := n.cur,
              new_services_prev_24h := n.prev,
              new_services_change_pct := ${changePctSql('n.cur', 'n.prev')},
              total_tx_24h := n.total_tx_24h,
              total_volume_24h := ${moneySql('n.total_micro_24h')},
              active_buyers_24h := (SELECT count(DISTINCT buyer_h) FROM service_buyer_stats WHERE tx_24h > 0)::INTEGER
            )) AS summary,
            ${dailyNewServicesSql(now, 15)} AS daily_new_services,
            coalesce((SELECT to_json(list(struct_pack(
                        id := id, name := name, category := category, chain := chain,
                        price_amount := price_amount, first_seen := first_seen
                      ) ORDER BY first_seen_time DESC, id DESC))
                        FROM (SELECT * FROM service_facts WHERE NOT is_placeholder AND first_seen_time <= ${now}
                               ORDER BY first_seen_time DESC, id DESC LIMIT 10)), '[]'::JSON) AS recent_new_services,
            coalesce((SELECT to_json(list(struct_pack(
                        category := slug, volume_24h := volume_24h, volume_prev := volume_prev,
                        volume_change_pct := ${growthPctSql('micro_24h', 'micro_prev')},
                        tx_24h := tx_24h, tx_prev := tx_prev,
                        tx_change_pct := ${growthPctSql('tx_24h', 'tx_prev')},
                        new := tx_prev = 0
                      ) ORDER BY tx_prev = 0 DESC, ${growthPctSql('micro_24h', 'micro_prev')} DESC NULLS FIRST,
                                 volume_24h DESC, slug))
                        FROM category_facts WHERE tx_24h + tx_prev > 0), '[]'::JSON) AS category_movers,
            coalesce((SELECT to_json(list(struct_pack(
                        id := id, name := name, category := category, chain := chain,
                        tx_24h := tx_24h, tx_prev := tx_prev_24h,
                        tx_change_pct := ${growthPctSql('tx_24h', 'tx_prev_24h')},
                        new := tx_prev_24h = 0,
                        real_volume_pct := real_volume_pct, wash_pct := wash_pct
                      ) ORDER BY tx_24h - tx_prev_24h DESC, tx_24h DESC, id))
                        FROM (SELECT * FROM service_facts WHERE NOT is_placeholder AND tx_24h > tx_prev_24h
                               ORDER BY tx_24h - tx_prev_24h DESC, tx_24h DESC, id LIMIT 10)), '[]'::JSON) AS hot_services
       FROM new_services n`,
  );
  return {
    ...stamp(ctx),
    summary: pieces.summary,
    daily_new_services: pieces.daily_new_services,
    recent_new_services: pieces.recent_new_services,
    category_movers: pieces.category_movers,
    hot_services: pieces.hot_services,
  };
});
