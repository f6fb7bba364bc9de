/** fx-rate: USD/KRW (KRW per 1 USD) with its provider and time. */
import type { DatasetStep } from '../runner.ts';
import { queryJson } from '../warehouse.ts';

export const fxRateStep: DatasetStep = {
  dataset: 'fx-rate',
  async run(ctx) {
    const rows = await queryJson(
      ctx.connection,
      `SELECT pair, rate, provider, strftime(as_of, '%Y-%m-%dT%H:%M:%SZ') AS as_of, source
         FROM fx_rates WHERE pair = 'USDKRW' ORDER BY as_of DESC, provider LIMIT 1`,
    );
    const fx = rows[0];
    if (!fx) throw new Error('fx_rates has no USDKRW row in this run');
    const doc = {
      pair: 'USDKRW',
      rate: Number(fx.rate),
      unit: 'KRW per 1 USD',
      provider: String(fx.provider),
      as_of: String(fx.as_of),
      source: String(fx.source),
    };
    return ctx.writer.writeDocument('fx-rate', doc, ctx.meta('fx-rate', doc.as_of));
  },
};
