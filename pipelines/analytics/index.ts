/**
 * The analytics pipeline: x402 services, transactions, wallet funding and exchange wallets from
 * the source; then, prepared for the datasets, service ids, categories and the attribution of
 * every payment, the buyer classification, the rollups and hourly history; then one step per
 * dataset.
 */
import { analyticsIngestSteps } from '../../sources/analytics.ts';
import { queryJson } from '../../lib/duckdb.ts';
import type { PrepareStep, ServicePipeline } from '../runner.ts';
import { classify } from '../../classifier/index.ts';
import { analyticsDatasetSteps, labelPrepSteps, paymentPrepSteps } from './datasets/index.ts';

const classifyStep: PrepareStep = {
  name: 'classify',
  // Dropped before the run: a failed classification must not leave last run's labels in place.
  tables: ['pair_labels', 'buyer_labels', 'seller_cohorts', 'seller_state', 'funding_stops'],
  async run(ctx) {
    // the attribution step's pair keys spare the classifier a pass over the payments' addresses
    const [attributed] = await queryJson(
      ctx.connection,
      `SELECT count(*)::INTEGER AS n FROM duckdb_tables() WHERE temporary AND table_name = 'tx_attributed'`,
    );
    const paymentKeys = Number(attributed?.n ?? 0) > 0 ? 'SELECT pk, time FROM tx_attributed' : undefined;
    const stats = await classify(ctx.connection, { now: ctx.now, paymentKeys });
    return stats.buyers;
  },
};

export const analyticsPipeline: ServicePipeline = {
  service: 'analytics',
  updateEverySeconds: 3600,
  ingestSteps: analyticsIngestSteps,
  prepareSteps: [...paymentPrepSteps, classifyStep, ...labelPrepSteps],
  datasetSteps: analyticsDatasetSteps,
};
