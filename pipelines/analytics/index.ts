/**
 * The analytics pipeline: x402 services, transactions, wallet funding and exchange wallets from
 * the source; then, prepared for the datasets, service ids, categories and the attribution of
 * every payment, the buyer classification, the rollups and hourly history; then one step per
 * dataset.
 */
import { analyticsIngestSteps } from '../../sources/analytics.ts';
import type { ServicePipeline } from '../runner.ts';
import { classifyStep, cohortStateAsOf } from './labels.ts';
import { analyticsDatasetSteps, labelPrepSteps, paymentPrepSteps } from './datasets/index.ts';

export const analyticsPipeline: ServicePipeline = {
  service: 'analytics',
  updateEverySeconds: 3600,
  cohortStateAsOf,
  ingestSteps: analyticsIngestSteps,
  prepareSteps: [...paymentPrepSteps, classifyStep, ...labelPrepSteps],
  datasetSteps: analyticsDatasetSteps,
};
