/**
 * The analytics pipeline: x402 services, transactions and wallet funding from the source, then
 * one step per dataset.
 */
import { x402World } from '../../sources/demo/x402-world.ts';
import { DEMO_TRUTH_TABLES, RAW_TABLES } from '../../sources/raw-tables.ts';
import { unsupportedSource, worldIngestSteps } from '../ingest.ts';
import type { ServicePipeline, SourceSpec } from '../runner.ts';
import { serviceRegistryStep, servicesStep } from './services.ts';

const ANALYTICS_RAW = [
  ['services', RAW_TABLES.x402_services],
  ['transactions', RAW_TABLES.x402_transactions],
  ['funding', RAW_TABLES.wallet_funding],
  // The planted truth stays in the warehouse for evaluation; no step publishes it.
  ['truthBuyers', DEMO_TRUTH_TABLES.demo_truth_buyers],
  ['truthPairs', DEMO_TRUTH_TABLES.demo_truth_pairs],
] as const;

export const analyticsPipeline: ServicePipeline = {
  service: 'analytics',
  updateEverySeconds: 3600,
  ingestSteps(source: SourceSpec) {
    if (source.kind === 'demo') {
      const steps = worldIngestSteps(ANALYTICS_RAW, (ctx) => x402World({ seed: ctx.seed, now: ctx.now, scale: ctx.scale }));
      return [...steps, serviceRegistryStep];
    }
    if (source.kind === 'live') return unsupportedSource('analytics', 'live', 'the discovery crawler and chain indexers land with the analytics pipeline issue');
    return unsupportedSource('analytics', `file:${source.dir}`, 'the CSV/Parquet import lands with the analytics pipeline issue');
  },
  datasetSteps: [servicesStep],
};
