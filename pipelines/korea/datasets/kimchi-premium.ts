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
import {
  FX_FIELDS_SQL,
  GLOBAL_SQL,
  INDEX_ROWS_SQL,
  INPUT_WINDOW_SQL,
  MARKET_INDEX_SQL,
  NAMES_SQL,
  PREMIUM_ROWS_SQL,
  TICKERS_SQL,
  marketAsOf,
  requirePremiumInputs,
} from '../premiums.ts';
import { SET_ASIDE_PRICES } from '../plausibility.ts';
import {
  documentStep,
  EXCHANGES,
  exchangeRankSql,
  failureListSql,
  failuresSql,
  isoSql,
  pctSql,
  priceSql,
  queryDocument,
  quote,
  sqlList,
  tableExists,
  unavailableExchangesSql,
  type KoreaRun,
  type KoreaDatasetStep,
} from '../sql.ts';

/** What the index is, in the document. */
export const INDEX_METHOD =
  "Per symbol: the Korean KRW price weighted by each exchange's 24-hour KRW volume, at the official USD/KRW rate, against the global price weighted by each venue's 24-hour USD volume; " +
  "market-wide: the symbols' indices weighted by their Korean 24-hour KRW volume, stablecoins left out. An exchange counts where its price is fresh, traded and plausible.";

/**
 * Exchanges with no weight in the market-wide index, with why (SQL over the CTEs `market` and
 * `rows_`): the live source's failure or the set-aside reason, else every price of it stale, else
 * no priced market.
 */
async function leftOutExchangesSql(c: DuckDBConnection): Promise<string> {
  const failures = await failuresSql(c);
  const setAside = (await tableExists(c, SET_ASIDE_PRICES))
    ? `(SELECT exchange, reason FROM ${SET_ASIDE_PRICES})`
    : `(SELECT NULL::VARCHAR AS exchange, NULL::VARCHAR AS reason WHERE false)`;
  return `coalesce((SELECT list(struct_pack(exchange := e.exchange, reason := coalesce(
              (SELECT ${failureListSql('f')} FROM ${failures} f WHERE starts_with(lower(f.upstream), e.exchange)),
              (SELECT any_value(s.reason) FROM ${setAside} s WHERE s.exchange = e.exchange),
              (SELECT 'every ' || e.exchange || ' price is stale: ' || any_value(r.stale_reason) FROM rows_ r
                WHERE r.exchange = e.exchange HAVING bool_and(r.stale_reason IS NOT NULL)),
              'no ' || e.exchange || ' prices with 24-hour volume and a global reference in this run'))
            ORDER BY ${exchangeRankSql('e.exchange')})
          FROM unnest(${sqlList(EXCHANGES)}) e(exchange)
         WHERE NOT list_contains((SELECT [x.exchange FOR x IN coalesce(m.exchanges, [])] FROM market m), e.exchange)), [])`;
}

export async function kimchiPremiumDocument(c: DuckDBConnection, run: KoreaRun): Promise<Record<string, unknown>> {
  await requirePremiumInputs(c, 'kimchi-premium', { global: true });
  const asOf = await marketAsOf(c);
  const leftOutSql = await leftOutExchangesSql(c);
  const body = await queryDocument(
    c,
    `WITH rows_ AS (SELECT * FROM ${PREMIUM_ROWS_SQL}),
     stale AS (SELECT symbol, exchange, stale_reason AS reason FROM rows_ WHERE stale_reason IS NOT NULL),
     idx AS (SELECT * FROM ${INDEX_ROWS_SQL}),
     market AS (SELECT * FROM ${MARKET_INDEX_SQL}),
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
                                               FROM stale x WHERE x.symbol = p.symbol), []),
                index := (SELECT struct_pack(
                            premium_pct := ${pctSql('i.index')},
                            price_krw := ${priceSql('i.price_krw')},
                            global_price_usd := ${priceSql('i.global_price_usd')},
                            global_venues := i.global_venues,
                            exchanges := [struct_pack(exchange := e.exchange, weight_pct := ${pctSql('e.volume_krw / i.volume_krw', 2)})
                                          FOR e IN i.exchanges])
                            FROM idx i WHERE i.symbol = p.symbol)
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
       korea_index := (SELECT struct_pack(
                          premium_pct := ${pctSql('m.index')},
                          symbols := m.symbols,
                          volume_24h_krw := round(m.volume_krw, 2),
                          exchanges_used := [e.exchange FOR e IN coalesce(m.exchanges, [])],
                          exchanges := [struct_pack(exchange := e.exchange, symbols := e.symbols, volume_24h_krw := round(e.volume_krw, 2),
                                                    weight_pct := ${pctSql('e.volume_krw / m.volume_krw', 2)})
                                        FOR e IN coalesce(m.exchanges, [])],
                          left_out := ${leftOutSql},
                          method := ${quote(INDEX_METHOD)}
                        ) FROM market m),
       input_window := ${INPUT_WINDOW_SQL},
       stale := coalesce((SELECT list(struct_pack(symbol := symbol, exchange := exchange, reason := reason)
                                      ORDER BY symbol, ${exchangeRankSql('exchange')}) FROM stale), []),
       unavailable_exchanges := ${await unavailableExchangesSql(c)}
     )) AS doc`,
  );
  return { source: run.sourceKind, as_of: asOf, ...body };
}

export const kimchiPremiumStep: KoreaDatasetStep = documentStep(
  'kimchi-premium',
  ['fx', 'krPrices', 'globalPrices'],
  kimchiPremiumDocument,
);
