/** fx-rate: USD/KRW (KRW per 1 USD) with its provider and the provider's time of the rate. */
import { queryJson } from '../../../lib/duckdb.ts';
import { FX_SQL, FX_UPSTREAMS } from '../premiums.ts';
import { ensureRawTables, isoSql, missingInput, type KoreaDatasetStep } from '../sql.ts';

export const fxRateStep: KoreaDatasetStep = {
  dataset: 'fx-rate',
  reads: ['fx'],
  async run(ctx) {
    await ensureRawTables(ctx.connection);
    const [fx] = await queryJson(ctx.connection, `SELECT rate, provider, ${isoSql('as_of')} AS as_of FROM ${FX_SQL}`);
    if (!fx) throw await missingInput(ctx.connection, 'fx-rate', 'no USD/KRW rate (fx_rates has no USDKRW row)', FX_UPSTREAMS);
    const doc = {
      pair: 'USDKRW',
      rate: Number(fx.rate),
      unit: 'KRW per 1 USD',
      provider: String(fx.provider),
      as_of: String(fx.as_of),
      source: ctx.sourceKind,
    };
    return ctx.writer.writeDocument('fx-rate', doc, ctx.meta('fx-rate', doc.as_of));
  },
};
