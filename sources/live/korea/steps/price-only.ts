/**
 * ingest:coinone and ingest:korbit: every KRW ticker of the exchange, 1 request each (Coinone's
 * public API v2 allows 1,200 requests/min per IP, Korbit's Open API v2 50 requests/s). Prices
 * only: these two feed the premiums, the Korea index and the archive, not the market lists,
 * flags or candles (Upbit and Bithumb give those).
 */
import type { Row } from '../../../../lib/duckdb.ts';
import { firstLine, type Upstream } from '../../http.ts';
import { RAW_TABLES as T } from '../../../raw-tables.ts';
import { withUpstream } from '../clients.ts';
import { coinoneTickerRows, fetchCoinoneTickers } from '../coinone.ts';
import { type KoreaIngestStep, StepFeeds } from '../ingest-kit.ts';
import { fetchKorbitTickers, korbitTickerRows } from '../korbit.ts';
import type { RowsRead } from '../lenient.ts';

function priceOnlyStep<T>(
  exchange: 'coinone' | 'korbit',
  fetch: (up: Upstream) => Promise<RowsRead<T>>,
  toRows: (tickers: readonly T[]) => Row[],
): KoreaIngestStep {
  return (kit) =>
    kit.step(`ingest:${exchange}`, [{ table: T.kr_tickers, exchange }], [exchange], async (ctx) => {
      const feeds = new StepFeeds(ctx);
      try {
        const tickers = await withUpstream(kit.client(exchange), kit.budget(ctx), ctx.log, fetch);
        await feeds.skipped(exchange, 'tickers', tickers);
        const rows = toRows(tickers.rows);
        if (rows.length === 0) await feeds.failed(exchange, `${exchange}: answered no KRW ticker that could be read`);
        else feeds.write({ table: T.kr_tickers, exchange, rows });
        ctx.log(`${exchange}: ${rows.length} tickers`);
      } catch (err) {
        await feeds.failed(exchange, firstLine(err));
      }
      return feeds.finish();
    });
}

export const coinoneStep = priceOnlyStep('coinone', (up) => fetchCoinoneTickers(up), coinoneTickerRows);
export const korbitStep = priceOnlyStep('korbit', (up) => fetchKorbitTickers(up), korbitTickerRows);
