/**
 * ingest:global_prices: the global reference prices from Binance and OKX, 1 request each. The
 * premiums use Binance (OKX when Binance fails, e.g. 451); the Korea index weights both by their
 * 24-hour USD volume. The step fails only when neither answered; each failure is recorded under
 * its own name.
 */
import { RAW_TABLES as T } from '../../../raw-tables.ts';
import { binancePriceRows, fetchBinanceTickers } from '../binance.ts';
import { withUpstream } from '../clients.ts';
import { type KoreaIngestStep, noteSkipped } from '../ingest-kit.ts';
import { recordIngestFailure } from '../ingest-failures.ts';
import { fetchOkxTickers, okxPriceRows } from '../okx.ts';
import { replaceRows } from '../raw-rows.ts';
import { firstLine } from '../../http.ts';

export const globalPricesStep: KoreaIngestStep = (kit) =>
  kit.step('ingest:global_prices', [{ table: T.global_prices }], ['binance', 'okx'], async (ctx) => {
    const venues = [
      {
        upstream: 'binance' as const,
        rows: () =>
          withUpstream(kit.client('binance'), kit.budget(ctx), ctx.log, async (up) => {
            const read = await fetchBinanceTickers(up);
            await noteSkipped(ctx, 'binance', 'tickers', read);
            return binancePriceRows(read.rows);
          }),
      },
      {
        upstream: 'okx' as const,
        rows: () =>
          withUpstream(kit.client('okx'), kit.budget(ctx), ctx.log, async (up) => {
            const read = await fetchOkxTickers(up);
            await noteSkipped(ctx, 'okx', 'tickers', read);
            return okxPriceRows(read.rows);
          }),
      },
    ];
    const answers = await Promise.allSettled(venues.map((v) => v.rows()));
    const problems: string[] = [];
    const rows = [];
    for (const [i, answer] of answers.entries()) {
      const { upstream } = venues[i]!;
      const problem =
        answer.status === 'rejected'
          ? firstLine(answer.reason)
          : answer.value.length === 0
            ? `${upstream}: answered no usable global prices`
            : null;
      if (problem) {
        problems.push(problem);
        await recordIngestFailure(ctx.connection, upstream, problem, ctx.now);
      } else if (answer.status === 'fulfilled') {
        rows.push(...answer.value);
        ctx.log(`global prices: ${answer.value.length} USDT pairs from ${upstream}`);
      }
    }
    if (rows.length === 0) throw new Error(`global prices unavailable: ${problems.join('; ')}`);
    return replaceRows(ctx.connection, [{ table: T.global_prices, rows }]);
  });
