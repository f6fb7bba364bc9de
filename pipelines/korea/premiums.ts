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
 *
 * Every input carries its source time (kr_tickers, global_prices and fx_rates `as_of`), and a
 * premium combines only inputs close in time (docs/upstreams-korea.md, "Inputs of one premium"):
 * prices at most PRICE_WINDOW_MINUTES apart, the official rate at most FX_WINDOW_HOURS from the
 * Korean price. Otherwise the premium is not computed and the pair is stale, with the reason.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { PREMIUM_INPUT_WINDOW } from '../../catalog/korea.ts';
import { queryJson } from '../../lib/duckdb.ts';
import { FX_UPSTREAMS, GLOBAL_UPSTREAMS } from '../../sources/korea-upstreams.ts';
import { STABLECOINS } from './plausibility-bounds.ts';
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

/** Prices one premium combines are at most this far apart; the rate at most FX_WINDOW_HOURS from the price (catalog/korea.ts says why). */
export const PRICE_WINDOW_MINUTES = PREMIUM_INPUT_WINDOW.pricesMinutes;
export const FX_WINDOW_HOURS = PREMIUM_INPUT_WINDOW.fxHours;
export const TRADE_WINDOW_MINUTES = PREMIUM_INPUT_WINDOW.tradeMinutes;

/** Whether a price rests on a trade older than the window before it (NULL when the exchange does not say when it traded). */
export const tradeStaleSql = (priceTime: string, tradeTime: string): string =>
  `(epoch(${priceTime}) - epoch(${tradeTime}) > ${TRADE_WINDOW_MINUTES * 60})`;

const secondsApart = (a: string, b: string): string => `abs(epoch(${a}) - epoch(${b}))`;

/** A number of seconds as '12 minutes', '30.5 hours' or '868 days'. */
const spanSql = (seconds: string): string =>
  `(CASE WHEN ${seconds} < 7200 THEN round(${seconds} / 60)::BIGINT || ' minutes'
         WHEN ${seconds} < 172800 THEN round(${seconds} / 3600, 1) || ' hours'
         ELSE round(${seconds} / 86400)::BIGINT || ' days' END)`;

/** Whether two prices' times are within the window (NULL when either is missing). */
export const pricesTogetherSql = (a: string, b: string): string => `(${secondsApart(a, b)} <= ${PRICE_WINDOW_MINUTES * 60})`;
/** Whether a rate's time is within the window of a price's. */
export const rateWithPriceSql = (price: string, rate: string): string => `(${secondsApart(price, rate)} <= ${FX_WINDOW_HOURS * 3600})`;

/**
 * Why two prices cannot be combined, or NULL: `aLabel` and `bLabel` are SQL text expressions
 * naming them ('the upbit price'), `aTime` and `bTime` their as_of.
 */
export function pricesApartReasonSql(aLabel: string, aTime: string, bLabel: string, bTime: string): string {
  return `CASE WHEN NOT ${pricesTogetherSql(aTime, bTime)} THEN
    ${aLabel} || ' (' || ${isoSql(aTime)} || ') and ' || ${bLabel} || ' (' || ${isoSql(bTime)} || ') are '
      || ${spanSql(secondsApart(aTime, bTime))} || ' apart; a premium combines prices at most ${PRICE_WINDOW_MINUTES} minutes apart' END`;
}

/** Why a rate cannot convert a price, or NULL. */
export function rateApartReasonSql(priceLabel: string, priceTime: string, provider: string, rateTime: string): string {
  return `CASE WHEN NOT ${rateWithPriceSql(priceTime, rateTime)} THEN
    'the USD/KRW rate (' || ${provider} || ', ' || ${isoSql(rateTime)} || ') is ' || ${spanSql(secondsApart(priceTime, rateTime))}
      || ' from ' || ${priceLabel} || ' (' || ${isoSql(priceTime)} || '); a premium uses a rate at most ${FX_WINDOW_HOURS} hours from the price' END`;
}

/** The windows as a document field. */
export const INPUT_WINDOW_SQL = `struct_pack(prices_minutes := ${PRICE_WINDOW_MINUTES}, fx_hours := ${FX_WINDOW_HOURS}, trade_minutes := ${TRADE_WINDOW_MINUTES})`;

/**
 * Every (exchange, symbol) with a global reference, with the three premiums as unrounded
 * fractions (kimchi_usdt and stablecoin are NULL on an exchange without a KRW-USDT price, or one
 * whose USDT price is not close in time to the token's). `stale_reason` says why a pair's inputs
 * cannot be combined; its premiums are then NULL.
 */
export const PREMIUM_ROWS_SQL = `(
  SELECT r.*,
         CASE WHEN r.stale_reason IS NULL THEN (r.price_krw / r.fx_rate) / r.global_price_usd - 1 END AS kimchi,
         CASE WHEN r.stale_reason IS NULL AND r.usdt_fresh THEN (r.price_krw / r.usdt_krw) / r.global_price_usd - 1 END AS kimchi_usdt,
         CASE WHEN r.stale_reason IS NULL AND r.usdt_fresh THEN r.usdt_krw / r.fx_rate - 1 END AS stablecoin
    FROM (
      SELECT t.exchange, t.symbol, t.price_krw, t.volume_24h_krw, t.change_24h_pct, t.as_of AS price_as_of, t.last_trade_at,
             g.price_usd AS global_price_usd, g.venue AS global_source, g.as_of AS global_as_of,
             fx.rate AS fx_rate, fx.as_of AS fx_as_of, u.usdt_krw, u.usdt_as_of,
             coalesce(${pricesTogetherSql('t.as_of', 'u.usdt_as_of')}, false) AS usdt_fresh,
             nullif(concat_ws('; ',
               ${pricesApartReasonSql(`'the ' || g.venue || ' global price'`, 'g.as_of', `'the ' || t.exchange || ' price'`, 't.as_of')},
               ${rateApartReasonSql(`'the ' || t.exchange || ' price'`, 't.as_of', 'fx.provider', 'fx.as_of')},
               CASE WHEN ${tradeStaleSql('t.as_of', 't.last_trade_at')} THEN
                 'the last ' || t.exchange || ' trade (' || ${isoSql('t.last_trade_at')} || ') is ' || ${spanSql('(epoch(t.as_of) - epoch(t.last_trade_at))')}
                   || ' before its price (' || ${isoSql('t.as_of')} || '); a premium uses a price traded within ${TRADE_WINDOW_MINUTES} minutes' END), '') AS stale_reason
        FROM ${TICKERS_SQL} t
        JOIN ${GLOBAL_SQL} g ON g.symbol = t.symbol
       CROSS JOIN ${FX_SQL} fx
        LEFT JOIN (SELECT exchange, price_krw AS usdt_krw, as_of AS usdt_as_of FROM ${TICKERS_SQL} WHERE symbol = 'USDT') u
               ON u.exchange = t.exchange) r)`;

/** How far a second global venue's price may be from the reference (GLOBAL_SQL, plausibility-checked) to enter the index's global price. */
export const GLOBAL_VENUE_AGREEMENT = 0.05;

/**
 * The index's global side: per symbol, the venues' USD(T) prices (the newest per venue) weighted
 * by their 24-hour USD volume (a plain mean when no venue reports one). A venue more than
 * GLOBAL_VENUE_AGREEMENT from the plausibility-checked reference (GLOBAL_SQL) is left out.
 */
export const GLOBAL_VWAP_SQL = `(
  SELECT v.symbol,
         CASE WHEN sum(coalesce(v.volume_24h_usd, 0)) > 0
              THEN sum(v.price_usd * coalesce(v.volume_24h_usd, 0)) / sum(coalesce(v.volume_24h_usd, 0))
              ELSE avg(v.price_usd) END AS price_usd,
         list(v.venue ORDER BY coalesce(list_position(['binance', 'okx'], v.venue), 3), v.venue) AS venues
    FROM (SELECT * FROM global_prices WHERE price_usd > 0
          QUALIFY row_number() OVER (PARTITION BY symbol, venue ORDER BY as_of DESC) = 1) v
    JOIN ${GLOBAL_SQL} g ON g.symbol = v.symbol
   WHERE abs(ln(v.price_usd / g.price_usd)) <= ln(1 + ${GLOBAL_VENUE_AGREEMENT})
   GROUP BY v.symbol)`;

/**
 * The Korea premium index per symbol: the Korean KRW price weighted by each exchange's 24-hour KRW
 * volume, over the exchanges whose premium could be computed (PREMIUM_ROWS_SQL: fresh, traded,
 * plausible), at the official rate, against the volume-weighted global price:
 *
 *   index = (sum_e v_e * P_e / sum_e v_e) / FX / P_global_vw - 1
 *
 * Columns: symbol, index (fraction), price_krw, volume_krw, global_price_usd, global_venues,
 * exchanges [{exchange, volume_krw}] (Upbit first). An exchange without 24-hour volume has no
 * weight and is not in it.
 */
export const INDEX_ROWS_SQL = `(
  SELECT k.*, (k.price_krw / fx.rate) / gv.price_usd - 1 AS index, gv.price_usd AS global_price_usd, gv.venues AS global_venues
    FROM (SELECT symbol, sum(volume_24h_krw * price_krw) / sum(volume_24h_krw) AS price_krw, sum(volume_24h_krw) AS volume_krw,
                 list(struct_pack(exchange := exchange, volume_krw := volume_24h_krw) ORDER BY ${exchangeRankSql('exchange')}) AS exchanges
            FROM ${PREMIUM_ROWS_SQL} WHERE kimchi IS NOT NULL AND volume_24h_krw > 0
           GROUP BY symbol) k
    JOIN ${GLOBAL_VWAP_SQL} gv ON gv.symbol = k.symbol
   CROSS JOIN ${FX_SQL} fx)`;

/** Symbols the market-wide index leaves out: the stablecoins (their premium is stablecoin-premium's). */
export const INDEX_EXCLUDED_SYMBOLS = STABLECOINS;

/**
 * The market-wide Korea premium index: the per-symbol indices weighted by their Korean 24-hour
 * KRW volume, stablecoins left out. One row (NULL index when no symbol has one); `exchanges` is
 * every exchange with weight, with its KRW volume and symbols.
 */
export const MARKET_INDEX_SQL = `(
  SELECT sum(i.index * i.volume_krw) / nullif(sum(i.volume_krw), 0) AS index,
         count(*)::INTEGER AS symbols, sum(i.volume_krw) AS volume_krw,
         (SELECT list(struct_pack(exchange := exchange, symbols := symbols, volume_krw := volume_krw) ORDER BY ${exchangeRankSql('exchange')})
            FROM (SELECT e.exchange, count(*)::INTEGER AS symbols, sum(e.volume_krw) AS volume_krw
                    FROM ${INDEX_ROWS_SQL} x, unnest(x.exchanges) u(e)
                   WHERE x.symbol NOT IN (${INDEX_EXCLUDED_SYMBOLS.map((s) => `'${s}'`).join(', ')})
                   GROUP BY e.exchange)) AS exchanges
    FROM ${INDEX_ROWS_SQL} i
   WHERE i.symbol NOT IN (${INDEX_EXCLUDED_SYMBOLS.map((s) => `'${s}'`).join(', ')}))`;

/** Upstream names (ingest_failures) that supply each input, for the "inputs missing" reasons: the ones the live source records. */
export { FX_UPSTREAMS, GLOBAL_UPSTREAMS };

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
