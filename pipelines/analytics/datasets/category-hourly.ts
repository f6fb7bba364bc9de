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
import type { IngestStep } from '../../runner.ts';
import { queryJson } from '../../warehouse.ts';
import { isRealSql, nowSql } from './sql.ts';

export const HISTORY_HOURS = 365 * 24;

export const categoryHourlyStep: IngestStep = {
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
    await c.run('BEGIN TRANSACTION');
    try {
      if (firstHour) {
        await c.run(`DELETE FROM category_hourly WHERE hour >= ${firstHour} AND hour <= ${nowHour}`);
        await c.run(`INSERT INTO category_hourly
          SELECT s.category, date_trunc('hour', t.time) AS hour,
                 count(DISTINCT t.service_id)::INTEGER AS services_count,
                 sum(t.amount_micro)::DOUBLE / 1e6 AS volume,
                 count(*)::BIGINT AS tx_count,
                 coalesce(sum(t.amount_micro) FILTER (WHERE ${isRealSql('t.label_code')}), 0)::DOUBLE / 1e6 AS real_volume
            FROM tx_attributed t JOIN service_catalog s ON s.id = t.service_id
           WHERE t.time >= ${firstHour}
           GROUP BY s.category, hour`);
      }
      await c.run(`DELETE FROM category_hourly WHERE hour < ${oldestHour}`);
      // full-history reads its last hour from here: if this step failed, the dataset fails too and
      // keeps its last good file instead of publishing a history this run did not update
      await c.run(`CREATE OR REPLACE TEMP TABLE category_hourly_run AS SELECT ${nowHour} AS last_hour`);
      await c.run('COMMIT');
    } catch (err) {
      await c.run('ROLLBACK');
      throw err;
    }
    const [row] = await queryJson(c, 'SELECT count(*)::INTEGER AS n FROM category_hourly');
    return Number(row?.n ?? 0);
  },
};
