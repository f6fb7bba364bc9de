/**
 * The analytics dataset steps and the warehouse preparation they read.
 *
 * paymentPrepSteps run after the source's raw tables exist, before the classifier:
 *   service_registry   stable ids (kept across runs)
 *   service_catalog    listings with id, category (listed or assigned) and placeholder flag
 *   attribution        tx_attributed: payment → service, with its pair key (the classifier reads the keys)
 * labelPrepSteps run after the classifier's pair_labels, buyer_labels and seller_cohorts exist:
 *   analytics_rollups  pair_label_codes, service_buyer_stats, service_daily, service_facts, category_facts, label_summary_30d
 *   service_health     the probes, payTo integrity and trust grade per service (service-health.ts), joined into service_facts
 *   category_hourly    the 365-day hourly history (kept across runs)
 *   release_payments   drops tx_attributed: the datasets read the rollups, not the payments
 * analyticsPrepSteps is both lists in order, for a run whose labels are already there.
 */
import type { DatasetStep, PrepareStep } from '../../runner.ts';
import { attributionStep, releasePaymentsStep } from '../attribution.ts';
import { serviceCatalogStep } from '../categorize.ts';
import { serviceRegistryStep } from '../services.ts';
import { buyerProfilesStep } from './buyer-profiles.ts';
import { buyersStep } from './buyers.ts';
import { categoriesStep } from './categories.ts';
import { categoryDetailStep } from './category-detail.ts';
import { categoryHourlyStep } from './category-hourly.ts';
import { fullHistoryStep } from './full-history.ts';
import { landingStatsStep } from './landing-stats.ts';
import { operatorsStep } from './operators.ts';
import { rollupsStep } from './rollups.ts';
import { serviceDetailStep } from './service-detail.ts';
import { serviceHealthPrepStep, serviceHealthStep } from './service-health.ts';
import { servicesStep } from './services.ts';
import { transactionsStep } from './transactions.ts';
import { trendsStep } from './trends.ts';
import { washDetailStep } from './wash-detail.ts';
import { washLookupSteps } from './wash-lookups.ts';
import { washReportStep } from './wash-report.ts';

export const paymentPrepSteps: PrepareStep[] = [serviceRegistryStep, serviceCatalogStep, attributionStep];
export const labelPrepSteps: PrepareStep[] = [rollupsStep, serviceHealthPrepStep, categoryHourlyStep, releasePaymentsStep];
export const analyticsPrepSteps: PrepareStep[] = [...paymentPrepSteps, ...labelPrepSteps];

export const analyticsDatasetSteps: DatasetStep[] = [
  landingStatsStep,
  categoriesStep,
  categoryDetailStep,
  servicesStep,
  serviceHealthStep,
  serviceDetailStep,
  trendsStep,
  washReportStep,
  operatorsStep,
  washDetailStep,
  buyerProfilesStep,
  buyersStep,
  transactionsStep,
  fullHistoryStep,
  ...washLookupSteps,
];
