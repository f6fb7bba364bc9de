/**
 * The korea market pipeline: raw tables from the source, the news store and its translations,
 * then one step per dataset.
 */
import { koreaIngestSteps } from '../../sources/korea.ts';
import type { ServicePipeline } from '../runner.ts';
import { archiveRepairStep } from './archive-repair.ts';
import { newsTranslationStep } from './datasets/ai-products.ts';
import { koreaDatasetSteps } from './datasets/index.ts';
import { newsStoreStep } from './news-store.ts';
import { plausibilityStep } from './plausibility.ts';
import { runPictureStep } from './run-picture.ts';

export const koreaPipeline: ServicePipeline = {
  service: 'korea',
  updateEverySeconds: 60,
  ingestSteps: koreaIngestSteps,
  // Every source's news_articles are merged into the kept news store (news-store.ts), and their
  // translation starts while the market datasets are computed (ai-products.ts). The inputs are
  // held against their bounds before any dataset reads them (plausibility.ts).
  // The run's picture (one price snapshot, FX rate and article set) is named for the manifest (run-picture.ts).
  // First, once per warehouse: archived minutes recorded from refused inputs are dropped (archive-repair.ts).
  prepareSteps: [archiveRepairStep, plausibilityStep, newsStoreStep, newsTranslationStep, runPictureStep],
  // one step per dataset, stats last, each refused while an input it reads is (datasets.ts)
  datasetSteps: koreaDatasetSteps,
};
