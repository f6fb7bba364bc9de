/**
 * exchange-alerts: listings and delistings, investment warnings and caution flags, with the time
 * each was first seen, kept across runs in warehouse tables the runner never drops:
 *
 *   market_tracking         per exchange: since when its market list is tracked, last observation
 *   market_listing_history  per (exchange, symbol): first/last seen listed, listed now or not
 *   market_listing_events   new_listing / delisting with detected_at (this run's observation time)
 *                           and previous_observed_at (the change happened in between)
 *   market_flag_history     one row per flag episode: first_seen, last_seen, the start and end the
 *                           exchange announces (if it does), and ended_at = the first run that no
 *                           longer saw it
 *
 * A run updates the history from this run's kr_markets and market_flags, for each exchange
 * observed in this run only: an exchange whose market list is missing (upstream down) keeps its
 * state, so a failed fetch never reads as "everything delisted", and one whose market list had
 * rows that could not be read (ingest_skipped_rows) reports no delisting. Flags of an exchange with
 * any failed upstream in this run (ingest_failures), or with unreadable rows in its market list or
 * alert feed, are neither ended nor started. A flag past the end the exchange announced for it
 * (Bithumb's alert end_date) is over, whatever the feed still says. The first
 * observation of an exchange is the baseline: what it lists then is not reported as new.
 * An observation older than the exchange's last one (a re-run of an earlier time) changes nothing.
 * Events and ended flags older than HISTORY_KEEP_DAYS are dropped.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { queryJson } from '../../../lib/duckdb.ts';
import {
  LISTING_EXCHANGES,
  countRows,
  documentStep,
  ensureRawTables,
  exchangeRankSql,
  failuresSql,
  isoSql,
  missingInput,
  queryDocument,
  skippedRowsSql,
  timestampSql,
  unavailableExchangesSql,
  type KoreaRun,
  type KoreaDatasetStep,
} from '../sql.ts';

/** listing_changes and recently_ended cover this many days before as_of. */
export const ALERT_WINDOW_DAYS = 7;
/** Listing events and ended flag episodes older than this are dropped from the history. */
export const HISTORY_KEEP_DAYS = 90;

export const HISTORY_TABLES_SQL = [
  `CREATE TABLE IF NOT EXISTS market_tracking (
     exchange VARCHAR NOT NULL, since TIMESTAMP NOT NULL, last_observed TIMESTAMP NOT NULL)`,
  `CREATE TABLE IF NOT EXISTS market_listing_history (
     exchange VARCHAR NOT NULL, symbol VARCHAR NOT NULL, korean_name VARCHAR, english_name VARCHAR,
     first_seen TIMESTAMP NOT NULL, last_seen TIMESTAMP NOT NULL, listed BOOLEAN NOT NULL)`,
  `CREATE TABLE IF NOT EXISTS market_listing_events (
     exchange VARCHAR NOT NULL, symbol VARCHAR NOT NULL, change VARCHAR NOT NULL,
     detected_at TIMESTAMP NOT NULL, previous_observed_at TIMESTAMP NOT NULL)`,
  `CREATE TABLE IF NOT EXISTS market_flag_history (
     exchange VARCHAR NOT NULL, symbol VARCHAR NOT NULL, flag VARCHAR NOT NULL,
     first_seen TIMESTAMP NOT NULL, last_seen TIMESTAMP NOT NULL,
     started_at TIMESTAMP, ends_at TIMESTAMP, ended_at TIMESTAMP)`,
];

const sameMarket = (a: string, b: string): string => `${a}.exchange = ${b}.exchange AND ${a}.symbol = ${b}.symbol`;
const sameFlag = (a: string, b: string): string => `${sameMarket(a, b)} AND ${a}.flag = ${b}.flag`;

/**
 * Folds this run's kr_markets and market_flags into the history tables (one transaction).
 * Leaves temp tables alert_observed (exchanges whose markets were observed, with the time) and
 * alert_flag_observed (those whose flags were) for the document.
 */
export async function updateAlertHistory(c: DuckDBConnection): Promise<void> {
  await ensureRawTables(c);
  for (const sql of HISTORY_TABLES_SQL) await c.run(sql);
  const failures = await failuresSql(c);
  const skipped = await skippedRowsSql(c);
  const partial = (exchange: string, lists: string[]) =>
    `EXISTS (SELECT 1 FROM ${skipped} s WHERE s.upstream IN (${lists.map((l) => `${exchange} || ':${l}'`).join(', ')}))`;
  await c.run(`CREATE OR REPLACE TEMP TABLE alert_observed AS
    SELECT k.exchange, max(k.observed_at) AS observed_at, any_value(t.last_observed) AS previous, count(t.exchange) > 0 AS tracked,
           NOT ${partial('k.exchange', ['markets'])} AS complete
      FROM kr_markets k LEFT JOIN market_tracking t ON t.exchange = k.exchange
     WHERE k.observed_at IS NOT NULL
     GROUP BY k.exchange
    HAVING any_value(t.last_observed) IS NULL OR max(k.observed_at) >= any_value(t.last_observed)`);
  await c.run(`CREATE OR REPLACE TEMP TABLE alert_markets AS
    SELECT k.exchange, k.symbol, arg_max(k.korean_name, k.observed_at) AS korean_name, arg_max(k.english_name, k.observed_at) AS english_name
      FROM kr_markets k JOIN alert_observed o ON o.exchange = k.exchange
     GROUP BY k.exchange, k.symbol`);
  await c.run(`CREATE OR REPLACE TEMP TABLE alert_flag_observed AS
    SELECT o.exchange, o.observed_at FROM alert_observed o
     WHERE NOT EXISTS (SELECT 1 FROM ${failures} f WHERE starts_with(lower(f.upstream), o.exchange))
       AND NOT ${partial('o.exchange', ['markets', 'alerts'])}`);
  await c.run(`CREATE OR REPLACE TEMP TABLE alert_flags AS
    SELECT f.exchange, f.symbol, f.flag, min(f.started_at) AS started_at, max(f.ends_at) AS ends_at
      FROM market_flags f JOIN alert_flag_observed o ON o.exchange = f.exchange
     WHERE f.ends_at IS NULL OR f.ends_at > o.observed_at
     GROUP BY f.exchange, f.symbol, f.flag`);

  await c.run('BEGIN TRANSACTION');
  try {
    // listing changes, before the state moves on
    await c.run(`INSERT INTO market_listing_events
      SELECT m.exchange, m.symbol, 'new_listing', o.observed_at, o.previous
        FROM alert_markets m JOIN alert_observed o ON o.exchange = m.exchange
       WHERE o.tracked AND NOT EXISTS (SELECT 1 FROM market_listing_history h WHERE ${sameMarket('h', 'm')} AND h.listed)`);
    await c.run(`INSERT INTO market_listing_events
      SELECT h.exchange, h.symbol, 'delisting', o.observed_at, o.previous
        FROM market_listing_history h JOIN alert_observed o ON o.exchange = h.exchange
       WHERE o.complete AND h.listed AND NOT EXISTS (SELECT 1 FROM alert_markets m WHERE ${sameMarket('m', 'h')})`);
    await c.run(`UPDATE market_listing_history h SET listed = false
        FROM alert_observed o
       WHERE o.complete AND h.exchange = o.exchange AND h.listed AND NOT EXISTS (SELECT 1 FROM alert_markets m WHERE ${sameMarket('m', 'h')})`);
    await c.run(`UPDATE market_listing_history h
         SET first_seen = CASE WHEN h.listed THEN h.first_seen ELSE x.observed_at END,
             last_seen = x.observed_at, listed = true,
             korean_name = coalesce(x.korean_name, h.korean_name), english_name = coalesce(x.english_name, h.english_name)
        FROM (SELECT m.*, o.observed_at FROM alert_markets m JOIN alert_observed o ON o.exchange = m.exchange) x
       WHERE ${sameMarket('h', 'x')}`);
    await c.run(`INSERT INTO market_listing_history
      SELECT m.exchange, m.symbol, m.korean_name, m.english_name, o.observed_at, o.observed_at, true
        FROM alert_markets m JOIN alert_observed o ON o.exchange = m.exchange
       WHERE NOT EXISTS (SELECT 1 FROM market_listing_history h WHERE ${sameMarket('h', 'm')})`);
    await c.run(`UPDATE market_tracking t SET last_observed = o.observed_at FROM alert_observed o WHERE t.exchange = o.exchange`);
    await c.run(`INSERT INTO market_tracking SELECT exchange, observed_at, observed_at FROM alert_observed WHERE NOT tracked`);

    // flags: end the ones past their announced end (on every exchange, observed or not) and the
    // ones that disappeared, extend the ones still raised, open the new ones
    await c.run(`UPDATE market_flag_history h SET ended_at = x.observed_at
        FROM (SELECT max(observed_at) AS observed_at FROM alert_observed) x
       WHERE h.ended_at IS NULL AND h.ends_at IS NOT NULL AND h.ends_at <= x.observed_at`);
    await c.run(`UPDATE market_flag_history h SET ended_at = o.observed_at
        FROM alert_flag_observed o
       WHERE h.exchange = o.exchange AND h.ended_at IS NULL
         AND NOT EXISTS (SELECT 1 FROM alert_flags f WHERE ${sameFlag('f', 'h')})`);
    await c.run(`UPDATE market_flag_history h
         SET last_seen = x.observed_at, started_at = coalesce(x.started_at, h.started_at), ends_at = x.ends_at
        FROM (SELECT f.*, o.observed_at FROM alert_flags f JOIN alert_flag_observed o ON o.exchange = f.exchange) x
       WHERE ${sameFlag('h', 'x')} AND h.ended_at IS NULL`);
    await c.run(`INSERT INTO market_flag_history
      SELECT f.exchange, f.symbol, f.flag, o.observed_at, o.observed_at, f.started_at, f.ends_at, NULL
        FROM alert_flags f JOIN alert_flag_observed o ON o.exchange = f.exchange
       WHERE NOT EXISTS (SELECT 1 FROM market_flag_history h WHERE ${sameFlag('h', 'f')} AND h.ended_at IS NULL)`);

    const horizon = `(SELECT max(observed_at) - INTERVAL ${HISTORY_KEEP_DAYS} DAY FROM alert_observed)`;
    await c.run(`DELETE FROM market_listing_events WHERE detected_at < ${horizon}`);
    await c.run(`DELETE FROM market_flag_history WHERE ended_at < ${horizon}`);
    await c.run('COMMIT');
  } catch (err) {
    await c.run('ROLLBACK');
    throw err;
  }
}

/** 'caution:PRICE_FLUCTUATIONS' → 'PRICE_FLUCTUATIONS'. */
const flagNameSql = (col: string): string => `regexp_replace(${col}, '^(caution|alert):', '')`;
/** Which alert system a stored flag belongs to. */
const flagSystemSql = (col: string): string =>
  `CASE WHEN starts_with(${col}, 'caution:') THEN 'upbit_caution' WHEN starts_with(${col}, 'alert:') THEN 'bithumb_alert' ELSE 'other' END`;

export async function exchangeAlertsDocument(c: DuckDBConnection, run: KoreaRun): Promise<Record<string, unknown>> {
  await updateAlertHistory(c);
  if ((await countRows(c, 'alert_observed')) === 0) {
    const why =
      (await countRows(c, 'kr_markets')) === 0
        ? 'no market lists (kr_markets is empty)'
        : 'no market list newer than the last one recorded';
    throw await missingInput(c, 'exchange-alerts', why, LISTING_EXCHANGES);
  }
  const [observed] = await queryJson(c, `SELECT ${isoSql('max(observed_at)')} AS observed_at FROM alert_observed`);
  const asOf = String(observed!.observed_at);
  const since = `(${timestampSql(new Date(asOf))} - INTERVAL ${ALERT_WINDOW_DAYS} DAY)`;
  const flagFields = (h: string) => `
      exchange := ${h}.exchange, symbol := ${h}.symbol, korean_name := n.korean_name,
      first_seen := ${isoSql(`${h}.first_seen`)}, last_seen := ${isoSql(`${h}.last_seen`)},
      started_at := ${isoSql(`${h}.started_at`)}, ends_at := ${isoSql(`${h}.ends_at`)}`;
  const names = `LEFT JOIN market_listing_history n ON ${sameMarket('n', 'h')}`;
  const body = await queryDocument(
    c,
    `SELECT to_json(struct_pack(
       window_days := ${ALERT_WINDOW_DAYS},
       tracking := (SELECT list(struct_pack(
                       exchange := t.exchange,
                       since := ${isoSql('t.since')},
                       last_observed := ${isoSql('t.last_observed')},
                       markets_observed := o.exchange IS NOT NULL,
                       flags_observed := fo.exchange IS NOT NULL
                     ) ORDER BY ${exchangeRankSql('t.exchange')})
                      FROM market_tracking t
                      LEFT JOIN alert_observed o ON o.exchange = t.exchange
                      LEFT JOIN alert_flag_observed fo ON fo.exchange = t.exchange),
       counts := struct_pack(
         new_listings := (SELECT count(*) FROM market_listing_events WHERE change = 'new_listing' AND detected_at > ${since})::INTEGER,
         delistings := (SELECT count(*) FROM market_listing_events WHERE change = 'delisting' AND detected_at > ${since})::INTEGER,
         investment_warnings := (SELECT count(*) FROM market_flag_history WHERE ended_at IS NULL AND flag = 'investment_warning')::INTEGER,
         caution_flags := (SELECT count(*) FROM market_flag_history WHERE ended_at IS NULL AND flag <> 'investment_warning')::INTEGER),
       listing_changes := coalesce((SELECT list(struct_pack(
                            exchange := h.exchange, symbol := h.symbol, korean_name := n.korean_name, change := h.change,
                            detected_at := ${isoSql('h.detected_at')}, previous_observed_at := ${isoSql('h.previous_observed_at')}
                          ) ORDER BY h.detected_at DESC, ${exchangeRankSql('h.exchange')}, h.symbol, h.change)
                            FROM market_listing_events h ${names} WHERE h.detected_at > ${since}), []),
       investment_warnings := coalesce((SELECT list(struct_pack(${flagFields('h')})
                                ORDER BY ${exchangeRankSql('h.exchange')}, h.symbol)
                                FROM market_flag_history h ${names}
                               WHERE h.ended_at IS NULL AND h.flag = 'investment_warning'), []),
       caution_flags := coalesce((SELECT list(struct_pack(
                            flag := ${flagNameSql('h.flag')}, system := ${flagSystemSql('h.flag')}, ${flagFields('h')}
                          ) ORDER BY ${exchangeRankSql('h.exchange')}, h.symbol, h.flag)
                            FROM market_flag_history h ${names}
                           WHERE h.ended_at IS NULL AND h.flag <> 'investment_warning'), []),
       recently_ended := coalesce((SELECT list(struct_pack(
                            flag := CASE WHEN h.flag = 'investment_warning' THEN 'INVESTMENT_WARNING' ELSE ${flagNameSql('h.flag')} END,
                            system := CASE WHEN h.flag = 'investment_warning' THEN 'investment_warning' ELSE ${flagSystemSql('h.flag')} END,
                            ${flagFields('h')}, ended_at := ${isoSql('h.ended_at')}
                          ) ORDER BY h.ended_at DESC, ${exchangeRankSql('h.exchange')}, h.symbol, h.flag)
                            FROM market_flag_history h ${names} WHERE h.ended_at > ${since}), []),
       unavailable_exchanges := ${await unavailableExchangesSql(c, 'alert_observed', undefined, LISTING_EXCHANGES)}
     )) AS doc`,
  );
  return { source: run.sourceKind, as_of: asOf, ...body };
}

export const exchangeAlertsStep: KoreaDatasetStep = documentStep('exchange-alerts', [], exchangeAlertsDocument);
