/**
 * The analytics dataset steps and the warehouse preparation they read.
 *
 * analyticsPrepSteps run after the source's raw tables and the classifier's pair_labels,
 * buyer_labels and seller_cohorts exist, in this order:
 *   service_registry   stable ids (kept across runs)
 *   service_catalog    listings with id, category (listed or assigned) and placeholder flag
 *   attribution        tx_attributed: payment → service, with the pair label
 *   analytics_rollups  service_buyer_stats, service_daily, service_facts, category_facts, label_summary_30d
 *   category_hourly    the 365-day hourly history (kept across runs)
 * Only attribution and the steps after it read the classifier's tables.
 */
import type { DatasetStep, IngestStep } from '../../runner.ts';
import { attributionStep } from '../attribution.ts';
import { serviceCatalogStep } from '../categorize.ts';
import { serviceRegistryStep } from '../services.ts';
import { buyerProfilesStep } from './buyer-profiles.ts';
import { buyersStep } from './buyers.ts';
import { categoriesStep } from './categories.ts';
import { categoryDetailStep } from './category-detail.ts';
import { categoryHourlyStep } from './category-hourly.ts';
import { fullHistoryStep } from './full-history.ts';
import { landingStatsStep } from './landing-stats.ts';
import { rollupsStep } from './rollups.ts';
import { serviceDetailStep } from './service-detail.ts';
import { servicesStep } from './services.ts';
import { transactionsStep } from './transactions.ts';
import { trendsStep } from './trends.ts';
import { washDetailStep } from './wash-detail.ts';
import { washReportStep } from './wash-report.ts';

export const analyticsPrepSteps: IngestStep[] = [
  serviceRegistryStep,
  serviceCatalogStep,
  attributionStep,
  rollupsStep,
  categoryHourlyStep,
];

export const analyticsDatasetSteps: DatasetStep[] = [
  landingStatsStep,
  categoriesStep,
  categoryDetailStep,
  servicesStep,
  serviceDetailStep,
  trendsStep,
  washReportStep,
  washDetailStep,
  buyerProfilesStep,
  buyersStep,
  transactionsStep,
  fullHistoryStep,
];

export {
  attributionStep,
  buyerProfilesStep,
  buyersStep,
  categoriesStep,
  categoryDetailStep,
  categoryHourlyStep,
  fullHistoryStep,
  landingStatsStep,
  rollupsStep,
  serviceCatalogStep,
  serviceDetailStep,
  serviceRegistryStep,
  servicesStep,
  transactionsStep,
  trendsStep,
  washDetailStep,
  washReportStep,
};
