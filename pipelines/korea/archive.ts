/**
 * The kimchi premium archive: every (exchange, symbol) premium the korea pipeline computes, kept
 * in the warehouse per minute for 7 days, per hour for 2 years and per UTC day for ever
 * (catalog/korea.ts PREMIUM_ARCHIVE), and published as three partitioned Parquet datasets the
 * paid history and stats endpoints read (docs/upstreams-korea.md, "Premium archive").
 *
 * Warehouse tables (kept across runs; neither a lost snapshot directory nor `--rebuild` loses them):
 *   premium_1m, premium_1h, premium_1d  (t, exchange, symbol, premium_pct, min_pct, max_pct,
 *                                        last_pct, samples, source)
 * t is the start of the minute, hour or UTC day; premium_pct the mean of the minutes in it
 * (official-FX kimchi premium, percent, 4 decimals), min/max/last over them, samples how many
 * minutes were observed. Each run:
 *   1. writes its own minute: every pair of PREMIUM_ROWS_SQL with a premium (a pair whose inputs
 *      are too far apart in time has none and is not archived: never a stale premium), and the
 *      Korea premium index as exchange 'korea': per symbol, and the market-wide one as symbol 'ALL';
 *   2. merges the demo world's history (kr_premium_history) where the archive has no row, once;
 *   3. rolls the minutes of this hour and the previous one up into hours, and the hours of this
 *      day and the previous one into days (weighted by samples), replacing those rows;
 *   4. drops minutes older than 7 days and hours older than 2 years.
 * Published: `kimchi-premium-1m` every minute up to the run's; `-1h` and `-1d` the closed hours and
 * days only (a row never changes once published). Partitioned by symbol, sorted by symbol, time,
 * exchange; each run appends the rows newer than the live version's newest as one delta file
 * (merged with the earlier deltas), and the dataset is written whole (retention applied) when
 * the deltas reach a quarter of the parts, after `--rebuild`, or without a live version to extend.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { PREMIUM_ARCHIVE, type PremiumInterval } from '../../catalog/korea.ts';
import { queryJson, sqlString, tableExists } from '../../lib/duckdb.ts';
import type { DatasetEntry } from '../../snapshots/manifest.ts';
import type { PipelineContext } from '../runner.ts';
import type { KoreaInput } from './plausibility-bounds.ts';
import { INDEX_ROWS_SQL, MARKET_INDEX_SQL, marketAsOf, PREMIUM_ROWS_SQL, requirePremiumInputs } from './premiums.ts';

const INDEX = PREMIUM_ARCHIVE.indexExchange;
import { ensureRawTables, runOf, timestampSql, type KoreaDatasetStep } from './sql.ts';

const COLUMNS = `t TIMESTAMP, exchange VARCHAR, symbol VARCHAR, premium_pct DOUBLE, min_pct DOUBLE, max_pct DOUBLE,
  last_pct DOUBLE, samples INTEGER, source VARCHAR`;

const table = (interval: PremiumInterval): string => `premium_${interval}`;
const UNIT: Record<PremiumInterval, string> = { '1m': 'minute', '1h': 'hour', '1d': 'day' };

/** The dataset of an interval: kimchi-premium-1m, -1h, -1d. */
export const archiveDataset = (interval: PremiumInterval) => `kimchi-premium-${interval}` as const;

/** Creates the archive's warehouse tables when missing. */
export async function ensureArchive(c: DuckDBConnection): Promise<void> {
  for (const interval of PREMIUM_ARCHIVE.intervals) await c.run(`CREATE TABLE IF NOT EXISTS ${table(interval)} (${COLUMNS})`);
}

/** The hours of the minutes `where` selects, each the mean of its minutes, with their min, max, last and count. */
export const hoursFromMinutesSql = (where: string): string =>
  `SELECT date_trunc('hour', t) AS t, exchange, symbol, round(avg(premium_pct), 4) AS premium_pct, min(min_pct) AS min_pct,
          max(max_pct) AS max_pct, arg_max(last_pct, t) AS last_pct, count(*)::INTEGER AS samples, arg_max(source, t) AS source
     FROM premium_1m WHERE ${where}
    GROUP BY ALL`;

/** The days of the hours `where` selects, weighted by the minutes each hour observed. */
export const daysFromHoursSql = (where: string): string =>
  `SELECT date_trunc('day', t) AS t, exchange, symbol, round(sum(premium_pct * samples) / sum(samples), 4) AS premium_pct,
          min(min_pct) AS min_pct, max(max_pct) AS max_pct, arg_max(last_pct, t) AS last_pct, sum(samples)::INTEGER AS samples,
          arg_max(source, t) AS source
     FROM premium_1h WHERE ${where}
    GROUP BY ALL`;

/**
 * Steps 1-4 of the module comment for this run (its minute: the newest Korean price's); returns
 * the minute and how many rows of the demo history it merged.
 */
export async function recordPremiums(c: DuckDBConnection, source: string): Promise<{ minute: Date; merged: number }> {
  await ensureRawTables(c);
  await ensureArchive(c);
  const asOf = new Date(await marketAsOf(c));
  const minute = new Date(Math.floor(asOf.getTime() / 60_000) * 60_000);
  const m = timestampSql(minute);
  await c.run(`DELETE FROM premium_1m WHERE t = ${m}`);
  await c.run(`INSERT INTO premium_1m
    SELECT ${m}, exchange, symbol, p, p, p, p, 1, ${sqlString(source)}
      FROM (SELECT exchange, symbol, round(kimchi * 100, 4) AS p FROM ${PREMIUM_ROWS_SQL} WHERE kimchi IS NOT NULL
            UNION ALL
            SELECT ${sqlString(INDEX)}, symbol, round(index * 100, 4) FROM ${INDEX_ROWS_SQL}
            UNION ALL
            SELECT ${sqlString(INDEX)}, ${sqlString(PREMIUM_ARCHIVE.marketIndexSymbol)}, round(index * 100, 4) FROM ${MARKET_INDEX_SQL} WHERE index IS NOT NULL)
     ORDER BY exchange, symbol`);
  let merged = 0;
  for (const interval of PREMIUM_ARCHIVE.intervals) {
    const [row] = await queryJson(
      c,
      `INSERT INTO ${table(interval)}
       SELECT h.t, h.exchange, h.symbol, h.premium_pct, h.min_pct, h.max_pct, h.last_pct, h.samples, h.source
         FROM kr_premium_history h
        WHERE h.interval = ${sqlString(interval)} AND h.t < date_trunc('${UNIT[interval]}', ${m})
          AND NOT EXISTS (SELECT 1 FROM ${table(interval)} a WHERE a.t = h.t AND a.exchange = h.exchange AND a.symbol = h.symbol)
        ORDER BY h.t, h.exchange, h.symbol`,
    );
    merged += Number(row?.Count ?? 0);
  }
  // 3. this hour and the previous one from their minutes; this day and the previous one from their hours
  await c.run(`CREATE OR REPLACE TEMP TABLE premium_rolled AS
    ${hoursFromMinutesSql(`t >= date_trunc('hour', ${m}) - INTERVAL 1 HOUR AND t <= ${m}`)};
    DELETE FROM premium_1h a USING premium_rolled r WHERE a.t = r.t AND a.exchange = r.exchange AND a.symbol = r.symbol;
    INSERT INTO premium_1h SELECT * FROM premium_rolled ORDER BY t, exchange, symbol;
    CREATE OR REPLACE TEMP TABLE premium_rolled AS
    ${daysFromHoursSql(`t >= date_trunc('day', ${m}) - INTERVAL 1 DAY AND t <= ${m}`)};
    DELETE FROM premium_1d a USING premium_rolled r WHERE a.t = r.t AND a.exchange = r.exchange AND a.symbol = r.symbol;
    INSERT INTO premium_1d SELECT * FROM premium_rolled ORDER BY t, exchange, symbol;
    DROP TABLE premium_rolled`);
  // 4. retention
  for (const interval of PREMIUM_ARCHIVE.intervals) {
    const days = PREMIUM_ARCHIVE.keepDays[interval];
    if (days !== null) await c.run(`DELETE FROM ${table(interval)} WHERE t < ${m} - INTERVAL ${days} DAY`);
  }
  return { minute, merged };
}

/** How the archive's datasets are written: partitioned by symbol, sorted by symbol, time, exchange. */
export const ARCHIVE_WRITE_OPTIONS = {
  partitionBy: { key: 'symbol', buckets: PREMIUM_ARCHIVE.buckets, orderBy: 'symbol, t, exchange' },
  rowGroupSize: PREMIUM_ARCHIVE.rowGroupSize,
};

/** Rows an interval publishes: every minute up to the run's; hours and days once closed. */
const closedSql = (interval: PremiumInterval, minute: Date): string =>
  interval === '1m' ? `t <= ${timestampSql(minute)}` : `t < date_trunc('${UNIT[interval]}', ${timestampSql(minute)})`;

/** The published rows of an interval's warehouse table matching `where` (the bench publishes with it too). */
export const archiveRowsSql = (interval: PremiumInterval, where = 'true'): string =>
  `SELECT symbol, exchange, t, premium_pct, min_pct, max_pct, last_pct, samples FROM ${table(interval)} WHERE ${where}`;

/**
 * Publishes the interval's dataset for the run's minute (module comment): the rows after the live
 * version's newest appended as a delta, or the whole table.
 */
async function publishInterval(ctx: PipelineContext, interval: PremiumInterval, minute: Date, whole: string | null): Promise<DatasetEntry> {
  const c = ctx.connection;
  const name = archiveDataset(interval);
  const meta = ctx.meta(name, minute);
  const options = ARCHIVE_WRITE_OPTIONS;
  let why = whole;
  const previous = ctx.writer.previousManifest?.datasets.find((d) => d.name === name);
  const paths = why ? null : ctx.writer.previousPaths(name);
  if (!why && (!previous?.partitions || !paths)) why = 'no live version to extend';
  if (!why) {
    const parts = previous!.partitions!.parts.reduce((a, p) => a + p.rows, 0);
    const deltas = (previous!.partitions!.deltas ?? []).reduce((a, p) => a + p.rows, 0);
    const [last] = await queryJson(c, `SELECT max(t)::VARCHAR AS t FROM read_parquet([${paths!.map(sqlString).join(', ')}])`);
    const after = last?.t ? `t > TIMESTAMP ${sqlString(String(last.t))}` : 'true';
    const [fresh] = await queryJson(
      c,
      `SELECT count(*)::BIGINT AS n FROM (${archiveRowsSql(interval, `${closedSql(interval, minute)} AND ${after}`)})`,
    );
    if (deltas + Number(fresh?.n ?? 0) > Math.max(PREMIUM_ARCHIVE.foldMinRows, parts / 4))
      why = 'the deltas reached a quarter of the parts';
    else {
      const entry = await ctx.writer.appendTable(c, name, archiveRowsSql(interval, `${closedSql(interval, minute)} AND ${after}`), meta, {
        ...options,
        mergeDeltas: true,
      });
      if (entry) return entry;
      why = 'the live version cannot take the append';
    }
  }
  ctx.log(`${name}: written whole (${why})`);
  return ctx.writer.writeTable(c, name, archiveRowsSql(interval, closedSql(interval, minute)), meta, options);
}

/**
 * One row per run of the one-off archive repair (archive-repair.ts), with the version live when it
 * ran (kept: the repair runs once per warehouse).
 */
export const ARCHIVE_REPAIRS = 'premium_archive_repairs';

/**
 * Whether the repair dropped points after the live files of a dataset (computed in `producedIn`)
 * were written: they may hold the dropped points, so the dataset is written whole.
 */
async function repairedAfter(c: DuckDBConnection, producedIn: string | undefined): Promise<boolean> {
  if (!producedIn || !(await tableExists(c, ARCHIVE_REPAIRS))) return false;
  const [row] = await queryJson(
    c,
    `SELECT count(*)::INTEGER AS n FROM ${ARCHIVE_REPAIRS} WHERE points > 0 AND live_version >= ${sqlString(producedIn)}`,
  );
  return Number(row?.n ?? 0) > 0;
}

/** The run's minute and whether the dataset must be written whole, once recordPremiums ran in this run (the 1h and 1d steps read it). */
async function recorded(c: DuckDBConnection, runNow: Date): Promise<{ minute: Date; whole: boolean } | null> {
  if (!(await tableExists(c, 'premium_recorded', { temporary: true }))) return null;
  const [row] = await queryJson(
    c,
    `SELECT strftime(minute, '%Y-%m-%dT%H:%M:%SZ') AS m, whole FROM premium_recorded WHERE run_now = ${timestampSql(runNow)}`,
  );
  return row ? { minute: new Date(String(row.m)), whole: row.whole === true } : null;
}

/**
 * This run's premiums in the archive (steps 1-4, once per run, by the first step that reads the
 * archive: the archive's own or the free daily preview's): the run's minute, and whether history
 * was merged (the archive datasets are then written whole). `dataset` names the step in the
 * "inputs missing" error.
 */
export async function recordedRun(ctx: PipelineContext, dataset: string): Promise<{ minute: Date; whole: boolean }> {
  const c = ctx.connection;
  const run = await recorded(c, ctx.now);
  if (run) return run;
  await requirePremiumInputs(c, dataset, { global: true });
  const { minute, merged } = await recordPremiums(c, runOf(ctx).sourceKind);
  if (merged > 0) ctx.log(`premium archive: ${merged} rows of history merged`);
  await c.run(`CREATE OR REPLACE TEMP TABLE premium_recorded AS
    SELECT ${timestampSql(ctx.now)} AS run_now, ${timestampSql(minute)} AS minute, ${merged > 0} AS whole`);
  return { minute, whole: merged > 0 };
}

/**
 * What a run's premiums rest on: a step that records them (recordedRun) reads every one, so a
 * refused input records nothing (the minute is missing, as when an exchange is down).
 */
export const PREMIUM_INPUTS: readonly KoreaInput[] = ['fx', 'krPrices', 'globalPrices'];

export const premiumArchiveSteps: KoreaDatasetStep[] = PREMIUM_ARCHIVE.intervals.map((interval) => ({
  dataset: archiveDataset(interval),
  reads: PREMIUM_INPUTS,
  async run(ctx: PipelineContext) {
    const run = await recordedRun(ctx, archiveDataset(interval));
    const live = ctx.writer.previousManifest?.datasets.find((d) => d.name === archiveDataset(interval));
    const whole = ctx.rebuild
      ? '--rebuild'
      : run.whole
        ? 'history merged into the archive'
        : (await repairedAfter(ctx.connection, live?.produced_in))
          ? 'points dropped from the archive by its repair since the live version'
          : null;
    return publishInterval(ctx, interval, run.minute, whole);
  },
}));
