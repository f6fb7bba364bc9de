/**
 * ingest:candles_1m: Upbit 1-minute candles of the top markets by KRW volume, with what is left of
 * the run's request budget (1 to 5 requests). Stablecoins are quotes, not movers: they get none.
 */
import { firstLine } from '../../http.ts';
import { queryJson, type Row } from '../../../../lib/duckdb.ts';
import { RAW_TABLES as T } from '../../../raw-tables.ts';
import { withUpstream } from '../clients.ts';
import { ingestFailureReason } from '../ingest-failures.ts';
import { type KoreaIngestStep, noteSkipped, recorded } from '../ingest-kit.ts';
import { ensureRawTable, replaceRows } from '../raw-rows.ts';
import { fetchUpbitCandles, upbitCandleRows, upbitCooloff } from '../upbit.ts';
import { upbitBanned } from './upbit.ts';

const CANDLE_EXCLUDED = ['USDT', 'USDC'];

export const candlesStep: KoreaIngestStep = (kit) =>
  kit.step('ingest:candles_1m', [{ table: T.candles_1m }], ['candles:upbit'], (ctx) =>
    recorded(ctx, 'candles:upbit', async () => {
      const cooling = await upbitCooloff(ctx.connection, ctx.now);
      if (cooling) throw new Error(cooling);
      const b = kit.budget(ctx);
      const count = Math.min(kit.options.candles.maxMarkets, Math.max(1, b.remaining));
      await ensureRawTable(ctx.connection, T.kr_tickers);
      const top = await queryJson(
        ctx.connection,
        `SELECT symbol FROM kr_tickers
        WHERE exchange = 'upbit' AND symbol NOT IN (${CANDLE_EXCLUDED.map((s) => `'${s}'`).join(', ')})
        ORDER BY volume_24h_krw DESC, symbol LIMIT ${count}`,
      );
      if (top.length === 0) {
        const reason = await ingestFailureReason(ctx.connection, ['upbit']);
        throw new Error(
          `candles:upbit: no Upbit tickers in this run to pick the top markets by volume from${reason ? ` (${reason})` : ''}`,
        );
      }
      const markets = top.map((r) => `KRW-${String(r.symbol)}`);
      const results = await withUpstream(kit.client('upbit-candles'), b, ctx.log, (up) =>
        Promise.allSettled(markets.map((m) => fetchUpbitCandles(up, m, kit.options.candles.minutes))),
      );
      const rows: Row[] = [];
      const problems: string[] = [];
      const banned = await upbitBanned(ctx, results);
      if (banned) throw new Error(banned);
      const candleRows = { total: 0, skipped: [] as string[] };
      for (const [i, r] of results.entries()) {
        if (r.status === 'fulfilled') {
          rows.push(...upbitCandleRows(r.value.rows, ctx.now));
          candleRows.total += r.value.total;
          candleRows.skipped.push(...r.value.skipped.map((p) => `${markets[i]} ${p}`));
        } else problems.push(`${markets[i]}: ${firstLine(r.reason)}`);
      }
      await noteSkipped(ctx, 'candles:upbit', 'candles', candleRows);
      for (const p of problems) ctx.log(`candles:upbit: skipped ${p}`);
      if (problems.length === markets.length) throw new Error(`candles:upbit: every candle request failed: ${problems.join('; ')}`);
      ctx.log(
        `candles:upbit: ${rows.length} closed 1-minute candles for ${markets.length - problems.length} of the top ${markets.length} markets (${markets.join(', ')}); run requests: ${b.describe()}`,
      );
      return replaceRows(ctx.connection, [{ table: T.candles_1m, rows }]);
    }),
  );
