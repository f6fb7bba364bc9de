/**
 * arbitrage-scanner: every token with a KRW market on Upbit or Bithumb, side by side.
 *
 *   tokens[]          per token: both last prices, the kimchi premium on each exchange (null without
 *                     a global reference), reverse_premium (negative premium on every exchange that
 *                     has one), the Upbit-Bithumb gap upbit_krw / bithumb_krw - 1, both 24h KRW
 *                     volumes and the two exchanges' shares of the token's volume.
 *                     Highest premium first (the larger of the two), then symbol.
 *   reverse_premiums  (symbol, exchange) pairs with a negative premium, most negative first, 20 at most
 *   exchange_gaps     |gap| above GAP_THRESHOLD_PCT, largest first, 20 at most
 *   market_share      shares of the combined 24h KRW volume of all KRW markets of both exchanges
 *   tokens[].executable  the best route at 10,000 USD between a Korean exchange and Binance
 *                     (arbitrage-executable.ts), null for a token without books this run
 *   stale             figures left out because their inputs are too far apart in time
 *                     ({symbol, figure: upbit_premium | bithumb_premium | gap, reason}); the
 *                     figure is null in `tokens`
 *
 * The scanner compares the two exchanges, so it needs both (and the official rate and global
 * prices): with one of them missing it throws and the last good version stays live.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { EXECUTABLE, executableSql } from '../../../catalog/korea-executable.ts';
import { BOOKS_SQL, WALLETS_SQL } from './arbitrage-executable.ts';
import {
  FX_FIELDS_SQL,
  FX_SQL,
  GLOBAL_SQL,
  INPUT_WINDOW_SQL,
  NAMES_SQL,
  TICKERS_SQL,
  marketAsOf,
  pricesApartReasonSql,
  rateApartReasonSql,
  requirePremiumInputs,
} from '../premiums.ts';
import {
  documentStep,
  LISTING_EXCHANGES,
  countRows,
  krwSumSql,
  missingInput,
  pctSql,
  queryDocument,
  type KoreaRun,
  type KoreaDatasetStep,
} from '../sql.ts';

/** Upbit-Bithumb gaps listed in exchange_gaps: larger than this in absolute value (percent). */
export const GAP_THRESHOLD_PCT = 0.3;
/** Length of the summary lists. */
export const SCANNER_LIST_LIMIT = 20;

/** Why a premium on `exchange` cannot be computed from its price, the global price and the rate (NULL when it can). */
const premiumStaleSql = (exchange: 'upbit' | 'bithumb'): string =>
  `CASE WHEN b.${exchange}_krw IS NOT NULL AND g.price_usd IS NOT NULL THEN nullif(concat_ws('; ',
     ${pricesApartReasonSql(`'the ' || g.venue || ' global price'`, 'g.as_of', `'the ${exchange} price'`, `b.${exchange}_as_of`)},
     ${rateApartReasonSql(`'the ${exchange} price'`, `b.${exchange}_as_of`, 'fx.provider', 'fx.as_of')}), '') END`;

/** One row per token with the unrounded fractions (tests read it directly); a figure whose inputs are too far apart in time is NULL, with the reason. */
export const SCANNER_ROWS_SQL = `(
  WITH up AS (SELECT * FROM ${TICKERS_SQL} WHERE exchange = 'upbit'),
       bt AS (SELECT * FROM ${TICKERS_SQL} WHERE exchange = 'bithumb'),
       both_ AS (
         SELECT coalesce(up.symbol, bt.symbol) AS symbol,
                up.price_krw AS upbit_krw, bt.price_krw AS bithumb_krw, up.as_of AS upbit_as_of, bt.as_of AS bithumb_as_of,
                up.volume_24h_krw AS upbit_volume_24h_krw, bt.volume_24h_krw AS bithumb_volume_24h_krw
           FROM up FULL OUTER JOIN bt ON up.symbol = bt.symbol),
       reasons AS (
         SELECT b.*, g.price_usd AS global_price_usd, g.venue AS global_source, fx.rate AS fx_rate,
                ${premiumStaleSql('upbit')} AS upbit_premium_stale,
                ${premiumStaleSql('bithumb')} AS bithumb_premium_stale,
                ${pricesApartReasonSql(`'the upbit price'`, 'b.upbit_as_of', `'the bithumb price'`, 'b.bithumb_as_of')} AS gap_stale
           FROM both_ b CROSS JOIN ${FX_SQL} fx LEFT JOIN ${GLOBAL_SQL} g ON g.symbol = b.symbol),
       premiums AS (
         SELECT r.*,
                CASE WHEN r.upbit_premium_stale IS NULL THEN (r.upbit_krw / r.fx_rate) / r.global_price_usd - 1 END AS upbit_premium,
                CASE WHEN r.bithumb_premium_stale IS NULL THEN (r.bithumb_krw / r.fx_rate) / r.global_price_usd - 1 END AS bithumb_premium,
                CASE WHEN r.gap_stale IS NULL THEN r.upbit_krw / r.bithumb_krw - 1 END AS gap,
                coalesce(r.upbit_volume_24h_krw, 0) + coalesce(r.bithumb_volume_24h_krw, 0) AS volume_total
           FROM reasons r)
  SELECT p.*, n.korean_name,
         coalesce(greatest(p.upbit_premium, p.bithumb_premium) < 0, false) AS reverse_premium,
         CASE WHEN p.volume_total > 0 THEN coalesce(p.upbit_volume_24h_krw, 0) / p.volume_total END AS upbit_share,
         CASE WHEN p.volume_total > 0 THEN coalesce(p.bithumb_volume_24h_krw, 0) / p.volume_total END AS bithumb_share,
         EXISTS (SELECT 1 FROM market_flags f WHERE f.symbol = p.symbol AND f.flag = 'investment_warning') AS investment_warning
    FROM premiums p LEFT JOIN ${NAMES_SQL} n ON n.symbol = p.symbol)`;

/** Overall shares of 24h KRW volume over all KRW markets of each exchange. */
export const MARKET_SHARE_SQL = `(
  WITH v AS (SELECT ${krwSumSql('volume_24h_krw', "exchange = 'upbit'")} AS upbit,
                    ${krwSumSql('volume_24h_krw', "exchange = 'bithumb'")} AS bithumb
               FROM ${TICKERS_SQL})
  SELECT coalesce(upbit, 0) AS upbit_volume_krw, coalesce(bithumb, 0) AS bithumb_volume_krw,
         coalesce(upbit, 0) / nullif(coalesce(upbit, 0) + coalesce(bithumb, 0), 0) AS upbit_share,
         coalesce(bithumb, 0) / nullif(coalesce(upbit, 0) + coalesce(bithumb, 0), 0) AS bithumb_share
    FROM v)`;

/** Per symbol with books: the best route at the scanner's size (fillable, transfer not known closed, highest net). */
const BEST_ROUTE_SQL = `(SELECT * FROM ${executableSql({
  levels: BOOKS_SQL,
  wallets: WALLETS_SQL,
  fxRate: `(SELECT rate FROM ${FX_SQL})`,
  sizesUsd: [EXECUTABLE.scannerSizeUsd],
})} WHERE fillable AND coalesce(transfer_open, true)
   QUALIFY row_number() OVER (PARTITION BY symbol ORDER BY net_pct DESC, exchange, direction) = 1)`;

export async function arbitrageScannerDocument(c: DuckDBConnection, run: KoreaRun): Promise<Record<string, unknown>> {
  await requirePremiumInputs(c, 'arbitrage-scanner', { global: true });
  // The scanner sets Upbit and Bithumb side by side (the spec's columns); Coinone and Korbit are in the index.
  for (const exchange of LISTING_EXCHANGES) {
    if ((await countRows(c, TICKERS_SQL, `exchange = '${exchange}'`)) === 0) {
      throw await missingInput(c, 'arbitrage-scanner', `no ${exchange} prices, so there is nothing to compare`, [exchange]);
    }
  }
  const asOf = await marketAsOf(c);
  const body = await queryDocument(
    c,
    `WITH s AS ${SCANNER_ROWS_SQL},
     best AS (SELECT * FROM ${BEST_ROUTE_SQL})
     SELECT to_json(struct_pack(
       ${FX_FIELDS_SQL},
       thresholds := struct_pack(gap_pct := ${GAP_THRESHOLD_PCT}, reverse_premium_pct := 0),
       counts := (SELECT struct_pack(
                    tokens := count(*)::INTEGER,
                    on_both_exchanges := count(*) FILTER (WHERE upbit_krw IS NOT NULL AND bithumb_krw IS NOT NULL)::INTEGER,
                    with_global_price := count(global_price_usd)::INTEGER,
                    reverse_premium := count(*) FILTER (WHERE reverse_premium)::INTEGER) FROM s),
       tokens := (SELECT list(struct_pack(
                    symbol := symbol,
                    korean_name := korean_name,
                    global_price_usd := global_price_usd,
                    global_source := global_source,
                    upbit_krw := upbit_krw,
                    bithumb_krw := bithumb_krw,
                    upbit_premium_pct := ${pctSql('upbit_premium')},
                    bithumb_premium_pct := ${pctSql('bithumb_premium')},
                    reverse_premium := reverse_premium,
                    gap_pct := ${pctSql('gap')},
                    upbit_volume_24h_krw := upbit_volume_24h_krw,
                    bithumb_volume_24h_krw := bithumb_volume_24h_krw,
                    upbit_share_pct := ${pctSql('upbit_share', 2)},
                    bithumb_share_pct := ${pctSql('bithumb_share', 2)},
                    investment_warning := investment_warning,
                    executable := (SELECT struct_pack(exchange := b.exchange, direction := b.direction, size_usd := b.size_usd,
                                                      net_pct := b.net_pct, fillable := b.fillable, transfer_open := b.transfer_open)
                                     FROM best b WHERE b.symbol = s.symbol)
                  ) ORDER BY greatest(upbit_premium, bithumb_premium) DESC NULLS LAST, symbol) FROM s),
       reverse_premiums := coalesce((SELECT list(struct_pack(symbol := symbol, exchange := exchange, premium_pct := ${pctSql('premium')})
                                                 ORDER BY premium, symbol, exchange)
                             FROM (SELECT symbol, exchange, premium FROM (
                                     SELECT symbol, 'upbit' AS exchange, upbit_premium AS premium FROM s
                                     UNION ALL SELECT symbol, 'bithumb', bithumb_premium FROM s)
                                    WHERE premium < 0 ORDER BY premium, symbol, exchange LIMIT ${SCANNER_LIST_LIMIT})), []),
       exchange_gaps := coalesce((SELECT list(struct_pack(symbol := symbol, upbit_krw := upbit_krw, bithumb_krw := bithumb_krw,
                                                          gap_pct := ${pctSql('gap')}) ORDER BY abs(gap) DESC, symbol)
                          FROM (SELECT * FROM s WHERE abs(gap) * 100 > ${GAP_THRESHOLD_PCT}
                                 ORDER BY abs(gap) DESC, symbol LIMIT ${SCANNER_LIST_LIMIT})), []),
       market_share := (SELECT struct_pack(
                          upbit_pct := ${pctSql('upbit_share', 2)},
                          bithumb_pct := ${pctSql('bithumb_share', 2)},
                          upbit_volume_krw := upbit_volume_krw,
                          bithumb_volume_krw := bithumb_volume_krw) FROM ${MARKET_SHARE_SQL}),
       input_window := ${INPUT_WINDOW_SQL},
       stale := coalesce((SELECT list(struct_pack(symbol := symbol, figure := figure, reason := reason) ORDER BY symbol, rank)
                            FROM (SELECT symbol, 'upbit_premium' AS figure, upbit_premium_stale AS reason, 1 AS rank FROM s
                                  UNION ALL SELECT symbol, 'bithumb_premium', bithumb_premium_stale, 2 FROM s
                                  UNION ALL SELECT symbol, 'gap', gap_stale, 3 FROM s)
                           WHERE reason IS NOT NULL), [])
     )) AS doc`,
  );
  return { source: run.sourceKind, as_of: asOf, ...body };
}

export const arbitrageScannerStep: KoreaDatasetStep = documentStep(
  'arbitrage-scanner',
  ['fx', 'krPrices', 'globalPrices'],
  arbitrageScannerDocument,
);
