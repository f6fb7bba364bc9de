/**
 * kr-prices (table): the last KRW price per symbol and exchange with 24h change and KRW volume,
 * when its last trade was and how old that makes the price (stale past PREMIUM_INPUT_WINDOW's
 * trade minutes: shown, but no premium rests on it). One exchange down still publishes the other's prices.
 */
import { TICKERS_SQL, marketAsOf, tradeStaleSql } from '../premiums.ts';
import { EXCHANGES, countRows, ensureRawTables, exchangeRankSql, missingInput, type KoreaDatasetStep } from '../sql.ts';

export const krPricesStep: KoreaDatasetStep = {
  dataset: 'kr-prices',
  reads: ['krPrices'],
  async run(ctx) {
    const c = ctx.connection;
    await ensureRawTables(c);
    if ((await countRows(c, 'kr_tickers', 'price_krw > 0')) === 0) {
      throw await missingInput(c, 'kr-prices', 'no Korean exchange prices (kr_tickers is empty)', EXCHANGES);
    }
    return ctx.writer.writeTable(
      c,
      'kr-prices',
      `SELECT symbol, exchange, price_krw, change_24h_pct, volume_24h_krw, as_of, last_trade_at,
              (epoch(as_of) - epoch(last_trade_at))::BIGINT AS trade_age_seconds,
              coalesce(${tradeStaleSql('as_of', 'last_trade_at')}, false) AS stale, source
         FROM ${TICKERS_SQL}
        ORDER BY symbol, ${exchangeRankSql('exchange')}`,
      ctx.meta('kr-prices', await marketAsOf(c)),
    );
  },
};
