/** ingest:global_prices: the global reference prices from Binance, OKX when Binance fails (e.g. 451), 1 (2) requests. */
import { RAW_TABLES as T } from '../../../raw-tables.ts';
import { binancePriceRows, fetchBinanceTickers } from '../binance.ts';
import { withUpstream } from '../clients.ts';
import { firstAnswer, type KoreaIngestStep, noteSkipped } from '../ingest-kit.ts';
import { fetchOkxTickers, okxPriceRows } from '../okx.ts';
import { replaceRows } from '../raw-rows.ts';

export const globalPricesStep: KoreaIngestStep = (kit) =>
  kit.step('ingest:global_prices', [{ table: T.global_prices }], ['binance', 'okx'], async (ctx) => {
    const answer = await firstAnswer(ctx, 'global prices', [
      {
        upstream: 'binance',
        rows: () =>
          withUpstream(kit.client('binance'), kit.budget(ctx), ctx.log, async (up) => {
            const read = await fetchBinanceTickers(up);
            await noteSkipped(ctx, 'binance', 'tickers', read);
            return binancePriceRows(read.rows);
          }),
      },
      {
        upstream: 'okx',
        rows: () =>
          withUpstream(kit.client('okx'), kit.budget(ctx), ctx.log, async (up) => {
            const read = await fetchOkxTickers(up);
            await noteSkipped(ctx, 'okx', 'tickers', read);
            return okxPriceRows(read.rows);
          }),
      },
    ]);
    ctx.log(`global prices: ${answer.rows.length} USDT pairs from ${answer.upstream}`);
    return replaceRows(ctx.connection, [{ table: T.global_prices, rows: answer.rows }]);
  });
