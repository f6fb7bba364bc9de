/**
 * The analytics pipeline: x402 services, transactions and wallet funding from the source, the
 * exchange-wallet labels, service ids, categories and the attribution of every payment, the buyer
 * classification, the rollups and hourly history, then one step per dataset.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Settings } from '../../lib/config.ts';
import { x402World } from '../../sources/demo/x402-world.ts';
import { fileIngestSteps, importReport } from '../../sources/file/analytics-files.ts';
import { liveIngestSteps } from '../../sources/live/analytics-live.ts';
import { DEMO_TRUTH_TABLES, RAW_TABLES } from '../../sources/raw-tables.ts';
import { worldIngestSteps } from '../ingest.ts';
import type { IngestStep, PipelineContext, ServicePipeline, SourceSpec } from '../runner.ts';
import { queryJson, sqlString } from '../warehouse.ts';
import { classify, demoExchangeWallets, writeExchangeWallets, type ExchangeWallet } from './classify/index.ts';
import { analyticsDatasetSteps, labelPrepSteps, paymentPrepSteps } from './datasets/index.ts';

const DEMO_RAW = [
  ['services', RAW_TABLES.x402_services],
  ['transactions', RAW_TABLES.x402_transactions],
  ['funding', RAW_TABLES.wallet_funding],
  // The planted truth stays in the warehouse for evaluation; no step publishes it.
  ['truthBuyers', DEMO_TRUTH_TABLES.demo_truth_buyers],
  ['truthPairs', DEMO_TRUTH_TABLES.demo_truth_pairs],
] as const;

/**
 * Exchange hot wallets for the classifier: the demo world's list, or for files an optional
 * `exchange_wallets.csv|parquet` (address, name) in DIR. Without a list, shared exchange funders
 * are not recognised, and the run says so.
 */
function exchangeWalletsStep(source: SourceSpec): IngestStep {
  return {
    name: 'exchange_wallets',
    tables: ['exchange_wallets'],
    async run(ctx: PipelineContext) {
      let wallets: ExchangeWallet[] = [];
      if (source.kind === 'demo') wallets = demoExchangeWallets();
      else if (source.kind === 'file') {
        const file = ['exchange_wallets.csv', 'exchange_wallets.parquet'].map((f) => join(source.dir, f)).find(existsSync);
        if (file) {
          const rows = await queryJson(ctx.connection, `SELECT address::VARCHAR AS address, name::VARCHAR AS name FROM ${sqlString(file)}`);
          wallets = rows.map((r) => ({
            address: String(r.address),
            family: String(r.address).startsWith('0x') ? 'evm' : 'solana',
            name: String(r.name ?? 'exchange'),
          }));
        }
      }
      if (wallets.length === 0) {
        ctx.log('no exchange-wallet labels for this source: wallets funded by a shared exchange may cluster together');
      }
      return writeExchangeWallets(ctx.connection, wallets, ctx.sourceKind);
    },
  };
}

/** Reports the file import's rejected rows (with line numbers) on the run's progress. */
const importReportStep: IngestStep = {
  name: 'import_report',
  tables: [],
  async run(ctx) {
    let rejected = 0;
    for (const file of await importReport(ctx.connection)) {
      rejected += file.rows_rejected;
      if (file.rows_rejected === 0) continue;
      ctx.log(`${file.file}: ${file.rows_rejected} of ${file.rows_read} rows rejected`);
      for (const r of file.first_rejects) ctx.log(`  line ${r.line}: ${r.reason}${r.value ? ` (${r.value})` : ''}`);
      if (file.rows_rejected > file.first_rejects.length) ctx.log(`  … all of them are in the warehouse table import_rejects`);
    }
    return rejected;
  },
};

const classifyStep: IngestStep = {
  name: 'classify',
  // Dropped before the run: a failed classification must not leave last run's labels in place.
  tables: ['pair_labels', 'buyer_labels', 'seller_cohorts'],
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
  ingestSteps(source: SourceSpec, settings: Settings) {
    const raw =
      source.kind === 'demo'
        ? worldIngestSteps(DEMO_RAW, (ctx) => x402World({ seed: ctx.seed, now: ctx.now, scale: ctx.scale }))
        : source.kind === 'file'
          ? [...fileIngestSteps(source.dir), importReportStep]
          : liveIngestSteps(settings);
    return [...raw, exchangeWalletsStep(source), ...paymentPrepSteps, classifyStep, ...labelPrepSteps];
  },
  datasetSteps: analyticsDatasetSteps,
};
