/**
 * The analytics pipeline's live source: the x402 discovery catalog, settlements on the chains the
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
import type { Settings, UpstreamSetting } from '../../../lib/config.ts';
import type { IngestContext, IngestStep } from '../../contract.ts';
import { createTableSql } from '../../../lib/duckdb.ts';
import { chainCoverage, FACILITATOR_REGISTRY, relayersOf, type FacilitatorRegistry } from '../../../catalog/facilitators.ts';
import { RAW_TABLES } from '../../raw-tables.ts';
import {
  DEFAULT_EVM_OPTIONS,
  DEFAULT_FUNDING_OPTIONS,
  indexEvmFunding,
  indexEvmSettlements,
  type EvmFundingOptions,
  type EvmIndexerOptions,
} from './evm-indexer.ts';
import { notIndexedReason } from './facilitators.ts';
import { withUpstream, type UpstreamOptions } from '../http.ts';
import { createJsonRpc } from '../json-rpc.ts';
import { LIVE_REQUIRED } from '../required-settings.ts';
import {
  appendLiveSegment,
  indexerPositions,
  LIVE_FUNDING,
  LIVE_TRANSACTIONS,
  viewsOverCommitted,
  type LiveRun,
  type LiveTable,
} from './segments.ts';
import { DEFAULT_SOLANA_OPTIONS, indexSolanaSettlements, type SolanaIndexerOptions } from './solana-indexer.ts';
import {
  crawlDiscovery,
  DEFAULT_DISCOVERY_OPTIONS,
  discoveryEndpoint,
  writeDiscoveredServices,
  type DiscoveryOptions,
} from './x402-discovery.ts';

type ClientTuning = Partial<Omit<UpstreamOptions, 'name' | 'baseUrl'>>;

export interface LiveIngestOptions {
  /** The facilitator registry (default: catalog/facilitators.json); tests pass their own. */
  registry?: FacilitatorRegistry;
  discovery?: Partial<DiscoveryOptions>;
  evm?: Partial<EvmIndexerOptions>;
  funding?: Partial<EvmFundingOptions>;
  solana?: Partial<SolanaIndexerOptions>;
  /** Applied to every upstream client after its own defaults (tests inject `sleep`). */
  upstream?: ClientTuning;
}

/** A setting the step needs is not set: the message names it and says what it should hold. */
export class MissingSettingError extends Error {
  constructor(
    readonly setting: UpstreamSetting,
    purpose: string,
  ) {
    super(`${setting} is not set: ${purpose}`);
    this.name = 'MissingSettingError';
  }
}

const PURPOSE: Partial<Record<UpstreamSetting, string>> = LIVE_REQUIRED.analytics;

function required(settings: Settings, setting: UpstreamSetting): string {
  const url = settings.upstreams[setting];
  if (!url) throw new MissingSettingError(setting, PURPOSE[setting] ?? 'this live step needs it');
  return url;
}

// Per-upstream politeness: discovery servers 429 quickly (x402scan backs off on them); public
// RPCs allow a few requests per second per IP.
const CLIENT_DEFAULTS: Record<'discovery' | 'base' | 'solana', ClientTuning> = {
  discovery: { timeoutMs: 30_000, concurrency: 1, minIntervalMs: 250 },
  base: { timeoutMs: 30_000, concurrency: 4, minIntervalMs: 50 },
  solana: { timeoutMs: 30_000, concurrency: 4, minIntervalMs: 100 },
};

/** A segment that could not be written fails the step; the views still read the segments committed before. */
async function appendOrKeep(ctx: IngestContext, append: () => Promise<{ rows: number }>, table: LiveTable): Promise<{ rows: number }> {
  try {
    return await append();
  } catch (err) {
    await viewsOverCommitted(ctx, table).catch(() => 0);
    throw err;
  }
}

function firstLine(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).split('\n')[0]!;
}

export function liveIngestSteps(settings: Settings, options: LiveIngestOptions = {}): IngestStep[] {
  const registry = options.registry ?? FACILITATOR_REGISTRY;
  const relayers = relayersOf(registry);
  // the steps of one run: their segments share the run's batch
  const run: LiveRun = {};
  const client = (kind: keyof typeof CLIENT_DEFAULTS, name: string, baseUrl: string): UpstreamOptions => ({
    ...CLIENT_DEFAULTS[kind],
    ...options.upstream,
    name,
    baseUrl,
  });

  const services: IngestStep = {
    name: 'ingest:x402_services',
    tables: [RAW_TABLES.x402_services.name],
    async run(ctx: IngestContext) {
      const { baseUrl, path } = discoveryEndpoint(required(settings, 'X402_DISCOVERY_URL'));
      const crawl = await withUpstream(client('discovery', 'x402-discovery', baseUrl), ctx.log, (up) =>
        crawlDiscovery(up, path, { ...DEFAULT_DISCOVERY_OPTIONS, ...options.discovery }),
      );
      const c = crawl.counts;
      const unsupported = Object.entries(c.unsupportedNetworks)
        .map(([n, k]) => `${n}×${k}`)
        .join(', ');
      ctx.log(
        `x402 discovery: ${c.items} items on ${c.pages} pages → ${c.services} services; skipped ${c.invalidItems} invalid items, ` +
          `${c.invalidAccepts} invalid accepts, ${c.notHttp} non-http, ${c.duplicates} duplicates` +
          (unsupported ? `; networks not indexed: ${unsupported}` : ''),
      );
      if (c.stoppedAtMaxPages) ctx.log(`x402 discovery: stopped at ${c.pages} pages (maxPages); the catalog may be incomplete`);
      for (const p of crawl.problems) ctx.log(`x402 discovery: skipped ${p}`);
      return writeDiscoveredServices(ctx.connection, crawl.services, ctx.now);
    },
  };

  const transactions: IngestStep = {
    name: 'ingest:x402_transactions',
    tables: [RAW_TABLES.x402_transactions.name],
    async run(ctx: IngestContext) {
      const problems: string[] = [];
      const before = await indexerPositions(ctx.connection, LIVE_TRANSACTIONS);
      // Chain by chain from the facilitator registry: a chain is read only when a facilitator is
      // registered on it and the live source has a reader for it; every other chain says why not.
      for (const coverage of chainCoverage(registry)) {
        const { chain } = coverage;
        const setting = registry.chains[chain].live_rpc_setting;
        if (!coverage.indexed || setting === null) {
          ctx.log(notIndexedReason(chain, relayers) ?? `${chain}: ${coverage.note}`);
          continue;
        }
        const url = settings.upstreams[setting];
        if (!url) {
          if (PURPOSE[setting]) problems.push(new MissingSettingError(setting, PURPOSE[setting]).message);
          else ctx.log(`${chain}: ${setting} is not set; ${chain} settlements are not indexed this run`);
          continue;
        }
        try {
          if (chain === 'solana') {
            await withUpstream(client('solana', 'solana-rpc', url), ctx.log, (up) =>
              indexSolanaSettlements(
                ctx.connection,
                createJsonRpc(up),
                { ...DEFAULT_SOLANA_OPTIONS, registry: relayers, ...options.solana },
                ctx.log,
              ),
            );
          } else {
            await withUpstream(client('base', `${chain}-rpc`, url), ctx.log, (up) =>
              indexEvmSettlements(
                ctx.connection,
                createJsonRpc(up),
                { ...DEFAULT_EVM_OPTIONS, registry: relayers, ...options.evm, chain },
                ctx.log,
              ),
            );
          }
        } catch (err) {
          problems.push(firstLine(err));
        }
      }
      // History indexed so far is still worth publishing when one chain failed this run; the step
      // still fails so the run's summary and exit code say so.
      const { rows } = await appendOrKeep(ctx, () => appendLiveSegment(ctx, LIVE_TRANSACTIONS, before, run), LIVE_TRANSACTIONS);
      if (problems.length) throw new Error(problems.join('; '));
      return rows;
    },
  };

  const funding: IngestStep = {
    name: 'ingest:wallet_funding',
    tables: [RAW_TABLES.wallet_funding.name],
    async run(ctx: IngestContext) {
      const baseUrl = required(settings, 'BASE_RPC_URL');
      await withUpstream(client('base', 'base-rpc', baseUrl), ctx.log, (up) =>
        indexEvmFunding(
          ctx.connection,
          createJsonRpc(up),
          { ...DEFAULT_FUNDING_OPTIONS, ...options.funding, chain: 'base' },
          ctx.now,
          ctx.log,
        ),
      );
      return (await appendOrKeep(ctx, () => appendLiveSegment(ctx, LIVE_FUNDING, new Map(), run), LIVE_FUNDING)).rows;
    },
  };

  const exchangeWallets: IngestStep = {
    name: 'ingest:exchange_wallets',
    tables: [RAW_TABLES.exchange_wallets.name],
    async run(ctx: IngestContext) {
      await ctx.connection.run(createTableSql(RAW_TABLES.exchange_wallets));
      ctx.log('no exchange-wallet labels for this source: wallets funded by a shared exchange may cluster together');
      return 0;
    },
  };

  return [services, transactions, funding, exchangeWallets];
}
