/**
 * ingest:upbit: the Upbit market list (with market_event flags) and the KRW tickers, 2 requests.
 * After a 418 ban no Upbit request is made until the cool-off ends (live_upstream_cooloff).
 */
import { firstLine } from '../../http.ts';
import type { IngestContext } from '../../../contract.ts';
import { RAW_TABLES as T } from '../../../raw-tables.ts';
import { withUpstream } from '../clients.ts';
import { type KoreaIngestStep, StepFeeds } from '../ingest-kit.ts';
import { INGEST_FAILURES, INGEST_SKIPPED_ROWS, recordIngestFailure } from '../ingest-failures.ts';
import {
  fetchUpbitMarkets,
  fetchUpbitTickers,
  isUpbitBan,
  startUpbitCooloff,
  upbitCooloff,
  upbitMarketRows,
  upbitTickerRows,
} from '../upbit.ts';

export const upbitStep: KoreaIngestStep = (kit) =>
  kit.step(
    'ingest:upbit',
    [
      { table: T.kr_markets, exchange: 'upbit' },
      { table: T.market_flags, exchange: 'upbit' },
      { table: T.kr_tickers, exchange: 'upbit' },
    ],
    ['upbit', 'upbit:markets'],
    async (ctx) => {
      const cooling = await upbitCooloff(ctx.connection, ctx.now);
      if (cooling) {
        await recordIngestFailure(ctx.connection, 'upbit', cooling, ctx.now);
        throw new Error(cooling);
      }
      const [markets, tickers] = await withUpstream(kit.client('upbit'), kit.budget(ctx), ctx.log, (up) =>
        Promise.allSettled([fetchUpbitMarkets(up), fetchUpbitTickers(up)]),
      );
      const banned = await upbitBanned(ctx, [markets, tickers]);
      const feeds = new StepFeeds(ctx);
      if (markets.status === 'fulfilled') {
        await feeds.skipped('upbit:markets', 'markets', markets.value);
        const m = upbitMarketRows(markets.value.rows, ctx.now);
        for (const note of m.unknown) ctx.log(`upbit: ${note}`);
        if (m.markets.length === 0) await feeds.failed('upbit:markets', 'upbit: the market list has no KRW market');
        else
          feeds.write(
            { table: T.kr_markets, exchange: 'upbit', rows: m.markets },
            { table: T.market_flags, exchange: 'upbit', rows: m.flags },
          );
        ctx.log(`upbit: ${m.markets.length} KRW markets, ${m.flags.length} flags raised`);
      } else await feeds.failed('upbit:markets', banned ?? firstLine(markets.reason));
      if (tickers.status === 'fulfilled') {
        await feeds.skipped('upbit', 'tickers', tickers.value);
        const tickerRows = upbitTickerRows(tickers.value.rows);
        if (tickerRows.length === 0) await feeds.failed('upbit', 'upbit: answered no KRW ticker that could be read');
        else feeds.write({ table: T.kr_tickers, exchange: 'upbit', rows: tickerRows });
        ctx.log(`upbit: ${tickerRows.length} tickers`);
      } else await feeds.failed('upbit', banned ?? firstLine(tickers.reason));
      return feeds.finish();
    },
    // ingest_failures and ingest_skipped_rows are dropped with the run's raw tables: a new run starts with none.
    [INGEST_FAILURES.name, INGEST_SKIPPED_ROWS.name],
  );

/**
 * After a 418 no Upbit request is made until the cool-off ends: starts it and returns the
 * message that says until when, or null when no call was banned.
 */
export async function upbitBanned(ctx: IngestContext, calls: ReadonlyArray<PromiseSettledResult<unknown>>): Promise<string | null> {
  const ban = calls.find((c): c is PromiseRejectedResult => c.status === 'rejected' && isUpbitBan(c.reason));
  if (!ban) return null;
  const until = await startUpbitCooloff(ctx.connection, ctx.now, firstLine(ban.reason));
  return `${firstLine(ban.reason)}; Upbit banned this IP for exceeding the rate limit: no Upbit request until ${until.toISOString()}`;
}
