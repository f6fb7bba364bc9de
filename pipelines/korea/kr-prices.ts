/** kr-prices: the last KRW price per symbol and exchange with 24h change and KRW volume. */
import type { DatasetStep } from '../runner.ts';
import { queryJson } from '../warehouse.ts';

export const krPricesStep: DatasetStep = {
  dataset: 'kr-prices',
  async run(ctx) {
    const [{ as_of: asOf } = { as_of: null }] = await queryJson(ctx.connection, `SELECT strftime(max(as_of), '%Y-%m-%dT%H:%M:%SZ') AS as_of FROM kr_tickers`);
    if (!asOf) throw new Error('kr_tickers is empty: no exchange prices in this run');
    return ctx.writer.writeTable(
      ctx.connection,
      'kr-prices',
      `SELECT symbol, exchange, price_krw, change_24h_pct, volume_24h_krw, as_of, source
         FROM kr_tickers
        ORDER BY symbol, exchange`,
      ctx.meta('kr-prices', String(asOf)),
    );
  },
};
