/** ingest:fx_rates: USD/KRW from Dunamu (Hana Bank base rate), er-api when Dunamu fails, 1 (2) requests. */
import { RAW_TABLES as T } from '../../../raw-tables.ts';
import { withUpstream } from '../clients.ts';
import { fetchDunamuUsdKrw } from '../dunamu.ts';
import { fetchErApiUsdKrw } from '../er-api.ts';
import { firstAnswer, type KoreaIngestStep } from '../ingest-kit.ts';
import { replaceRows } from '../raw-rows.ts';

export const fxRatesStep: KoreaIngestStep = (kit) =>
  kit.step('ingest:fx_rates', [{ table: T.fx_rates }], ['dunamu', 'er-api'], async (ctx) => {
    const answer = await firstAnswer(ctx, 'USD/KRW', [
      {
        upstream: 'dunamu',
        rows: () =>
          withUpstream(kit.client('dunamu'), kit.budget(ctx), ctx.log, async (up) => {
            const { row, note } = await fetchDunamuUsdKrw(up, ctx.now);
            if (note) ctx.log(note);
            return [row];
          }),
      },
      {
        upstream: 'er-api',
        rows: () => withUpstream(kit.client('er-api'), kit.budget(ctx), ctx.log, async (up) => [await fetchErApiUsdKrw(up)]),
      },
    ]);
    return replaceRows(ctx.connection, [{ table: T.fx_rates, rows: answer.rows }]);
  });
