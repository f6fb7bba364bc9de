/**
 * The macro history kept in the warehouse across runs: FRED DGS3, VIXCLS, DEXKOUS and Naver close
 * and foreign ownership of 005930 and 000660. The 2-year backfill is fetched once per series
 * (`macro_history` is never dropped), then each series is extended from its last stored date.
 * macro_daily of a run is the history's last 2 years.
 *
 * Fetch units (one request each): fred:DGS3, fred:VIXCLS, fred:DEXKOUS, naver:005930, naver:000660.
 * A unit is re-checked at most once per `recheckMinutes` (the data is daily), and at most
 * `maxIncrementalPerRun` units per run so the refresh fits the run's request budget; the others
 * wait for the next run. The incremental fetch starts at the last stored date itself, so a value
 * FRED fills in late ('.' first) replaces the NULL.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { appendRows, queryJson, type Row } from '../../../lib/duckdb.ts';
import { RAW_TABLES, type RawTable } from '../../raw-tables.ts';
import { FRED_SERIES, type FredSeries } from './fred.ts';
import { isoDay, kstDay } from './kst.ts';
import { NAVER_STOCKS, type NaverStock } from './naver-finance.ts';

export type MacroUnit =
  | { id: `fred:${FredSeries}`; upstream: 'fred'; fred: FredSeries; series: readonly string[] }
  | { id: `naver:${NaverStock}`; upstream: 'naver'; stock: NaverStock; series: readonly string[] };

export const MACRO_UNITS: readonly MacroUnit[] = [
  ...FRED_SERIES.map((s) => ({ id: `fred:${s}` as const, upstream: 'fred' as const, fred: s, series: [s] })),
  ...NAVER_STOCKS.map((code) => ({
    id: `naver:${code}` as const,
    upstream: 'naver' as const,
    stock: code,
    series: [`KRX:${code}:close`, `KRX:${code}:foreign_pct`],
  })),
];

export interface MacroOptions {
  /** Calendar days of history; 760 covers 2 years of 120-day windows' start (docs/upstreams-korea.md, "KRW macro stress"). */
  backfillDays: number;
  recheckMinutes: number;
  maxIncrementalPerRun: number;
}

export const DEFAULT_MACRO_OPTIONS: MacroOptions = { backfillDays: 760, recheckMinutes: 60, maxIncrementalPerRun: 2 };

export interface MacroFetch {
  unit: MacroUnit;
  mode: 'backfill' | 'incremental';
  since: string;
  until: string;
}

export async function ensureMacroTables(connection: DuckDBConnection): Promise<void> {
  await connection.run(
    `CREATE TABLE IF NOT EXISTS macro_history (
       series VARCHAR, date DATE, value DOUBLE, fetched_at TIMESTAMP, PRIMARY KEY (series, date))`,
  );
  await connection.run(
    `CREATE TABLE IF NOT EXISTS macro_fetch_log (
       unit VARCHAR PRIMARY KEY, checked_at TIMESTAMP, since DATE, rows INTEGER, mode VARCHAR)`,
  );
}

/**
 * What to fetch this run: every unit without history (backfill, outside the request budget), and
 * up to `incrementalAllowed` due units, least recently checked first. `deferred` counts due units
 * left for a later run.
 */
export async function planMacroFetches(
  connection: DuckDBConnection,
  now: Date,
  options: MacroOptions,
  incrementalAllowed: number,
): Promise<{ fetches: MacroFetch[]; deferred: number }> {
  await ensureMacroTables(connection);
  const last = new Map(
    (await queryJson(connection, `SELECT series, strftime(max(date), '%Y-%m-%d') AS last FROM macro_history GROUP BY series`)).map((r) => [
      String(r.series),
      String(r.last),
    ]),
  );
  const checked = new Map(
    (await queryJson(connection, `SELECT unit, epoch_ms(checked_at) AS at FROM macro_fetch_log`)).map((r) => [
      String(r.unit),
      Number(r.at),
    ]),
  );
  const backfillSince = isoDay(now.getTime() - options.backfillDays * 86_400_000);
  const fetches: MacroFetch[] = [];
  const due: { fetch: MacroFetch; checkedAt: number }[] = [];
  for (const unit of MACRO_UNITS) {
    const until = unit.upstream === 'naver' ? kstDay(now) : isoDay(now);
    const lastDates = unit.series.map((s) => last.get(s));
    if (lastDates.some((d) => d === undefined)) {
      fetches.push({ unit, mode: 'backfill', since: backfillSince, until });
      continue;
    }
    const checkedAt = checked.get(unit.id) ?? 0;
    if (now.getTime() - checkedAt < options.recheckMinutes * 60_000) continue;
    const since = (lastDates as string[]).reduce((a, b) => (a < b ? a : b));
    due.push({ fetch: { unit, mode: 'incremental', since, until }, checkedAt });
  }
  due.sort((a, b) => a.checkedAt - b.checkedAt); // stable: unit order breaks ties
  const take = Math.max(0, Math.min(incrementalAllowed, due.length));
  fetches.push(...due.slice(0, take).map((d) => d.fetch));
  return { fetches, deferred: due.length - take };
}

const BATCH: RawTable = {
  name: 'macro_history_batch',
  service: 'korea',
  description: 'Observations fetched this run, before they are merged into macro_history.',
  columns: [
    ['series', 'VARCHAR'],
    ['date', 'DATE'],
    ['value', 'DOUBLE'],
    ['fetched_at', 'TIMESTAMP'],
  ],
};

/** Merges fetched observations ([series, 'YYYY-MM-DD', value | null]) and notes the check. */
export async function storeMacroFetch(
  connection: DuckDBConnection,
  fetch: MacroFetch,
  observations: ReadonlyArray<readonly [string, string, number | null]>,
  now: Date,
): Promise<void> {
  await ensureMacroTables(connection);
  await connection.run(`CREATE OR REPLACE TEMP TABLE ${BATCH.name} (series VARCHAR, date DATE, value DOUBLE, fetched_at TIMESTAMP)`);
  await appendRows(
    connection,
    BATCH,
    (function* (): Iterable<Row> {
      for (const [series, date, value] of observations) yield [series, date, value, now];
    })(),
  );
  await connection.run('BEGIN TRANSACTION');
  try {
    await connection.run(`INSERT OR REPLACE INTO macro_history SELECT series, date, value, fetched_at FROM ${BATCH.name}`);
    await connection.run(`INSERT OR REPLACE INTO macro_fetch_log VALUES ($unit, $now::TIMESTAMP, $since::DATE, $rows, $mode)`, {
      unit: fetch.unit.id,
      now: now.toISOString(),
      since: fetch.since,
      rows: observations.length,
      mode: fetch.mode,
    });
    await connection.run('COMMIT');
  } catch (err) {
    await connection.run('ROLLBACK');
    throw err;
  } finally {
    await connection.run(`DROP TABLE IF EXISTS ${BATCH.name}`);
  }
}

/** (Re)creates macro_daily from the history's last `backfillDays` days. */
export async function materializeMacroDaily(connection: DuckDBConnection, now: Date, backfillDays: number): Promise<number> {
  await ensureMacroTables(connection);
  const t = RAW_TABLES.macro_daily;
  await connection.run(`CREATE OR REPLACE TABLE ${t.name} (${t.columns.map(([c, ty]) => `${c} ${ty}`).join(', ')})`);
  await connection.run(
    `INSERT INTO macro_daily
     SELECT series, date, value, 'live' FROM macro_history WHERE date >= $since::DATE ORDER BY series, date`,
    { since: isoDay(now.getTime() - backfillDays * 86_400_000) },
  );
  const [row] = await queryJson(connection, `SELECT count(*)::INTEGER AS n FROM macro_daily`);
  return Number(row?.n ?? 0);
}
