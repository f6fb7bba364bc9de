/**
 * Live analytics runs on chain data as it comes (issue 48), through the pipeline command
 * (`npm run pipeline -- analytics --source live`, runCli) and the analytics app's /health, against
 * upstreams on 127.0.0.1:
 *
 *  - every empty case is a run that publishes what it has and says so: no payment ever indexed,
 *    an RPC window with zero logs, a discovery catalog with zero items, payments without funding;
 *  - a settlement to a listed payTo counts whatever relayer sent it (facilitator "unknown", the
 *    sender kept), and the run's manifest and /health count it;
 *  - the facilitator registry comes from FACILITATOR_REGISTRY_URL when it is set and sound, and is
 *    named in the manifest; settlements in scope that a run skips are counted by reason, and more
 *    than 1 % of them degrades /health.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FACILITATOR_REGISTRY } from '../../../catalog/facilitators.ts';
import { loadSettings, type Settings } from '../../../lib/config.ts';
import { openDatabase, queryJson } from '../../../lib/duckdb.ts';
import { rpcResult, startLoopback, type Loopback, type RecordedRequest, type Reply, type Route } from '../../../lib/testing/loopback.ts';
import { testPaymentParts } from '../../../payments/testing/paywall.ts';
import { parseArgs, runCli } from '../../../pipelines/cli.ts';
import { LineProgress } from '../../../pipelines/progress.ts';
import { createServiceApp } from '../../../proxy/serve.ts';
import type { SnapshotManifest } from '../../../snapshots/manifest.ts';
import { SnapshotReader } from '../../../snapshots/reader.ts';
import { TRANSFER_TOPIC } from './evm-indexer.ts';
import { baseFixtureIndex, evmNodeRoutes, type EvmNodeState } from '../testing/evm-node.ts';
import { fixture } from '../testing/fixtures.ts';

type Item = { resource: string; accepts: Array<Record<string, unknown>>; [k: string]: unknown };
type Page = { items: Item[]; pagination?: { offset?: number; limit?: number; total?: number } };
const PAGES: Page[] = [0, 1, 2].map((i) => fixture<Page>(`discovery-page-${i}.json`));
const fx = baseFixtureIndex();
const NOW = '2026-03-02T01:02:00Z';

/** The payTo of a recorded transaction's Transfer (its topic 2). */
function sellerOf(tx: string): string {
  const logs = fixture<Array<{ transactionHash: string; topics: string[] }>>('base-usdc-logs.json');
  const transfer = logs.find((l) => l.transactionHash === tx && l.topics[0] === TRANSFER_TOPIC);
  if (!transfer) throw new Error(`no Transfer in ${tx}`);
  return `0x${transfer.topics[2]!.slice(-40)}`.toLowerCase();
}

/** What the loopback upstreams answer; each test sets its own. */
interface World {
  /** The discovery catalog's pages (offset → page). */
  pages: Page[];
  evm: EvmNodeState;
  /** Base answers no log at all (a quiet window). */
  noLogs: boolean;
  /** Funding lookups (eth_getLogs by recipient) find nothing. */
  noFunding: boolean;
  /** The registry document FACILITATOR_REGISTRY_URL serves. */
  registry: unknown;
}
const world: World = {
  pages: PAGES,
  evm: { finalized: fx.firstFinalized, maxResults: 10, receipts: true },
  noLogs: false,
  noFunding: false,
  registry: null,
};

let server: Loopback;
const roots: string[] = [];
beforeEach(async () => {
  Object.assign(world, {
    pages: PAGES,
    evm: { finalized: fx.firstFinalized, maxResults: 10, receipts: true },
    noLogs: false,
    noFunding: false,
    registry: null,
  });
  const base = evmNodeRoutes('/base', world.evm);
  const getLogs = base.find((r) => r.rpcMethod === 'eth_getLogs')!;
  const quiet: Route = {
    ...getLogs,
    reply: (req: RecordedRequest): Reply | Promise<Reply> => {
      const filter = (req.rpcParams[0] ?? {}) as { topics?: unknown[] };
      const byRecipient = Array.isArray(filter.topics) && filter.topics[2] != null;
      if (world.noLogs || (world.noFunding && byRecipient)) return rpcResult(req, []);
      return (getLogs.reply as (r: RecordedRequest) => Reply)(req);
    },
  };
  server = await startLoopback([
    {
      method: 'GET',
      path: '/facilitator/discovery/resources',
      reply: (req) => ({ json: world.pages.find((p) => (p.pagination?.offset ?? 0) === Number(req.query.offset ?? 0)) ?? { items: [] } }),
    },
    { method: 'GET', path: '/registry.json', reply: () => ({ json: world.registry }) },
    quiet,
    ...base.filter((r) => r !== getLogs),
  ]);
});
afterEach(async () => {
  await server.close();
});
afterAll(() => {
  for (const r of roots) rmSync(r, { recursive: true, force: true });
});

function settingsFor(over: Record<string, string> = {}): Settings {
  const root = mkdtempSync(join(tmpdir(), 'live-runs-'));
  roots.push(root);
  return loadSettings({
    SITE_BUILD: 'off',
    PROBES: 'off', // the fixtures list public names: no probe rounds here (probes.test.ts probes a loopback fleet)
    SNAPSHOTS_DIR: join(root, 'snapshots'),
    WAREHOUSE_DIR: join(root, 'warehouse'),
    X402_DISCOVERY_URL: `${server.url}/facilitator`,
    BASE_RPC_URL: `${server.url}/base`,
    ...over,
  });
}

/** One run as `npm run pipeline -- analytics --source live --now <NOW>` makes it. */
async function liveRun(settings: Settings, extra: string[] = []) {
  const lines: string[] = [];
  const { exitCode, results } = await runCli(parseArgs(['analytics', '--source', 'live', '--now', NOW, ...extra]), settings, {
    progress: new LineProgress((l) => lines.push(l)),
    out: (t) => lines.push(t),
  });
  const result = results[0]!;
  const failed = result.reports.filter((r) => !['ok', 'kept', 'skipped'].includes(r.status)).map((r) => `${r.name}: ${r.detail}`);
  const step = (name: string) => result.reports.find((r) => r.name === name)!;
  return { exitCode, failed, manifest: result.manifest as SnapshotManifest, step, log: lines.join('\n') };
}

/** The analytics app as proxy/serve.ts builds it, over what the run published; its /health. */
async function health(settings: Settings): Promise<Record<string, unknown>> {
  const reader = new SnapshotReader(settings.snapshotsDir, 'analytics');
  await reader.refresh();
  try {
    const clock = () => new Date(NOW);
    const app = await createServiceApp(
      'analytics',
      reader,
      settings,
      { ...testPaymentParts({ now: clock }), washPatternSalt: 'salt' },
      { now: clock },
    );
    return (await (await app.request('/health')).json()) as Record<string, unknown>;
  } finally {
    reader.close();
  }
}

const rowsOf = (m: SnapshotManifest, name: string) => m.datasets.find((d) => d.name === name)?.rows;

async function inWarehouse<T>(settings: Settings, sql: string): Promise<T[]> {
  const w = await openDatabase(join(settings.warehouseDir, 'analytics.duckdb'));
  try {
    return (await queryJson(w.connection, sql)) as T[];
  } finally {
    w.close();
  }
}

describe('every empty case is a run, not a crash', () => {
  it('a first run over a window with zero logs publishes the listed services with zero totals, and says no payment is indexed yet', async () => {
    world.noLogs = true;
    const settings = settingsFor();
    const run = await liveRun(settings);
    expect(run.failed).toEqual([]);
    expect(run.exitCode).toBe(0);
    expect(rowsOf(run.manifest, 'services')).toBe(8);
    expect(rowsOf(run.manifest, 'transactions')).toBe(0);
    expect(run.step('ingest:x402_transactions').detail).toMatch(/^0 settlements .*; no payment indexed yet$/);
    expect(run.manifest.indexing).toMatchObject({ settlements: 0, skipped_settlements: 0, skip_share: 0 });
    expect(run.manifest.indexing!.notes).toContain('no payment indexed yet: the services are published without payments, totals are zero');
    const h = await health(settings);
    expect(h.indexing).toEqual(run.manifest.indexing);
    expect(h.problems).toEqual([]);
  }, 120_000);

  it('a discovery catalog with zero items publishes an empty service list and says so', async () => {
    world.pages = [{ items: [], pagination: { offset: 0, limit: 100, total: 0 } }];
    world.noLogs = true;
    const settings = settingsFor();
    const run = await liveRun(settings);
    expect(run.failed).toEqual([]);
    expect(run.exitCode).toBe(0);
    expect(rowsOf(run.manifest, 'services')).toBe(0);
    expect(run.step('ingest:x402_services').detail).toMatch(/listed no service this run \(0 items on 1 pages\)/);
    expect(run.manifest.indexing!.notes.some((n) => n.startsWith('the discovery catalog listed no service'))).toBe(true);
  }, 120_000);

  it('payments whose buyers have no funding publish the payments, and the funding tables stay empty', async () => {
    world.noFunding = true;
    const settings = settingsFor();
    const run = await liveRun(settings);
    expect(run.failed).toEqual([]);
    expect(run.exitCode).toBe(0);
    expect(run.step('ingest:wallet_funding').rows).toBe(0);
    expect(run.manifest.indexing!.settlements).toBeGreaterThan(0);
    // every settlement indexed is in the run's payment segment
    expect(run.step('ingest:x402_transactions').rows).toBe(run.manifest.indexing!.settlements);
    const funding = await inWarehouse<{ n: number }>(settings, 'SELECT count(*)::INTEGER AS n FROM live_wallet_funding');
    expect(funding).toEqual([{ n: 0 }]);
  }, 120_000);
});

describe('settlements recognised by what they are', () => {
  it('a settlement to a listed payTo sent by a wallet no registry names is a payment: facilitator unknown, the sender kept, counted', async () => {
    // the catalog lists the payTo of tx B, which a wallet outside every facilitator's relayer list sent
    const payee = sellerOf(fx.txs.B);
    const listing: Item = {
      ...PAGES[0]!.items[0]!,
      resource: 'https://paid.example/api/b',
      accepts: PAGES[0]!.items[0]!.accepts.map((a) => ({ ...a, network: 'eip155:8453', payTo: payee })),
    };
    world.pages = PAGES.map((p, i) => (i === 0 ? { ...p, items: [...p.items, listing] } : p));
    const settings = settingsFor();
    const run = await liveRun(settings);
    expect(run.failed).toEqual([]);
    expect(run.manifest.indexing!.unknown_facilitator).toBe(1);
    const rows = await inWarehouse<{ facilitator: string; relayer: string }>(
      settings,
      `SELECT facilitator, relayer FROM live_evm_settlements WHERE tx_hash = '${fx.txs.B}'`,
    );
    expect(rows).toEqual([{ facilitator: 'unknown', relayer: fx.notFacilitator }]);
    expect(run.log).toMatch(/1 by a sender the registry does not name/);
    expect(run.manifest.indexing!.indexed_at).toBe(run.manifest.generated_at);

    // the 10-minute probe run indexes nothing: its snapshot keeps the indexing of the run its payments came from
    const probes = await liveRun(settings, ['--datasets', 'service-health']);
    expect(probes.failed).toEqual([]);
    expect(probes.manifest.version).not.toBe(run.manifest.version);
    expect(probes.manifest.indexing).toEqual(run.manifest.indexing);
  }, 120_000);
});

describe('the facilitator registry a run uses, and what it skips', () => {
  it('uses FACILITATOR_REGISTRY_URL, names it in the manifest; settlements its relayer sent before its first-seen date are counted skips that degrade /health', async () => {
    // a newer registry whose Coinbase relayer only starts after the recorded payments: they are in scope, and skipped
    world.registry = {
      ...FACILITATOR_REGISTRY,
      version: 'test-mirror-2',
      taken_at: '2026-06-30',
      relayers: FACILITATOR_REGISTRY.relayers.map((r) => (r.address === fx.relayers.coinbase ? { ...r, first_seen: '2026-06-01' } : r)),
    };
    const settings = settingsFor({ FACILITATOR_REGISTRY_URL: `${server.url}/registry.json` });
    const run = await liveRun(settings);
    expect(run.failed).toEqual([]);
    const indexing = run.manifest.indexing!;
    expect(indexing.registry).toEqual({
      version: 'test-mirror-2',
      origin: 'url',
      taken_at: '2026-06-30',
      source: `${server.url}/registry.json`,
      problem: null,
    });
    expect(indexing.skipped['settlement.base.before_relayer_first_seen']).toBeGreaterThan(0);
    expect(indexing.skip_share).toBeGreaterThan(0.01);
    const h = await health(settings);
    expect(h.status).toBe('degraded');
    expect(
      (h.problems as string[]).some((p) =>
        /^indexing: the last run skipped \d+ of \d+ settlements in scope .*before_relayer_first_seen/.test(p),
      ),
    ).toBe(true);
  }, 120_000);

  it('a registry URL that fails leaves the run on the pinned copy, says why in the manifest and on /health', async () => {
    world.registry = { not: 'a registry' };
    const settings = settingsFor({ FACILITATOR_REGISTRY_URL: `${server.url}/registry.json` });
    const run = await liveRun(settings);
    expect(run.failed).toEqual([]);
    expect(run.exitCode).toBe(0);
    const registry = run.manifest.indexing!.registry!;
    expect(registry).toMatchObject({ origin: 'pinned', version: FACILITATOR_REGISTRY.version });
    expect(registry.problem).toMatch(/not used/);
    const h = await health(settings);
    expect((h.problems as string[]).some((p) => p.startsWith('facilitator registry: '))).toBe(true);
  }, 120_000);
});
