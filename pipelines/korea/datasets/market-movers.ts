/**
 * market-movers, from closed 1-minute candles and the 24h tickers:
 *
 *   minute        per exchange, the last closed minute L: the newest candle minute that ended by
 *                 as_of (a quiet exchange-wide minute would otherwise hide every mover)
 *   movers_1m     markets that traded in L: close(L) against the price at the end of the minute
 *                 before, i.e. the last close before L. A minute without trades has no candle and
 *                 its price is the last traded one (never 0); prev_minute says which candle that was.
 *                 |change| >= MOVE_1M_PCT, largest absolute move first, 20 at most.
 *   volume_spikes KRW volume of L over the trailing average per minute of the up to 60 minutes
 *                 before L (minutes without a candle count as zero volume; minutes before the
 *                 exchange's candle history starts do not count). ratio >= VOLUME_SPIKE_RATIO and
 *                 volume >= VOLUME_SPIKE_MIN_KRW, at least MIN_TRAILING_MINUTES of history and some
 *                 trailing volume; highest ratio first, 20 at most.
 *   top_volume    the 20 tokens with the largest 24h KRW volume over both exchanges, with each
 *                 exchange's price, volume and 24h change.
 *
 * Needs tickers and candles; an exchange without either in this run is named in unavailable_exchanges.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { NAMES_SQL, TICKERS_SQL, marketAsOf } from '../premiums.ts';
import {
  EXCHANGES,
  LISTING_EXCHANGES,
  countRows,
  documentStep,
  ensureRawTables,
  exchangeRankSql,
  isoSql,
  krwSumSql,
  missingInput,
  pctSql,
  queryDocument,
  timestampSql,
  unavailableExchangesSql,
  type KoreaRun,
  type KoreaDatasetStep,
} from '../sql.ts';

export const MOVE_1M_PCT = 1;
export const VOLUME_SPIKE_RATIO = 5;
export const VOLUME_SPIKE_MIN_KRW = 1_000_000;
export const TRAILING_MINUTES = 60;
export const MIN_TRAILING_MINUTES = 10;
export const MOVERS_LIMIT = 20;
export const TOP_VOLUME_LIMIT = 20;

/**
 * Per market that traded in its exchange's last closed minute: the move against the previous
 * close and the volume against the trailing average (unrounded; tests read it directly).
 * `asOf` is a TIMESTAMP expression.
 */
export function lastMinuteSql(asOf: string): string {
  return `(
  WITH closed AS (SELECT * FROM candles_1m WHERE minute + INTERVAL 1 MINUTE <= ${asOf} AND close_krw > 0),
       bounds AS (SELECT exchange, max(minute) AS last_minute, min(minute) AS history_start FROM closed GROUP BY exchange),
       cur AS (SELECT c.*, b.history_start FROM closed c JOIN bounds b ON b.exchange = c.exchange AND c.minute = b.last_minute),
       prev AS (SELECT c.exchange, c.symbol, arg_max(c.close_krw, c.minute) AS prev_close_krw, max(c.minute) AS prev_minute
                  FROM closed c JOIN bounds b ON b.exchange = c.exchange AND c.minute < b.last_minute
                 GROUP BY c.exchange, c.symbol),
       trail AS (SELECT c.exchange, c.symbol, sum(c.volume_krw) AS volume_krw
                      FROM closed c JOIN bounds b ON b.exchange = c.exchange
                     WHERE c.minute < b.last_minute
                       AND c.minute >= greatest(b.last_minute - INTERVAL ${TRAILING_MINUTES} MINUTE, b.history_start)
                     GROUP BY c.exchange, c.symbol)
  SELECT cur.exchange, cur.symbol, cur.minute, cur.close_krw AS price_krw, cur.volume_krw AS volume_1m_krw,
         prev.prev_close_krw, prev.prev_minute,
         cur.close_krw / prev.prev_close_krw - 1 AS change_1m,
         date_diff('minute', greatest(cur.minute - INTERVAL ${TRAILING_MINUTES} MINUTE, cur.history_start), cur.minute) AS trailing_minutes,
         coalesce(trail.volume_krw, 0)
           / nullif(date_diff('minute', greatest(cur.minute - INTERVAL ${TRAILING_MINUTES} MINUTE, cur.history_start), cur.minute), 0)
           AS avg_volume_1m_krw
    FROM cur
    LEFT JOIN prev ON prev.exchange = cur.exchange AND prev.symbol = cur.symbol
    LEFT JOIN trail ON trail.exchange = cur.exchange AND trail.symbol = cur.symbol)`;
}

export async function marketMoversDocument(c: DuckDBConnection, run: KoreaRun): Promise<Record<string, unknown>> {
  await ensureRawTables(c);
  if ((await countRows(c, 'kr_tickers', 'price_krw > 0')) === 0) {
    throw await missingInput(c, 'market-movers', 'no Korean exchange prices (kr_tickers is empty)', EXCHANGES);
  }
  if ((await countRows(c, 'candles_1m')) === 0) {
    throw await missingInput(c, 'market-movers', 'no 1-minute candles (candles_1m is empty)', LISTING_EXCHANGES);
  }
  const asOf = await marketAsOf(c);
  const asOfSql = timestampSql(new Date(asOf));
  const ratio = 'volume_1m_krw / avg_volume_1m_krw';
  const body = await queryDocument(
    c,
    `WITH m AS ${lastMinuteSql(asOfSql)}
     SELECT to_json(struct_pack(
       thresholds := struct_pack(
         move_1m_pct := ${MOVE_1M_PCT},
         volume_spike_ratio := ${VOLUME_SPIKE_RATIO},
         volume_spike_min_krw := ${VOLUME_SPIKE_MIN_KRW},
         trailing_minutes := ${TRAILING_MINUTES}),
       minutes := coalesce((SELECT list(struct_pack(exchange := exchange, minute := ${isoSql('minute')}, markets_traded := markets_traded)
                                        ORDER BY ${exchangeRankSql('exchange')})
                              FROM (SELECT exchange, minute, count(*)::INTEGER AS markets_traded FROM m GROUP BY exchange, minute)), []),
       candle_markets := (SELECT list(struct_pack(exchange := e.exchange, markets := coalesce(n.markets, 0)) ORDER BY ${exchangeRankSql('e.exchange')})
                            FROM (VALUES ('upbit'), ('bithumb')) e(exchange)
                            LEFT JOIN (SELECT exchange, count(DISTINCT symbol)::INTEGER AS markets FROM candles_1m GROUP BY exchange) n
                                   ON n.exchange = e.exchange),
       movers_1m := coalesce((SELECT list(struct_pack(
                       exchange := exchange, symbol := symbol,
                       direction := CASE WHEN change_1m > 0 THEN 'surge' ELSE 'crash' END,
                       minute := ${isoSql('minute')},
                       prev_minute := ${isoSql('prev_minute')},
                       prev_price_krw := prev_close_krw,
                       price_krw := price_krw,
                       change_1m_pct := ${pctSql('change_1m')},
                       volume_1m_krw := volume_1m_krw
                     ) ORDER BY abs(change_1m) DESC, ${exchangeRankSql('exchange')}, symbol)
                       FROM (SELECT * FROM m WHERE abs(change_1m) * 100 >= ${MOVE_1M_PCT}
                              ORDER BY abs(change_1m) DESC, ${exchangeRankSql('exchange')}, symbol LIMIT ${MOVERS_LIMIT})), []),
       volume_spikes := coalesce((SELECT list(struct_pack(
                       exchange := m.exchange, symbol := m.symbol,
                       minute := ${isoSql('m.minute')},
                       volume_1m_krw := m.volume_1m_krw,
                       avg_volume_1m_krw := round(m.avg_volume_1m_krw, 2),
                       trailing_minutes := m.trailing_minutes::INTEGER,
                       ratio := round(${ratio}, 2),
                       change_1m_pct := ${pctSql('m.change_1m')},
                       change_24h_pct := t.change_24h_pct
                     ) ORDER BY ${ratio} DESC, ${exchangeRankSql('m.exchange')}, m.symbol)
                       FROM (SELECT * FROM m
                              WHERE trailing_minutes >= ${MIN_TRAILING_MINUTES} AND avg_volume_1m_krw > 0
                                AND volume_1m_krw >= ${VOLUME_SPIKE_MIN_KRW} AND ${ratio} >= ${VOLUME_SPIKE_RATIO}
                              ORDER BY ${ratio} DESC, ${exchangeRankSql('exchange')}, symbol LIMIT ${MOVERS_LIMIT}) m
                       LEFT JOIN ${TICKERS_SQL} t ON t.exchange = m.exchange AND t.symbol = m.symbol), []),
       top_volume := (SELECT list(struct_pack(
                        rank := rank, symbol := symbol, korean_name := korean_name,
                        volume_24h_krw := volume_24h_krw, exchanges := exchanges
                      ) ORDER BY rank)
                        FROM (SELECT row_number() OVER (ORDER BY volume_24h_krw DESC, symbol)::INTEGER AS rank, *
                                FROM (SELECT t.symbol, any_value(n.korean_name) AS korean_name,
                                             ${krwSumSql('t.volume_24h_krw')} AS volume_24h_krw,
                                             list(struct_pack(exchange := t.exchange, price_krw := t.price_krw,
                                                              volume_24h_krw := t.volume_24h_krw, change_24h_pct := t.change_24h_pct)
                                                  ORDER BY ${exchangeRankSql('t.exchange')}) AS exchanges
                                        FROM ${TICKERS_SQL} t LEFT JOIN ${NAMES_SQL} n ON n.symbol = t.symbol
                                       GROUP BY t.symbol)
                               ORDER BY volume_24h_krw DESC, symbol LIMIT ${TOP_VOLUME_LIMIT})),
       unavailable_exchanges := ${await unavailableExchangesSql(c, '(SELECT exchange FROM kr_tickers INTERSECT SELECT exchange FROM candles_1m)', 'candles', LISTING_EXCHANGES)}
     )) AS doc`,
  );
  return { source: run.sourceKind, as_of: asOf, ...body };
}

export const marketMoversStep: KoreaDatasetStep = documentStep('market-movers', ['krPrices'], marketMoversDocument);
