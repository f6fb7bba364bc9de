/**
 * news_fetch_log(fetched_at, feed, ok, items, error): one row per source fetched in a news round,
 * kept across runs (the runner never drops it). It sets the cadence: news is fetched at most once
 * per interval (5 minutes, the news cache lifetime of docs/services.md) however often the korea pipeline
 * runs. `fetched_at` is the round's start, the run's `now`. Rows older than a week are pruned.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { queryJson } from '../../../../lib/duckdb.ts';

export const NEWS_FETCH_LOG = 'news_fetch_log';
const KEEP_DAYS = 7;

export interface FetchOutcome {
  /** A feed id, or 'naver:<topic>:<query>'. */
  feed: string;
  ok: boolean;
  items: number;
  error: string | null;
}

export async function ensureNewsFetchLog(connection: DuckDBConnection): Promise<void> {
  await connection.run(
    `CREATE TABLE IF NOT EXISTS ${NEWS_FETCH_LOG} (fetched_at TIMESTAMP, feed VARCHAR, ok BOOLEAN, items INTEGER, error VARCHAR)`,
  );
}

/**
 * When the last news round started, at or before `now` (a round logged after `now`, e.g. by a
 * run with a later --now, does not hold back this one), or null when none has.
 */
export async function lastNewsRound(connection: DuckDBConnection, now: Date): Promise<Date | null> {
  await ensureNewsFetchLog(connection);
  const [row] = await queryJson(
    connection,
    `SELECT epoch_ms(max(fetched_at))::BIGINT AS at FROM ${NEWS_FETCH_LOG} WHERE fetched_at <= $now::TIMESTAMP`,
    { now: now.toISOString() },
  );
  return row?.at === null || row?.at === undefined ? null : new Date(Number(row.at));
}

export async function logNewsRound(connection: DuckDBConnection, at: Date, outcomes: readonly FetchOutcome[]): Promise<void> {
  await ensureNewsFetchLog(connection);
  for (const o of outcomes) {
    await connection.run(`INSERT INTO ${NEWS_FETCH_LOG} VALUES ($at::TIMESTAMP, $feed, $ok, $items, $error)`, {
      at: at.toISOString(),
      feed: o.feed,
      ok: o.ok,
      items: o.items,
      error: o.error === null ? null : o.error.slice(0, 500),
    });
  }
  await connection.run(`DELETE FROM ${NEWS_FETCH_LOG} WHERE fetched_at < $at::TIMESTAMP - INTERVAL ${KEEP_DAYS} DAY`, {
    at: at.toISOString(),
  });
}
