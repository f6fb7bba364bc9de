/**
 * Aggregates of tx_attributed at the grains the datasets read, built once per run so no dataset
 * step scans the payments again (transactions and the hourly history excepted). All are TEMP
 * tables: they belong to this run and need no place in the warehouse file.
 *
 *   pair_label_codes     (pk)                 the classifier's pair label as a code, its confidence,
 *                                             signals and evidence, by pair key; the seller key (sak), chain,
 *                                             whether it is a self-payment and its all-time payments
 *   service_buyer_stats  (service_id, buyer_h) all-time, 30-day, 24-hour and previous-24-hour
 *                        counts and micro-USDC, the pair key and its label code (unlabeled without one)
 *   pair_volume_30d      (pk)                 30-day micro-USDC of every pair with a payment in
 *                                             the window, attributed or not
 *   top_buyers_30d       (service_id, buyer_h) rank_30d 1..50 by 30-day volume, then payments
 *                        (top buyers and wash-detail read rank_30d <= n)
 *   buyer_addresses      (buyer_h, address)   the addresses of those top-50 buyers (from buyer_labels,
 *                                             the payments only for a buyer without a label row)
 *   service_daily        (service_id, day)    the last 30 calendar days (UTC), today included
 *   service_facts        (id)                 the services list item and everything the list
 *                                             filters and sorts on
 *   category_facts       (slug)               all 33 categories, empty ones included
 *   label_summary_30d    (label)              buyers by their global label, payments and volume
 *                                             by pair label, over 30 days
 *
 * Windows (see sql.ts): 24h = (now-24h, now], previous = (now-48h, now-24h], 30 days =
 * (now-30d, now]; daily series are calendar days ending today.
 */
import type { PrepareStep } from '../../runner.ts';
import { queryJson } from '../../../lib/duckdb.ts';
import { pairKeySql } from '../attribution.ts';
import {
  categoriesSql,
  isoSql,
  isRealSql,
  isWashSql,
  labelCodeSql,
  labelNameSql,
  moneySql,
  nowSql,
  pctSql,
  priceBucketSql,
  windows,
} from './sql.ts';

const UNLABELED = labelCodeSql("'unlabeled'");

/** Buyers per service whose address the published lists need (wash-detail's top 50). */
export const TOP_BUYERS_KEPT = 50;

/** The kept totals view (attribution.ts) when it exists and holds no payment after `now`, else null. */
async function keptTotals(c: Parameters<PrepareStep['run']>[0]['connection'], now: string): Promise<string | null> {
  const [view] = await queryJson(
    c,
    "SELECT count(*)::INTEGER AS n FROM duckdb_views() WHERE temporary AND view_name = 'attributed_totals'",
  );
  if (Number(view?.n ?? 0) === 0) return null;
  const [late] = await queryJson(c, `SELECT count(*)::INTEGER AS n FROM attributed_totals WHERE last_time > ${now}`);
  return Number(late?.n ?? 0) === 0 ? 'attributed_totals' : null;
}

export const rollupsStep: PrepareStep = {
  name: 'analytics_rollups',
  tables: [],
  async run(ctx) {
    const c = ctx.connection;
    const now = nowSql(ctx);
    const w = windows(now);

    // The classifier's pair labels by pair key (attribution.ts keys payments the same way). A
    // repeated (buyer, seller_address, chain), or two pairs sharing a hash, would give a payment
    // two labels: counting catches both.
    await c.run(`CREATE OR REPLACE TEMP TABLE pair_label_codes AS
      SELECT ${pairKeySql('bk', 'sak', 'chain')} AS pk, label_code, confidence, signals, evidence, sak, chain, bk = sak AS self_pay, tx_count
        FROM (SELECT hash(buyer) AS bk, hash(seller_address) AS sak, chain, ${labelCodeSql('label')} AS label_code, confidence, signals,
                     evidence, tx_count
                FROM pair_labels)`);
    const [pairs] = await queryJson(c, 'SELECT (count(*) - count(DISTINCT pk))::BIGINT AS n FROM pair_label_codes');
    if (Number(pairs?.n ?? 0) !== 0) {
      throw new Error('rollups: pair_labels must hold one row per (buyer, seller_address, chain), and no two pairs may share a hash');
    }

    // A service has one seller, so a (service, buyer) is one pair and has its label; only a payment
    // attributed by URL to another payee's listing adds a second pair, and the smaller key decides.
    // The windows are aggregated over the 30 days only (the recent part of the payments), then joined.
    // The all-time part from the import runs' kept totals when every payment in them is up to now
    // (attribution.ts: the same integer sums, over a fifth of the rows at 10M), else from the payments.
    const totals = await keptTotals(c, now);
    if (totals) ctx.log("rollups: all-time totals per service and buyer from the import runs' kept totals");
    await c.run(`CREATE OR REPLACE TEMP TABLE service_buyer_stats AS
      WITH total AS (
        ${
          totals
            ? `SELECT service_id, buyer_h, min(pk) AS pk, sum(tx)::INTEGER AS tx_total, sum(micro)::BIGINT AS micro_total,
                      max(last_time) AS last_time
                 FROM ${totals} GROUP BY service_id, buyer_h`
            : `SELECT service_id, buyer_h, min(pk) AS pk, count(*)::INTEGER AS tx_total, sum(amount_micro)::BIGINT AS micro_total,
                      max(time) AS last_time
                 FROM tx_attributed WHERE service_id IS NOT NULL GROUP BY service_id, buyer_h`
        }
      ),
      recent AS (
        SELECT service_id, buyer_h,
               count(*)::INTEGER AS tx_30d,
               sum(amount_micro)::BIGINT AS micro_30d,
               min(time) AS first_30d,
               max(time) AS last_30d,
               count(*) FILTER (WHERE ${w.last24h('time')})::INTEGER AS tx_24h,
               coalesce(sum(amount_micro) FILTER (WHERE ${w.last24h('time')}), 0)::BIGINT AS micro_24h,
               count(*) FILTER (WHERE ${w.prev24h('time')})::INTEGER AS tx_prev,
               coalesce(sum(amount_micro) FILTER (WHERE ${w.prev24h('time')}), 0)::BIGINT AS micro_prev
          FROM tx_attributed
         WHERE service_id IS NOT NULL AND ${w.last30d('time')}
         GROUP BY service_id, buyer_h
      )
      SELECT t.*,
             coalesce(r.tx_30d, 0) AS tx_30d, coalesce(r.micro_30d, 0) AS micro_30d, r.first_30d, r.last_30d,
             coalesce(r.tx_24h, 0) AS tx_24h, coalesce(r.micro_24h, 0) AS micro_24h,
             coalesce(r.tx_prev, 0) AS tx_prev, coalesce(r.micro_prev, 0) AS micro_prev,
             coalesce(l.label_code, ${UNLABELED}) AS label_code
        FROM total t
        LEFT JOIN recent r USING (service_id, buyer_h)
        LEFT JOIN pair_label_codes l USING (pk)`);

    // Every pair's 30-day volume, attributed to a service or not: a seller's wash check answer
    // weighs its pairs' labels by it (wash-lookups.ts, wash-check-sellers)
    await c.run(`CREATE OR REPLACE TEMP TABLE pair_volume_30d AS
      SELECT pk, sum(amount_micro)::BIGINT AS micro_30d FROM tx_attributed WHERE ${w.last30d('time')} GROUP BY pk`);

    // Ranked apart from the aggregate above: a window over only the buyers active in 30 days
    // costs a tenth of one over every (service, buyer) pair.
    await c.run(`CREATE OR REPLACE TEMP TABLE top_buyers_30d AS
      SELECT service_id, buyer_h,
             row_number() OVER (PARTITION BY service_id ORDER BY micro_30d DESC, tx_30d DESC, buyer_h)::INTEGER AS rank_30d
        FROM service_buyer_stats
       WHERE tx_30d > 0
     QUALIFY rank_30d <= ${TOP_BUYERS_KEPT}`);

    // Addresses only for the buyers a published list shows: from the classified wallets, and from
    // the payments only for a buyer the classifier has no row for (none, when the labels are the
    // classifier's own). A hash shared by two addresses would merge two buyers, so it stops the run.
    await c.run(`CREATE OR REPLACE TEMP TABLE buyer_addresses AS
      SELECT DISTINCT hash(address) AS buyer_h, address FROM buyer_labels
       WHERE hash(address) IN (SELECT buyer_h FROM top_buyers_30d)`);
    const [unnamed] = await queryJson(
      c,
      'SELECT count(*)::BIGINT AS n FROM (SELECT DISTINCT buyer_h FROM top_buyers_30d) ANTI JOIN buyer_addresses USING (buyer_h)',
    );
    if (Number(unnamed?.n ?? 0) > 0) {
      await c.run(`INSERT INTO buyer_addresses
        SELECT DISTINCT hash(buyer) AS buyer_h, buyer AS address
          FROM x402_transactions
         WHERE time <= ${now} AND ${w.last30d('time')}
           AND hash(buyer) IN (SELECT buyer_h FROM top_buyers_30d ANTI JOIN buyer_addresses USING (buyer_h))`);
    }
    const [clash] = await queryJson(c, 'SELECT (count(*) - count(DISTINCT buyer_h))::BIGINT AS n FROM buyer_addresses');
    if (Number(clash?.n ?? 0) !== 0) throw new Error('rollups: two buyer addresses share one 64-bit hash');

    await c.run(`CREATE OR REPLACE TEMP TABLE service_daily AS
      SELECT t.service_id, t.time::DATE AS day,
             count(*)::INTEGER AS tx_count,
             sum(t.amount_micro)::BIGINT AS micro,
             coalesce(sum(t.amount_micro) FILTER (WHERE ${isRealSql('l.label_code')}), 0)::BIGINT AS real_micro,
             coalesce(sum(t.amount_micro) FILTER (WHERE ${isWashSql('l.label_code')}), 0)::BIGINT AS wash_micro,
             count(DISTINCT t.buyer_h)::INTEGER AS unique_buyers
        FROM tx_attributed t LEFT JOIN pair_label_codes l USING (pk)
       WHERE t.service_id IS NOT NULL AND t.time >= ${w.firstDay(30)}
       GROUP BY t.service_id, day`);

    await c.run(`CREATE OR REPLACE TEMP TABLE service_facts AS
      WITH totals AS (
        SELECT service_id,
               sum(tx_total)::INTEGER AS tx_total, sum(micro_total)::BIGINT AS micro_total, max(last_time) AS last_time,
               sum(tx_24h)::INTEGER AS tx_24h, sum(micro_24h)::BIGINT AS micro_24h,
               sum(tx_prev)::INTEGER AS tx_prev, sum(micro_prev)::BIGINT AS micro_prev,
               sum(tx_30d)::INTEGER AS tx_30d, sum(micro_30d)::BIGINT AS micro_30d,
               count(*) FILTER (WHERE tx_30d > 0)::INTEGER AS unique_buyers_30d,
               coalesce(sum(micro_30d) FILTER (WHERE ${isRealSql('label_code')}), 0)::BIGINT AS real_micro_30d,
               coalesce(sum(micro_30d) FILTER (WHERE ${isWashSql('label_code')}), 0)::BIGINT AS wash_micro_30d
          FROM service_buyer_stats GROUP BY service_id
      ),
      label_volume AS (
        SELECT service_id, ${labelNameSql('label_code')} AS label, sum(micro_30d)::BIGINT AS micro
          FROM service_buyer_stats WHERE micro_30d > 0 GROUP BY service_id, label_code
      ),
      -- fractions of the 30-day volume per pair label, only labels with volume, keys sorted
      distribution AS (
        SELECT l.service_id,
               to_json(map_from_entries(list_sort(list((l.label, round(l.micro::DOUBLE / t.micro_30d::DOUBLE, 6))))))
                 AS label_distribution
          FROM label_volume l JOIN totals t USING (service_id)
         GROUP BY l.service_id
      )
      SELECT s.id, s.chain, s.seller_address, s.resource_url, s.name, s.description, s.category, s.category_source,
             s.price_amount, ${priceBucketSql('s.price_amount')} AS price_bucket,
             ${isoSql('s.first_seen')} AS first_seen, s.first_seen AS first_seen_time,
             coalesce(t.tx_24h, 0) AS tx_24h, ${moneySql('t.micro_24h')} AS volume_24h, coalesce(t.micro_24h, 0) AS micro_24h,
             coalesce(t.tx_prev, 0) AS tx_prev_24h, ${moneySql('t.micro_prev')} AS volume_prev_24h, coalesce(t.micro_prev, 0) AS micro_prev,
             coalesce(t.tx_total, 0) AS tx_total, ${moneySql('t.micro_total')} AS volume_total,
             coalesce(t.tx_30d, 0) AS tx_30d, ${moneySql('t.micro_30d')} AS volume_30d, coalesce(t.micro_30d, 0) AS micro_30d,
             coalesce(t.real_micro_30d, 0) AS real_micro_30d, coalesce(t.wash_micro_30d, 0) AS wash_micro_30d,
             ${pctSql('t.real_micro_30d', 't.micro_30d')} AS real_volume_pct,
             ${pctSql('t.wash_micro_30d', 't.micro_30d')} AS wash_pct,
             coalesce(d.label_distribution, '{}'::JSON) AS label_distribution,
             coalesce(t.unique_buyers_30d, 0) AS unique_buyers_30d,
             t.last_time AS last_tx_time, ${isoSql('t.last_time')} AS last_tx_at,
             s.is_placeholder,
             coalesce(t.tx_24h, 0) > 0 AS active,
             lower(s.name) AS name_sort,
             lower(concat_ws(' ', s.name, s.description, s.resource_url)) AS search_text
        FROM service_catalog s
        LEFT JOIN totals t ON t.service_id = s.id
        LEFT JOIN distribution d ON d.service_id = s.id`);

    await c.run(`CREATE OR REPLACE TEMP TABLE category_facts AS
      WITH per_category AS (
        SELECT c.slug, c.title, c.position,
               count(f.id)::INTEGER AS services_count,
               count(f.id) FILTER (WHERE f.tx_24h > 0)::INTEGER AS active_services_24h,
               coalesce(sum(f.tx_24h), 0)::INTEGER AS tx_24h, coalesce(sum(f.micro_24h), 0)::BIGINT AS micro_24h,
               coalesce(sum(f.tx_prev_24h), 0)::INTEGER AS tx_prev, coalesce(sum(f.micro_prev), 0)::BIGINT AS micro_prev,
               coalesce(sum(f.tx_total), 0)::INTEGER AS tx_total,
               coalesce(sum(f.tx_30d), 0)::INTEGER AS tx_30d, coalesce(sum(f.micro_30d), 0)::BIGINT AS micro_30d,
               coalesce(sum(f.real_micro_30d), 0)::BIGINT AS real_micro_30d,
               coalesce(sum(f.wash_micro_30d), 0)::BIGINT AS wash_micro_30d,
               round(median(f.price_amount), 6) AS median_price
          FROM ${categoriesSql('c')} LEFT JOIN service_facts f ON f.category = c.slug
         GROUP BY c.slug, c.title, c.position
      )
      SELECT *, ${moneySql('micro_24h')} AS volume_24h, ${moneySql('micro_prev')} AS volume_prev,
             ${moneySql('micro_30d')} AS volume_30d,
             ${pctSql('real_micro_30d', 'micro_30d')} AS real_volume_pct,
             ${pctSql('wash_micro_30d', 'micro_30d')} AS wash_pct
        FROM per_category`);

    // Buyers are counted by their global label (they add up to the active buyers); payments and
    // volume by pair label, as every service rollup is.
    await c.run(`CREATE OR REPLACE TEMP TABLE label_summary_30d AS
      WITH active AS (SELECT DISTINCT buyer_h FROM service_buyer_stats WHERE tx_30d > 0),
      buyers AS (
        SELECT ${labelNameSql(`coalesce(b.label_code, ${labelCodeSql("'unlabeled'")})`)} AS label, count(*)::INTEGER AS buyers
          FROM active a LEFT JOIN (SELECT hash(address) AS buyer_h, ${labelCodeSql('label')} AS label_code FROM buyer_labels) b
            ON b.buyer_h = a.buyer_h
         GROUP BY 1
      ),
      traffic AS (
        SELECT ${labelNameSql('label_code')} AS label, sum(tx_30d)::BIGINT AS tx_count, sum(micro_30d)::BIGINT AS micro
          FROM service_buyer_stats WHERE tx_30d > 0 GROUP BY label_code
      )
      SELECT label, coalesce(b.buyers, 0) AS buyers, coalesce(t.tx_count, 0) AS tx_count, coalesce(t.micro, 0) AS micro
        FROM buyers b FULL JOIN traffic t USING (label)`);

    const [row] = await queryJson(c, 'SELECT count(*)::INTEGER AS n FROM service_buyer_stats');
    return Number(row?.n ?? 0);
  },
};
