/**
 * kimchi-premium: one document holding every symbol that has a Korean price and a global
 * reference; the proxy slices it by `symbol`.
 *
 *   {source, as_of, fx_rate, fx_source, fx_as_of, symbols_count,
 *    by_symbol: {BTC: {symbol, korean_name, global_price_usd, global_source,
 *                      exchanges: [{exchange, price_krw, premium_pct, usdt_krw, usdt_premium_pct}],
 *                      stale_exchanges: [{exchange, reason}]}},
 *    no_global_price: [symbols listed in Korea without a global reference, e.g. USDT],
 *    input_window: {prices_minutes, fx_hours},
 *    stale: [{symbol, exchange, reason}],
 *    unavailable_exchanges: [{exchange, reason}]}
 *
 * Needs Korean prices, the official rate and global prices; when one exchange is down the other
 * one's premiums are still published and the missing exchange is named in unavailable_exchanges.
 * A (symbol, exchange) whose inputs are too far apart in time has no premium: it is listed in
 * `stale` with the reason (and in its symbol's stale_exchanges when the other exchange has one).
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import type { DatasetStep } from '../../runner.ts';
import {
  FX_FIELDS_SQL,
  GLOBAL_SQL,
  INPUT_WINDOW_SQL,
  NAMES_SQL,
  PREMIUM_ROWS_SQL,
  TICKERS_SQL,
  marketAsOf,
  requirePremiumInputs,
} from '../premiums.ts';
import { documentStep, exchangeRankSql, isoSql, pctSql, queryDocument, unavailableExchangesSql, type KoreaRun } from '../sql.ts';

export async function kimchiPremiumDocument(c: DuckDBConnection, run: KoreaRun): Promise<Record<string, unknown>> {
  await requirePremiumInputs(c, 'kimchi-premium', { global: true });
  const asOf = await marketAsOf(c);
  const body = await queryDocument(
    c,
    `WITH rows_ AS (SELECT * FROM ${PREMIUM_ROWS_SQL}),
     stale AS (SELECT symbol, exchange, stale_reason AS reason FROM rows_ WHERE stale_reason IS NOT NULL),
     per_symbol AS (
       SELECT p.symbol,
              struct_pack(
                symbol := p.symbol,
                korean_name := any_value(n.korean_name),
                global_price_usd := any_value(p.global_price_usd),
                global_source := any_value(p.global_source),
                exchanges := list(struct_pack(
                  exchange := p.exchange,
                  price_krw := p.price_krw,
                  premium_pct := ${pctSql('p.kimchi')},
                  last_trade_at := ${isoSql('p.last_trade_at')},
                  usdt_krw := p.usdt_krw,
                  usdt_premium_pct := ${pctSql('p.kimchi_usdt')}
                ) ORDER BY ${exchangeRankSql('p.exchange')}),
                stale_exchanges := coalesce((SELECT list(struct_pack(exchange := x.exchange, reason := x.reason)
                                                         ORDER BY ${exchangeRankSql('x.exchange')})
                                               FROM stale x WHERE x.symbol = p.symbol), [])
              ) AS entry
         FROM rows_ p LEFT JOIN ${NAMES_SQL} n ON n.symbol = p.symbol
        WHERE p.stale_reason IS NULL
        GROUP BY p.symbol
     )
     SELECT to_json(struct_pack(
       ${FX_FIELDS_SQL},
       symbols_count := (SELECT count(*)::INTEGER FROM per_symbol),
       by_symbol := coalesce(
         (SELECT to_json(map_from_entries(list(struct_pack(key := symbol, value := entry) ORDER BY symbol))) FROM per_symbol),
         '{}'::JSON),
       no_global_price := coalesce(
         (SELECT list(DISTINCT symbol ORDER BY symbol) FROM ${TICKERS_SQL} t
           WHERE NOT EXISTS (SELECT 1 FROM ${GLOBAL_SQL} g WHERE g.symbol = t.symbol)),
         []::VARCHAR[]),
       input_window := ${INPUT_WINDOW_SQL},
       stale := coalesce((SELECT list(struct_pack(symbol := symbol, exchange := exchange, reason := reason)
                                      ORDER BY symbol, ${exchangeRankSql('exchange')}) FROM stale), []),
       unavailable_exchanges := ${await unavailableExchangesSql(c)}
     )) AS doc`,
  );
  return { source: run.sourceKind, as_of: asOf, ...body };
}

export const kimchiPremiumStep: DatasetStep = documentStep('kimchi-premium', kimchiPremiumDocument);
