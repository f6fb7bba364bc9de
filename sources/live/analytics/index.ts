/**
 * The analytics pipeline's live source: the x402 discovery catalog, an unpaid probe of every
 * listed resource (prober.ts, at most every 10 minutes, kept 8 days), settlements on the chains the
 * facilitator registry covers (Base, and Solana when SOLANA_RPC_URL is set; every other chain is
 * logged as not indexed, with the reason) and buyer funding, each as one ingest step that (re)creates its raw table with `source` = 'live',
 * and an empty exchange_wallets (live data has no exchange list yet).
 *
 * The indexers keep their history in the warehouse (discovery_seen, live_evm_settlements,
 * live_solana_settlements, live_wallet_funding and the checkpoints). What a run indexed is appended
 * to the payments and funding as one new Parquet segment each, and x402_transactions and
 * wallet_funding are views over the segments, with new_<table> over this run's (segments.ts), as
 * the file import gives them.
 * The pipeline CLI refuses a live run without the settings required-settings.ts lists before any
 * step runs; called directly, a missing setting fails only the step that needs it, naming it.
 */
import { ANALYTICS_PAYMENT_DATASETS } from '../../../catalog/datasets.ts';
import type { Settings } from '../../../lib/config.ts';
import type { IngestStep } from '../../contract.ts';
import { type AnalyticsIngestStep, analyticsIngestKit, type LiveIngestOptions } from './ingest-kit.ts';
import { discoveryStep } from './steps/discovery.ts';
import { exchangeWalletsStep } from './steps/exchange-wallets.ts';
import { fundingStep } from './steps/funding.ts';
import { probesStep } from './steps/probes.ts';
import { transactionsStep } from './steps/transactions.ts';

export type { LiveIngestOptions } from './ingest-kit.ts';

/** The ingest steps in run order, one module each under steps/ (made from the run's kit, ingest-kit.ts). */
const ANALYTICS_INGEST_STEPS: readonly AnalyticsIngestStep[] = [
  discoveryStep,
  probesStep,
  transactionsStep,
  fundingStep,
  exchangeWalletsStep,
];

export function liveIngestSteps(settings: Settings, options: LiveIngestOptions = {}): IngestStep[] {
  const kit = analyticsIngestKit(settings, options);
  // only the probes feed the 10-minute probe run (--datasets service-health): the others are skipped there
  return ANALYTICS_INGEST_STEPS.map((make) => {
    const step = make(kit);
    return make === probesStep ? step : { ...step, datasets: ANALYTICS_PAYMENT_DATASETS };
  });
}
