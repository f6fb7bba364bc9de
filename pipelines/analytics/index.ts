/**
 * The analytics pipeline: x402 services, transactions, wallet funding and exchange wallets from
 * the source; then, prepared for the datasets, service ids, categories and the attribution of
 * every payment, the buyer classification, the rollups and hourly history; then one step per
 * dataset.
 */
import { analyticsIngestSteps } from '../../sources/analytics.ts';
import type { ServicePipeline } from '../runner.ts';
import { classifyStep, cohortStateAsOf } from './labels.ts';
import { ANALYTICS_PAYMENT_DATASETS } from '../../catalog/datasets.ts';
import { analyticsDatasetSteps, labelPrepSteps, paymentPrepSteps } from './datasets/index.ts';
import { serviceHealthPrepStep } from './datasets/service-health.ts';

export const analyticsPipeline: ServicePipeline = {
  service: 'analytics',
  updateEverySeconds: 3600,
  cohortStateAsOf,
  ingestSteps: analyticsIngestSteps,
  // the 10-minute probe run (--datasets service-health) skips every step but service_health's
  prepareSteps: [...paymentPrepSteps, classifyStep, ...labelPrepSteps].map((step) =>
    step === serviceHealthPrepStep ? step : { ...step, datasets: ANALYTICS_PAYMENT_DATASETS },
  ),
  datasetSteps: analyticsDatasetSteps,
};
