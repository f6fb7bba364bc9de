/**
 * The korea market pipeline: raw tables from the source, then one step per dataset.
 */
import { koreaWorld } from '../../sources/demo/korea-world.ts';
import { RAW_TABLES } from '../../sources/raw-tables.ts';
import { unsupportedSource, worldIngestSteps } from '../ingest.ts';
import type { ServicePipeline, SourceSpec } from '../runner.ts';
import { fxRateStep } from './fx-rate.ts';
import { krPricesStep } from './kr-prices.ts';
import { statsStep } from './stats.ts';
import { symbolsStep } from './symbols.ts';

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
  ingestSteps(source: SourceSpec) {
    if (source.kind === 'demo') {
      return worldIngestSteps(KOREA_RAW, (ctx) => koreaWorld({ seed: ctx.seed, now: ctx.now, scale: ctx.scale }));
    }
    if (source.kind === 'live') return unsupportedSource('korea', 'live', 'the Upbit/Bithumb/Binance/FX/FRED/Naver adapters land with the korea market pipeline issue');
    return unsupportedSource('korea', `file:${source.dir}`, 'the korea service reads demo or live data only');
  },
  // stats last: it reports the other datasets of the run
  datasetSteps: [krPricesStep, fxRateStep, symbolsStep, statsStep],
};
