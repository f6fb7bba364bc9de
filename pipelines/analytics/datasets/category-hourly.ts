/**
 * The 365-day hourly history per category (`category_hourly`), which the warehouse keeps and
 * extends across runs: a source may bring only recent payments (live indexers), so hours older
 * than this run's data must survive from earlier runs.
 *
 * A run replaces the hours it covers, from the hour of its earliest attributed payment to the hour
 * of "now", with fresh aggregates (new labels and categories included), and trims hours that
 * fell out of the 365 days (8760 hours ending with the current one). Hours without traffic have
 * no row; full-history zero-fills them.
 */
import type { PrepareStep } from '../../runner.ts';
import { queryJson } from '../../../lib/duckdb.ts';
import { isRealSql, nowSql } from './sql.ts';

export const HISTORY_HOURS = 365 * 24;

export const categoryHourlyStep: PrepareStep = {
  name: 'category_hourly',
  tables: [], // kept across runs
  async run(ctx) {
    const c = ctx.connection;
    const nowHour = `date_trunc('hour', ${nowSql(ctx)})`;
    const oldestHour = `(${nowHour} - INTERVAL ${HISTORY_HOURS - 1} HOUR)`;
    await c.run(`CREATE TABLE IF NOT EXISTS category_hourly (
      category VARCHAR NOT NULL, hour TIMESTAMP NOT NULL,
      services_count INTEGER NOT NULL, volume DOUBLE NOT NULL, tx_count BIGINT NOT NULL, real_volume DOUBLE NOT NULL)`);
    const [range] = await queryJson(
      c,
      `SELECT strftime(greatest(date_trunc('hour', min(time)), ${oldestHour}), '%Y-%m-%d %H:%M:%S') AS first_hour
         FROM tx_attributed WHERE service_id IS NOT NULL`,
    );
    const firstHour = range?.first_hour ? `TIMESTAMP '${String(range.first_hour)}'` : null;
    // Services per (category, hour) as bits of a per-category bitmap (a service's rank within its
    // category): a third of the cost of count(DISTINCT service_id) over every payment.
    await c.run(`CREATE OR REPLACE TEMP TABLE category_hourly_services AS
      WITH c AS (SELECT category, row_number() OVER (ORDER BY category)::INTEGER AS code FROM (SELECT DISTINCT category FROM service_catalog))
      SELECT s.id, c.code, c.category, row_number() OVER (PARTITION BY c.code ORDER BY s.id)::INTEGER AS rank
        FROM service_catalog s JOIN c USING (category)`);
    const [ranks] = await queryJson(c, 'SELECT coalesce(max(rank), 0)::INTEGER AS n FROM category_hourly_services');
    const maxRank = Number(ranks?.n ?? 0);
    await c.run('BEGIN TRANSACTION');
    try {
      if (firstHour && maxRank > 0) {
        await c.run(`DELETE FROM category_hourly WHERE hour >= ${firstHour} AND hour <= ${nowHour}`);
        await c.run(`INSERT INTO category_hourly
          WITH hourly AS (
            SELECT s.code, date_trunc('hour', t.time) AS hour,
                   bit_count(bitstring_agg(s.rank, 1, ${maxRank}))::INTEGER AS services_count,
                   sum(t.amount_micro)::DOUBLE / 1e6 AS volume,
                   count(*)::BIGINT AS tx_count,
                   coalesce(sum(t.amount_micro) FILTER (WHERE ${isRealSql('l.label_code')}), 0)::DOUBLE / 1e6 AS real_volume
              FROM tx_attributed t JOIN category_hourly_services s ON s.id = t.service_id LEFT JOIN pair_label_codes l USING (pk)
             WHERE t.time >= ${firstHour}
             GROUP BY s.code, hour
          )
          SELECT c.category, h.hour, h.services_count, h.volume, h.tx_count, h.real_volume
            FROM hourly h JOIN (SELECT DISTINCT code, category FROM category_hourly_services) c USING (code)`);
      }
      await c.run(`DELETE FROM category_hourly WHERE hour < ${oldestHour}`);
      // full-history reads its last hour from here: if this step failed, the dataset fails too and
      // keeps its last good file instead of publishing a history this run did not update
      await c.run(`CREATE OR REPLACE TEMP TABLE category_hourly_run AS SELECT ${nowHour} AS last_hour`);
      await c.run('COMMIT');
    } catch (err) {
      await c.run('ROLLBACK');
      throw err;
    } finally {
      await c.run('DROP TABLE IF EXISTS temp.category_hourly_services');
    }
    const [row] = await queryJson(c, 'SELECT count(*)::INTEGER AS n FROM category_hourly');
    return Number(row?.n ?? 0);
  },
};
