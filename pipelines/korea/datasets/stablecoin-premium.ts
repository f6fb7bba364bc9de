/**
 * stablecoin-premium: the KRW price of USDT (and USDC where listed) on each exchange against the
 * official USD/KRW rate, premium = price_krw / fx_rate - 1 in percent.
 *
 *   {source, as_of, fx_rate, fx_source, fx_as_of,
 *    premiums: [{stablecoin, exchange, price_krw, premium_pct, volume_24h_krw}],
 *    interpretation, input_window: {prices_minutes, fx_hours}, stale: [{stablecoin, exchange, reason}],
 *    unavailable_exchanges: [{exchange, reason}]}
 *
 * Needs the official rate and at least one stablecoin price; one exchange down still publishes. A
 * stablecoin price too far in time from the rate has no premium: it is listed in `stale`.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { FX_FIELDS_SQL, FX_SQL, INPUT_WINDOW_SQL, TICKERS_SQL, marketAsOf, rateApartReasonSql, requirePremiumInputs } from '../premiums.ts';
import {
  EXCHANGES,
  countRows,
  documentStep,
  exchangeRankSql,
  missingInput,
  pctSql,
  queryDocument,
  quote,
  unavailableExchangesSql,
  type KoreaRun,
  type KoreaDatasetStep,
} from '../sql.ts';

export const STABLECOINS = ['USDT', 'USDC'] as const;

interface StablecoinPremium {
  stablecoin: string;
  exchange: string;
  price_krw: number;
  premium_pct: number;
}

const EXCHANGE_NAMES: Record<string, string> = { upbit: 'Upbit', bithumb: 'Bithumb' };

/** One plain sentence on the main figure (USDT on the first exchange listed) and what its sign means. */
export function stablecoinInterpretation(premiums: readonly StablecoinPremium[], fxRate: number): string {
  const main = premiums.find((p) => p.stablecoin === 'USDT') ?? premiums[0];
  const meaning =
    'A positive premium means KRW money is flowing into Korean crypto (dollars cost more on the exchanges than at the bank rate); a negative one means it is flowing out.';
  if (!main) return meaning;
  const side = main.premium_pct > 0 ? 'above' : main.premium_pct < 0 ? 'below' : 'level with';
  const size = main.premium_pct === 0 ? '' : `${Math.abs(main.premium_pct).toFixed(2)} % `;
  return (
    `${main.stablecoin} trades at ${main.price_krw.toLocaleString('en-US')} KRW on ${EXCHANGE_NAMES[main.exchange] ?? main.exchange}, ` +
    `${size}${side} the official rate of ${fxRate.toLocaleString('en-US')} KRW per USD. ${meaning}`
  );
}

export async function stablecoinPremiumDocument(c: DuckDBConnection, run: KoreaRun): Promise<Record<string, unknown>> {
  await requirePremiumInputs(c, 'stablecoin-premium', { global: false });
  const isStablecoin = (col: string): string => `${col} IN (${STABLECOINS.map(quote).join(', ')})`;
  if ((await countRows(c, TICKERS_SQL, isStablecoin('symbol'))) === 0) {
    throw await missingInput(c, 'stablecoin-premium', 'no USDT or USDC price on either exchange', EXCHANGES);
  }
  const asOf = await marketAsOf(c);
  const order = `list_position(['USDT', 'USDC'], t.symbol), ${exchangeRankSql('t.exchange')}`;
  const body = await queryDocument(
    c,
    `WITH t AS (SELECT t.*, fx.rate AS fx_rate,
                       ${rateApartReasonSql(`'the ' || t.exchange || ' ' || t.symbol || ' price'`, 't.as_of', 'fx.provider', 'fx.as_of')} AS stale_reason
                  FROM ${TICKERS_SQL} t CROSS JOIN ${FX_SQL} fx WHERE ${isStablecoin('t.symbol')})
     SELECT to_json(struct_pack(
       ${FX_FIELDS_SQL},
       premiums := coalesce((SELECT list(struct_pack(
                       stablecoin := t.symbol,
                       exchange := t.exchange,
                       price_krw := t.price_krw,
                       premium_pct := ${pctSql('t.price_krw / t.fx_rate - 1')},
                       volume_24h_krw := t.volume_24h_krw
                     ) ORDER BY ${order}) FROM t WHERE t.stale_reason IS NULL), []),
       input_window := ${INPUT_WINDOW_SQL},
       stale := coalesce((SELECT list(struct_pack(stablecoin := t.symbol, exchange := t.exchange, reason := t.stale_reason)
                                      ORDER BY ${order}) FROM t WHERE t.stale_reason IS NOT NULL), []),
       unavailable_exchanges := ${await unavailableExchangesSql(c)}
     )) AS doc`,
  );
  const premiums = body.premiums as StablecoinPremium[];
  return {
    source: run.sourceKind,
    as_of: asOf,
    ...body,
    interpretation: stablecoinInterpretation(premiums, Number(body.fx_rate)),
  };
}

export const stablecoinPremiumStep: KoreaDatasetStep = documentStep('stablecoin-premium', ['fx', 'krPrices'], stablecoinPremiumDocument);
