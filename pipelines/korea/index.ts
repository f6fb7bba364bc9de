/**
 * The korea market pipeline: raw tables from the source, then one step per dataset.
 */
import type { Settings } from '../../lib/config.ts';
import { koreaWorld } from '../../sources/demo/korea-world.ts';
import { koreaLiveIngestSteps } from '../../sources/live/korea/index.ts';
import { newsIngestStep } from '../../sources/live/korea/news/index.ts';
import { RAW_TABLES } from '../../sources/raw-tables.ts';
import { unsupportedSource, worldIngestSteps } from '../ingest.ts';
import type { ServicePipeline, SourceSpec } from '../runner.ts';
import { koreaDatasetSteps } from './datasets.ts';
import { newsTranslationStep } from './ai-products.ts';
import { newsStoreStep } from './news-store.ts';

const KOREA_RAW = [
  ['kr_markets', RAW_TABLES.kr_markets],
  ['kr_tickers', RAW_TABLES.kr_tickers],
  ['global_prices', RAW_TABLES.global_prices],
  ['fx_rates', RAW_TABLES.fx_rates],
  ['candles_1m', RAW_TABLES.candles_1m],
  ['market_flags', RAW_TABLES.market_flags],
  ['macro_daily', RAW_TABLES.macro_daily],
  ['news_articles', RAW_TABLES.news_articles],
] as const;

export const koreaPipeline: ServicePipeline = {
  service: 'korea',
  updateEverySeconds: 60,
  ingestSteps(source: SourceSpec, settings: Settings) {
    // Every source's news_articles are merged into the kept news store (news-store.ts), and their
    // translation starts while the market datasets are computed (ai-products.ts).
    const news = [newsStoreStep, newsTranslationStep];
    if (source.kind === 'demo') {
      return [...worldIngestSteps(KOREA_RAW, (ctx) => koreaWorld({ seed: ctx.seed, now: ctx.now, scale: ctx.scale })), ...news];
    }
    if (source.kind === 'live') return [...koreaLiveIngestSteps(settings), newsIngestStep(settings), ...news];
    return unsupportedSource('korea', `file:${source.dir}`, 'the korea service reads demo or live data only');
  },
  // one step per dataset, stats last (datasets.ts)
  datasetSteps: koreaDatasetSteps,
};
