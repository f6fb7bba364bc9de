/**
 * The analytics service's sources: which ingest steps fill its raw tables (x402_services,
 * x402_transactions, wallet_funding, x402_probes, exchange_wallets) for each kind of source.
 */
import type { Settings } from '../lib/config.ts';
import type { IngestStep, SourceSpec } from './contract.ts';
import { worldIngestSteps } from './demo/ingest.ts';
import { exchangeWalletRows } from './demo/analytics/addresses.ts';
import { x402World } from './demo/analytics/world.ts';
import { fileIngestSteps, importReportStep } from './file/analytics-files.ts';
import { liveIngestSteps } from './live/analytics/index.ts';
import { DEMO_TRUTH_TABLES, RAW_TABLES } from './raw-tables.ts';

const DEMO_RAW = [
  ['services', RAW_TABLES.x402_services],
  ['transactions', RAW_TABLES.x402_transactions],
  ['funding', RAW_TABLES.wallet_funding],
  ['probes', RAW_TABLES.x402_probes],
  // The planted truth stays in the warehouse for evaluation; no step publishes it.
  ['truthBuyers', DEMO_TRUTH_TABLES.demo_truth_buyers],
  ['truthPairs', DEMO_TRUTH_TABLES.demo_truth_pairs],
  ['truthServices', DEMO_TRUTH_TABLES.demo_truth_services],
  ['exchangeWallets', RAW_TABLES.exchange_wallets],
] as const;

export function analyticsIngestSteps(source: SourceSpec, settings: Settings): IngestStep[] {
  switch (source.kind) {
    case 'demo':
      return worldIngestSteps(DEMO_RAW, (ctx) => ({
        ...x402World({ seed: ctx.seed, now: ctx.now, scale: ctx.scale }),
        exchangeWallets: exchangeWalletRows(),
      }));
    case 'file':
      return [...fileIngestSteps(source.dir), importReportStep];
    case 'live':
      return liveIngestSteps(settings);
  }
}
