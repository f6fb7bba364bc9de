/**
 * The korea service's sources: which ingest steps fill its raw tables for each kind of source.
 */
import type { Settings } from '../lib/config.ts';
import { unsupportedSource, type IngestStep, type SourceSpec } from './contract.ts';
import { worldIngestSteps } from './demo/ingest.ts';
import { demoPremiumHistoryStep } from './demo/korea/premium-history.ts';
import { koreaWorld } from './demo/korea/world.ts';
import { koreaLiveIngestSteps } from './live/korea/index.ts';
import { newsIngestStep } from './live/korea/news/index.ts';
import { RAW_TABLES } from './raw-tables.ts';

const KOREA_RAW = [
  ['kr_markets', RAW_TABLES.kr_markets],
  ['kr_tickers', RAW_TABLES.kr_tickers],
  ['global_prices', RAW_TABLES.global_prices],
  ['fx_rates', RAW_TABLES.fx_rates],
  ['candles_1m', RAW_TABLES.candles_1m],
  ['market_flags', RAW_TABLES.market_flags],
  ['macro_daily', RAW_TABLES.macro_daily],
  ['news_articles', RAW_TABLES.news_articles],
  ['order_books', RAW_TABLES.order_books],
  ['wallet_status', RAW_TABLES.wallet_status],
] as const;

export function koreaIngestSteps(source: SourceSpec, settings: Settings): IngestStep[] {
  switch (source.kind) {
    case 'demo':
      return [
        ...worldIngestSteps(KOREA_RAW, (ctx) => koreaWorld({ seed: ctx.seed, now: ctx.now, scale: ctx.scale })),
        demoPremiumHistoryStep,
      ];
    case 'live':
      return [...koreaLiveIngestSteps(settings), newsIngestStep(settings)];
    case 'file':
      return unsupportedSource('korea', `file:${source.dir}`, 'the korea service reads demo or live data only');
  }
}
