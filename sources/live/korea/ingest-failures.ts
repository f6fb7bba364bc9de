/**
 * ingest_failures(upstream, error, at): which korea upstreams failed in this run and why; and
 * ingest_skipped_rows: the rows an upstream sent that could not be read (the rest of its list
 * was kept), counted per list.
 *
 * A failed upstream leaves its raw-table rows empty (the table exists, that exchange or venue has
 * no rows), so a dataset step sees "no input" and fails on its own; this table gives it the
 * reason to put in its message ("Upbit tickers unavailable in this run: <reason>"). It lists every
 * upstream that failed, including one a fallback covered (binance when okx answered): the empty
 * table is the signal, this table is the explanation.
 *
 * Upstream names: sources/korea-upstreams.ts (KoreaUpstreamName), shared with the pipelines that
 * read them. A fred:* or naver:* row means "not refreshed this run": macro_daily still holds the
 * kept history.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { queryJson, sqlString } from '../../../lib/duckdb.ts';
import type { KoreaUpstreamName } from '../../korea-upstreams.ts';
import type { RawTable } from '../../raw-tables.ts';

export const INGEST_FAILURES: RawTable = {
  name: 'ingest_failures',
  service: 'korea',
  description: 'Upstreams that failed in this run, with the error (live source only).',
  columns: [
    ['upstream', 'VARCHAR'],
    ['error', 'VARCHAR'],
    ['at', 'TIMESTAMP'], // a reserved word in DuckDB: quote it ("at") in SQL
  ],
};

export type { KoreaUpstreamName };

const names = (upstreams: readonly KoreaUpstreamName[]) => (upstreams.length ? upstreams.map(sqlString).join(', ') : 'NULL');

export async function ensureIngestFailures(connection: DuckDBConnection): Promise<void> {
  await connection.run(`CREATE TABLE IF NOT EXISTS ingest_failures (upstream VARCHAR, error VARCHAR, "at" TIMESTAMP)`);
}

/** Forgets what earlier runs recorded for these upstreams (the runner also drops the table per run). */
export async function clearIngestFailures(connection: DuckDBConnection, upstreams: readonly KoreaUpstreamName[]): Promise<void> {
  await ensureIngestFailures(connection);
  await connection.run(`DELETE FROM ingest_failures WHERE upstream IN (${names(upstreams)})`);
}

/** `error` should name the upstream first, as UpstreamError messages do ("upbit: GET … failed …"). */
export async function recordIngestFailure(
  connection: DuckDBConnection,
  upstream: KoreaUpstreamName,
  error: string,
  at: Date,
): Promise<void> {
  await ensureIngestFailures(connection);
  await connection.run(`INSERT INTO ingest_failures VALUES ($upstream, $error, $at::TIMESTAMP)`, {
    upstream,
    error: error.split('\n')[0]!.slice(0, 500),
    at: at.toISOString(),
  });
}

/**
 * Why these upstreams gave no data this run (their errors, each naming its upstream, joined with
 * '; '), or null when nothing is
 * recorded (demo and file sources never write the table).
 */
export async function ingestFailureReason(connection: DuckDBConnection, upstreams: readonly KoreaUpstreamName[]): Promise<string | null> {
  const [exists] = await queryJson(
    connection,
    `SELECT count(*)::INTEGER AS n FROM duckdb_tables() WHERE table_name = 'ingest_failures' AND NOT temporary`,
  );
  if (!exists || exists.n === 0) return null;
  const rows = await queryJson(
    connection,
    `SELECT error FROM ingest_failures WHERE upstream IN (${names(upstreams)}) ORDER BY "at", upstream`,
  );
  return rows.length ? rows.map((r) => String(r.error)).join('; ') : null;
}

/**
 * One row per list an upstream answered with rows that could not be read: how many of how many and
 * the first reasons. The list's other rows were kept. A market list or alert feed with skipped
 * rows is incomplete, so exchange-alerts infers no delisting and ends no flag from it.
 */
export const INGEST_SKIPPED_ROWS: RawTable = {
  name: 'ingest_skipped_rows',
  service: 'korea',
  description: 'Rows an upstream sent that could not be read in this run, counted per list (live source only).',
  columns: [
    ['upstream', 'VARCHAR'], // as in ingest_failures: upbit, upbit:markets, bithumb:alerts, binance, fred:DGS3...
    ['list', 'VARCHAR'], // what the rows are: tickers, markets, alerts, prices, observations
    ['skipped', 'INTEGER'],
    ['total', 'INTEGER'],
    ['problems', 'VARCHAR'], // the first reasons, '; '-separated
    ['at', 'TIMESTAMP'],
  ],
};

async function ensureSkippedRows(connection: DuckDBConnection): Promise<void> {
  // the declaration above is the table's one shape; names quoted ("at" is a keyword)
  const columns = INGEST_SKIPPED_ROWS.columns.map(([c, ty]) => `"${c}" ${ty}`).join(', ');
  await connection.run(`CREATE TABLE IF NOT EXISTS ${INGEST_SKIPPED_ROWS.name} (${columns})`);
}

/** Forgets what earlier runs recorded for these upstreams (the runner also drops the table per run). */
export async function clearSkippedRows(connection: DuckDBConnection, upstreams: readonly KoreaUpstreamName[]): Promise<void> {
  await ensureSkippedRows(connection);
  await connection.run(`DELETE FROM ingest_skipped_rows WHERE upstream IN (${names(upstreams)})`);
}

/**
 * Records and returns the note "upbit: skipped 1 of 31 tickers (KRW-XYZ: trade_price: …)" when
 * `skipped` is not empty, else null.
 */
export async function recordSkippedRows(
  connection: DuckDBConnection,
  upstream: KoreaUpstreamName,
  list: string,
  read: { total: number; skipped: readonly string[] },
  at: Date,
): Promise<string | null> {
  if (read.skipped.length === 0) return null;
  await ensureSkippedRows(connection);
  const problems = read.skipped.slice(0, 3).join('; ') + (read.skipped.length > 3 ? `; +${read.skipped.length - 3} more` : '');
  await connection.run(`INSERT INTO ingest_skipped_rows VALUES ($upstream, $list, $skipped, $total, $problems, $at::TIMESTAMP)`, {
    upstream,
    list,
    skipped: read.skipped.length,
    total: read.total,
    problems: problems.slice(0, 500),
    at: at.toISOString(),
  });
  return `${upstream}: skipped ${read.skipped.length} of ${read.total} ${list} that could not be read (${problems})`;
}
