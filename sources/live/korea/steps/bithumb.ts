/**
 * ingest:bithumb: the legacy ALL_KRW tickers, the v1 market list (with its warnings) and the
 * 경보제 alerts, 3 requests. The three calls feed different rows: one that fails loses only its own.
 */
import { firstLine } from '../../http.ts';
import type { Row } from '../../../../lib/duckdb.ts';
import { RAW_TABLES as T } from '../../../raw-tables.ts';
import {
  activeBithumbAlerts,
  BITHUMB_ALERT_STEPS,
  bithumbAlertFlagRows,
  bithumbAlertStepRows,
  bithumbMarketRows,
  bithumbTickerRows,
  bithumbWarningFlagRows,
  fetchBithumbAlerts,
  fetchBithumbMarkets,
  fetchBithumbTickers,
} from '../bithumb.ts';
import { withUpstream } from '../clients.ts';
import { type KoreaIngestStep, StepFeeds } from '../ingest-kit.ts';

// The three Bithumb calls feed different rows: one that fails loses only its own (a failed alert
// feed keeps the prices), and is recorded under its own name.
export const bithumbStep: KoreaIngestStep = (kit) =>
  kit.step(
    'ingest:bithumb',
    [
      { table: T.kr_markets, exchange: 'bithumb' },
      { table: T.market_flags, exchange: 'bithumb' },
      { table: T.kr_tickers, exchange: 'bithumb' },
      { table: BITHUMB_ALERT_STEPS },
    ],
    ['bithumb', 'bithumb:markets', 'bithumb:alerts'],
    async (ctx) => {
      const [tickers, markets, alerts] = await withUpstream(kit.client('bithumb'), kit.budget(ctx), ctx.log, (up) =>
        Promise.allSettled([fetchBithumbTickers(up), fetchBithumbMarkets(up), fetchBithumbAlerts(up)]),
      );
      const feeds = new StepFeeds(ctx);
      if (tickers.status === 'fulfilled') {
        await feeds.skipped('bithumb', 'tickers', tickers.value);
        if (tickers.value.stampMs === null)
          ctx.log('bithumb: ALL_KRW answered without data.date; its prices are stamped with the time received');
        const tickerRows = bithumbTickerRows(tickers.value, ctx.now);
        if (tickerRows.length === 0) await feeds.failed('bithumb', 'bithumb: ALL_KRW answered no KRW ticker that could be read');
        else feeds.write({ table: T.kr_tickers, exchange: 'bithumb', rows: tickerRows });
        ctx.log(`bithumb: ${tickerRows.length} tickers`);
      } else await feeds.failed('bithumb', firstLine(tickers.reason));

      const flagRows: Row[] = [];
      if (markets.status === 'fulfilled') {
        await feeds.skipped('bithumb:markets', 'markets', markets.value);
        const marketRows = bithumbMarketRows(markets.value.rows, ctx.now);
        const warnings = bithumbWarningFlagRows(markets.value.rows, ctx.now);
        for (const note of warnings.unknown) ctx.log(`bithumb: ${note}`);
        if (marketRows.length === 0) await feeds.failed('bithumb:markets', 'bithumb: the market list has no KRW market');
        else feeds.write({ table: T.kr_markets, exchange: 'bithumb', rows: marketRows });
        flagRows.push(...warnings.flags);
        ctx.log(`bithumb: ${marketRows.length} KRW markets, ${warnings.flags.length} market warnings`);
      } else await feeds.failed('bithumb:markets', firstLine(markets.reason));
      if (alerts.status === 'fulfilled') {
        await feeds.skipped('bithumb:alerts', 'alerts', alerts.value);
        const { active, expired, unknown } = activeBithumbAlerts(alerts.value.rows, ctx.now);
        for (const note of unknown) ctx.log(`bithumb: ${note}`);
        if (expired.length)
          ctx.log(`bithumb: ${expired.length} alerts past their end date are not active: ${expired.slice(0, 5).join(', ')}`);
        flagRows.push(...bithumbAlertFlagRows(active, ctx.now));
        feeds.write({ table: BITHUMB_ALERT_STEPS, rows: bithumbAlertStepRows(active, ctx.now) });
        ctx.log(`bithumb: ${active.length} active alerts`);
      } else await feeds.failed('bithumb:alerts', firstLine(alerts.reason));
      if (markets.status === 'fulfilled' || alerts.status === 'fulfilled') {
        feeds.write({ table: T.market_flags, exchange: 'bithumb', rows: flagRows });
      }
      return feeds.finish();
    },
  );
