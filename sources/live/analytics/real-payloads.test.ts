/**
 * The live analytics steps over real recorded payloads (fixtures/real/, each value traced in
 * SOURCES.md): real Base mainnet x402 settlements (four Coinbase relayers, three of them added
 * after the pinned registry was taken), a real Solana settlement, and real 402 bodies of live
 * services. Served on 127.0.0.1 as the upstreams answer; the Base runs go through the pipeline
 * command (runCli), as a user's `npm run pipeline -- analytics --source live` does.
 *
 * No recorded discovery response of a real facilitator was found (SOURCES.md, "Not found"), so
 * the catalog the runs read is built here: the real 402 offers as discovery items, and one listing
 * per settlement naming the settlement's real payTo.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { FACILITATOR_REGISTRY, relayersOf } from '../../../catalog/facilitators.ts';
import { loadSettings, type Settings } from '../../../lib/config.ts';
import { openDatabase, queryJson } from '../../../lib/duckdb.ts';
import { startLoopback, type Loopback } from '../../../lib/testing/loopback.ts';
import { parseArgs, runCli } from '../../../pipelines/cli.ts';
import { LineProgress } from '../../../pipelines/progress.ts';
import type { SnapshotManifest } from '../../../snapshots/manifest.ts';
import { createJsonRpc } from '../json-rpc.ts';
import { createUpstream } from '../http.ts';
import { testContext } from '../testing/context.ts';
import { evmNodeRoutes, REAL_FILES } from '../testing/evm-node.ts';
import { fixture } from '../testing/fixtures.ts';
import { REAL_SOLANA_FILES, solanaNodeRoutes } from '../testing/solana-node.ts';
import { parseOffer } from './prober.ts';
import { DEFAULT_SOLANA_OPTIONS, indexSolanaSettlements, usdcAccountOf } from './solana-indexer.ts';
import { crawlDiscovery, DEFAULT_DISCOVERY_OPTIONS } from './x402-discovery.ts';

interface RealSettlement {
  id: string;
  chain: 'base' | 'solana';
  tx_hash: string;
  log_index: number | null;
  block_number: number;
  time: string;
  buyer: string;
  pay_to: string;
  amount_atomic: string;
  sender: string;
  facilitator: string;
  in_pinned_registry: boolean;
}
interface RealOffer {
  id: string;
  url: string;
  transport: string;
  body?: { x402Version: number; accepts: Array<Record<string, unknown>> };
  body_raw?: string;
  payment_required?: { x402Version: number; accepts: Array<Record<string, unknown>> };
}
const INDEX = fixture<{ settlements: RealSettlement[]; base_block_time_rule: { genesis_timestamp: number; seconds_per_block: number } }>(
  'real/index.json',
);
const OFFERS = fixture<{ items: RealOffer[] }>('real/offers-402.json').items;
const BASE = INDEX.settlements.filter((s) => s.chain === 'base');
const SOLANA = INDEX.settlements.filter((s) => s.chain === 'solana');
const rule = INDEX.base_block_time_rule;
const hex = (n: number) => `0x${n.toString(16)}`;

/** The offer a real 402 carries (v2: the PAYMENT-REQUIRED header, v1: the body). */
const offerOf = (o: RealOffer) => o.payment_required ?? o.body!;

/** Discovery items: every real offer as a facilitator lists it, and one listing per settlement's payTo. */
function catalog(settlements: readonly RealSettlement[]) {
  const offers = OFFERS.map((o) => ({
    resource: o.url,
    type: 'http',
    x402Version: offerOf(o).x402Version,
    accepts: offerOf(o).accepts,
    lastUpdated: '2026-09-07T00:00:00Z',
  }));
  const payees = settlements.map((s) => ({
    resource: `https://${s.id}.listing.test/paid`,
    type: 'http',
    x402Version: 2,
    accepts: [
      {
        scheme: 'exact',
        network: 'eip155:8453',
        amount: s.amount_atomic,
        asset: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
        payTo: s.pay_to,
        maxTimeoutSeconds: 60,
      },
    ],
    lastUpdated: '2026-09-07T00:00:00Z',
  }));
  return [...offers, ...payees];
}

const roots: string[] = [];
let server: Loopback | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});
afterAll(() => {
  for (const r of roots) rmSync(r, { recursive: true, force: true });
});

/** A loopback world for one settlement: the catalog, and a Base node whose finalized block is just past it. */
async function worldFor(s: RealSettlement): Promise<Settings> {
  const items = catalog([s]);
  server = await startLoopback([
    {
      method: 'GET',
      path: '/facilitator/discovery/resources',
      reply: (req) => {
        const offset = Number(req.query.offset ?? 0);
        const limit = Number(req.query.limit ?? 100);
        return { json: { x402Version: 2, items: items.slice(offset, offset + limit), pagination: { offset, limit, total: items.length } } };
      },
    },
    ...evmNodeRoutes(
      '/base',
      {
        finalized: s.block_number + 10,
        maxResults: 1000,
        receipts: true,
        // blocks the payloads do not hold get a header by Base's block-time rule (SOURCES.md)
        headerOf: (n) => ({
          number: hex(n),
          timestamp: hex(rule.genesis_timestamp + rule.seconds_per_block * n),
          hash: `0x${'0'.repeat(64)}`,
        }),
      },
      REAL_FILES,
    ),
  ]);
  const root = mkdtempSync(join(tmpdir(), 'real-payloads-'));
  roots.push(root);
  return loadSettings({
    SITE_BUILD: 'off',
    PROBES: 'off', // the catalog names public hosts: no probe rounds offline
    SNAPSHOTS_DIR: join(root, 'snapshots'),
    WAREHOUSE_DIR: join(root, 'warehouse'),
    X402_DISCOVERY_URL: `${server.url}/facilitator`,
    BASE_RPC_URL: `${server.url}/base`,
  });
}

describe('real Base settlements, through the pipeline command', () => {
  it('holds settlements by relayers the pinned registry lacks (the case that was dropped)', () => {
    expect(BASE.length).toBeGreaterThanOrEqual(5);
    expect(BASE.filter((s) => !s.in_pinned_registry).length).toBeGreaterThanOrEqual(3);
  });

  it.each(BASE.map((s) => [s.id, s] as const))(
    '%s: indexed to its listed payTo whatever its relayer',
    async (_id, s) => {
      const settings = await worldFor(s);
      const lines: string[] = [];
      const now = new Date(Date.parse(s.time) + 3_600_000).toISOString();
      const { exitCode, results } = await runCli(parseArgs(['analytics', '--source', 'live', '--now', now]), settings, {
        progress: new LineProgress((l) => lines.push(l)),
        out: () => {},
      });
      const result = results[0]!;
      expect(result.reports.filter((r) => !['ok', 'kept', 'skipped'].includes(r.status)).map((r) => `${r.name}: ${r.detail}`)).toEqual([]);
      expect(exitCode).toBe(0);
      const w = await openDatabase(join(settings.warehouseDir, 'analytics.duckdb'));
      try {
        const rows = await queryJson(
          w.connection,
          `SELECT tx_hash, log_index::INTEGER AS log_index, buyer, seller_address, amount_atomic, relayer, facilitator,
                strftime(block_time, '%Y-%m-%dT%H:%M:%SZ') AS time
           FROM live_evm_settlements`,
        );
        expect(rows).toEqual([
          {
            tx_hash: s.tx_hash,
            log_index: s.log_index,
            buyer: s.buyer,
            seller_address: s.pay_to,
            amount_atomic: s.amount_atomic,
            relayer: s.sender,
            facilitator: s.in_pinned_registry ? s.facilitator : 'unknown',
            time: s.time,
          },
        ]);
      } finally {
        w.close();
      }
      const indexing = (result.manifest as SnapshotManifest).indexing!;
      expect(indexing).toMatchObject({ settlements: 1, unknown_facilitator: s.in_pinned_registry ? 0 : 1, skipped_settlements: 0 });
      // the one real offer without a payTo is a listing skipped, counted
      expect(indexing.skipped['listing.invalid_accepts']).toBe(1);
    },
    120_000,
  );
});

describe('a real Solana settlement', () => {
  const s = SOLANA[0]!;

  it("the payTo's derived USDC account is the one the real transfer paid into", async () => {
    type Tx = { transaction: { message: { instructions: Array<{ parsed?: { info?: { destination?: string } } }> } } };
    const tx = fixture<Record<string, Tx>>(REAL_SOLANA_FILES.transactions)[s.tx_hash]!;
    const destinations = tx.transaction.message.instructions.map((i) => i.parsed?.info?.destination).filter(Boolean);
    expect(destinations).toEqual([await usdcAccountOf(s.pay_to)]);
  });

  it.each([
    ['by its registered relayer', true],
    ['through the listed payTo, with a registry that lacks the relayer', false],
  ])('is indexed %s', async (_how, registered) => {
    const account = await usdcAccountOf(s.pay_to);
    const history = fixture<Array<{ signature: string; slot: number }>>(REAL_SOLANA_FILES.signatures);
    server = await startLoopback(
      solanaNodeRoutes('/solana', { visible: history.length, histories: { [account]: history } }, REAL_SOLANA_FILES),
    );
    const t = await testContext({ warehouseDir: true });
    const upstream = createUpstream({ name: 'solana-rpc', baseUrl: `${server.url}/solana`, sleep: async () => {} });
    try {
      const registry = relayersOf(FACILITATOR_REGISTRY).filter((r) => registered || r.address !== REAL_SOLANA_FILES.relayer);
      const run = await indexSolanaSettlements(t.warehouse.connection, createJsonRpc(upstream), {
        ...DEFAULT_SOLANA_OPTIONS,
        registry,
        payees: [s.pay_to],
      });
      const rows = await queryJson(
        t.warehouse.connection,
        'SELECT signature, buyer, seller_address, amount_atomic, relayer, facilitator FROM live_solana_settlements',
      );
      expect(rows).toEqual([
        {
          signature: s.tx_hash,
          buyer: s.buyer,
          seller_address: s.pay_to,
          amount_atomic: s.amount_atomic,
          relayer: s.sender,
          facilitator: registered ? s.facilitator : 'unknown',
        },
      ]);
      expect(run.unknownFacilitator).toBe(registered ? 0 : 1);
    } finally {
      await upstream.close();
      t.close();
    }
  });
});

describe('real 402 bodies', () => {
  it('every real offer with a payTo parses as an offer; the one with an empty payTo is refused, not guessed', () => {
    const parsed = OFFERS.map((o) => {
      const header = o.payment_required ? Buffer.from(JSON.stringify(o.payment_required)).toString('base64') : null;
      const result = parseOffer(header, o.body ? JSON.stringify(o.body) : (o.body_raw ?? ''));
      return [o.id, result === 'invalid' || result === null ? result : result.accepts.map((a) => a.payTo)];
    });
    const bad = parsed.filter(([, r]) => r === 'invalid' || r === null).map(([id]) => id);
    expect(bad).toEqual(OFFERS.filter((o) => offerOf(o).accepts.every((a) => !a.payTo)).map((o) => o.id));
    expect(parsed.length - bad.length).toBeGreaterThanOrEqual(10);
  });

  it('a catalog of the real offers lists each one with a payTo on an indexed network', async () => {
    const items = catalog([]);
    server = await startLoopback([
      { method: 'GET', path: '/d', reply: (req) => ({ json: { items: Number(req.query.offset ?? 0) === 0 ? items : [] } }) },
    ]);
    const upstream = createUpstream({ name: 'x402-discovery', baseUrl: `${server.url}/d`, sleep: async () => {} });
    try {
      const crawl = await crawlDiscovery(upstream, '', { ...DEFAULT_DISCOVERY_OPTIONS, pageSize: 1000 });
      const withPayTo = OFFERS.filter((o) => offerOf(o).accepts.some((a) => a.payTo));
      expect(crawl.services.map((x) => x.resource_url).sort()).toEqual(withPayTo.map((o) => o.url).sort());
      expect(crawl.counts.invalidAccepts).toBe(1);
    } finally {
      await upstream.close();
    }
  });
});
