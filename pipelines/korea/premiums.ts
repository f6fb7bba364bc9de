/**
 * The premium formulas, shared by kimchi-premium, stablecoin-premium and arbitrage-scanner
 * (docs/upstreams-korea.md, "Formulas"), as fractions:
 *
 *   kimchi premium (official FX basis)  kp      = (P_kr / FX) / P_global - 1
 *   kimchi premium (USDT basis)         kp_usdt = (P_kr / U)  / P_global - 1
 *   stablecoin (USDT) premium           sp      = U / FX - 1
 *
 * with P_kr the last KRW price on the exchange, FX the official USD/KRW rate (KRW per USD),
 * P_global the global USD(T) reference and U the exchange's own KRW-USDT price. They satisfy
 * (1 + kp) = (1 + kp_usdt) * (1 + sp): the kimchi premium splits into the token's premium over
 * USDT and USDT's premium over the official rate.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { queryJson } from '../../lib/duckdb.ts';
import { EXCHANGES, countRows, ensureRawTables, exchangeRankSql, isoSql, missingInput } from './sql.ts';

/** The official rate of the run: the newest USDKRW row. */
export const FX_SQL = `(SELECT rate, provider, as_of FROM fx_rates
   WHERE pair = 'USDKRW' AND rate > 0 ORDER BY as_of DESC, provider LIMIT 1)`;

/** One global reference per symbol: Binance first, then OKX, then any other venue; the newest. */
export const GLOBAL_SQL = `(SELECT symbol, price_usd, venue, as_of FROM global_prices WHERE price_usd > 0
   QUALIFY row_number() OVER (
     PARTITION BY symbol ORDER BY coalesce(list_position(['binance', 'okx'], venue), 3), as_of DESC, venue) = 1)`;

/** The newest ticker per (exchange, symbol) with a positive price. */
export const TICKERS_SQL = `(SELECT * FROM kr_tickers WHERE price_krw > 0
   QUALIFY row_number() OVER (PARTITION BY exchange, symbol ORDER BY as_of DESC) = 1)`;

/** Names per symbol, preferring Upbit's spelling. */
export const NAMES_SQL = `(SELECT symbol,
          arg_min(korean_name, ${exchangeRankSql('exchange')}) AS korean_name,
          arg_min(english_name, ${exchangeRankSql('exchange')}) AS english_name
     FROM kr_markets GROUP BY symbol)`;

/**
 * Every (exchange, symbol) with a global reference, with the three premiums as unrounded
 * fractions (kimchi_usdt and stablecoin are NULL on an exchange without a KRW-USDT price).
 */
export const PREMIUM_ROWS_SQL = `(
  SELECT t.exchange, t.symbol, t.price_krw, t.volume_24h_krw, t.change_24h_pct,
         g.price_usd AS global_price_usd, g.venue AS global_source,
         fx.rate AS fx_rate, u.usdt_krw,
         (t.price_krw / fx.rate) / g.price_usd - 1 AS kimchi,
         (t.price_krw / u.usdt_krw) / g.price_usd - 1 AS kimchi_usdt,
         u.usdt_krw / fx.rate - 1 AS stablecoin
    FROM ${TICKERS_SQL} t
    JOIN ${GLOBAL_SQL} g ON g.symbol = t.symbol
   CROSS JOIN ${FX_SQL} fx
    LEFT JOIN (SELECT exchange, price_krw AS usdt_krw FROM ${TICKERS_SQL} WHERE symbol = 'USDT') u
           ON u.exchange = t.exchange)`;

/** Upstream names (ingest_failures) that supply each input, for the "inputs missing" reasons. */
export const FX_UPSTREAMS = ['fx', 'dunamu', 'er-api', 'frankfurter', 'naver:fx'] as const;
export const GLOBAL_UPSTREAMS = ['binance', 'okx', 'coinbase'] as const;

/** The run's official rate as document fields. */
export const FX_FIELDS_SQL = `
  fx_rate := (SELECT rate FROM ${FX_SQL}),
  fx_source := (SELECT provider FROM ${FX_SQL}),
  fx_as_of := (SELECT ${isoSql('as_of')} FROM ${FX_SQL})`;

/** Throws the "inputs missing" error unless Korean prices, the official rate and (optionally) global prices are present. */
export async function requirePremiumInputs(c: DuckDBConnection, dataset: string, needs: { global: boolean }): Promise<void> {
  await ensureRawTables(c);
  if ((await countRows(c, 'kr_tickers', 'price_krw > 0')) === 0) {
    throw await missingInput(c, dataset, 'no Korean exchange prices (kr_tickers is empty)', EXCHANGES);
  }
  if ((await countRows(c, FX_SQL)) === 0) {
    throw await missingInput(c, dataset, 'no USD/KRW rate (fx_rates has no USDKRW row)', FX_UPSTREAMS);
  }
  if (needs.global && (await countRows(c, GLOBAL_SQL)) === 0) {
    throw await missingInput(c, dataset, 'no global reference prices (global_prices is empty)', GLOBAL_UPSTREAMS);
  }
}

/** as_of of the market datasets: when the exchanges were observed (newest ticker time). */
export async function marketAsOf(c: DuckDBConnection): Promise<string> {
  const [row] = await queryJson(c, `SELECT ${isoSql('max(as_of)')} AS as_of FROM kr_tickers WHERE price_krw > 0`);
  if (!row?.as_of) throw new Error('kr_tickers has no priced row');
  return String(row.as_of);
}
