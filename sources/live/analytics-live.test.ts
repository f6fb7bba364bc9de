import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadSettings } from '../../lib/config.ts';
import type { ProgressSink } from '../../pipelines/progress.ts';
import { runPipeline } from '../../pipelines/runner.ts';
import { queryJson } from '../../lib/duckdb.ts';
import { liveIngestSteps, type LiveIngestOptions } from './analytics-live.ts';
import { testContext, type TestContext } from './testing/context.ts';
import { baseFixtureIndex, evmNodeRoutes, type EvmNodeState } from './testing/evm-node.ts';
import { fixture, startLoopback, type Loopback, type RecordedRequest, type Reply } from './testing/loopback.ts';
import { solanaNodeRoutes } from './testing/solana-node.ts';

type Page = { items: unknown[]; pagination?: { offset?: number } };
const PAGES: Page[] = [0, 1, 2].map((i) => fixture<Page>(`discovery-page-${i}.json`));
const discovery = (req: RecordedRequest): Reply => ({
  json: PAGES.find((p) => p.pagination?.offset === Number(req.query.offset)) ?? { items: [] },
});

const fx = baseFixtureIndex();
const NOW = new Date('2026-03-02T01:00:00Z');
const options: LiveIngestOptions = {
  discovery: { pageSize: 4 },
  evm: { startBlock: fx.startBlock, initialLogRange: 16 },
  funding: { lookbackBlocks: 2000, walletsPerQuery: 2 },
  upstream: { sleep: async () => {}, minIntervalMs: 0 },
};

let server: Loopback;
let evm: EvmNodeState;
let t: TestContext;
beforeEach(async () => {
  evm = { finalized: fx.firstFinalized, maxResults: 10, receipts: true };
  server = await startLoopback([
    { method: 'GET', path: '/facilitator/discovery/resources', reply: discovery },
    ...evmNodeRoutes('/base', evm),
    ...solanaNodeRoutes('/solana', { visible: 5 }),
  ]);
  t = await testContext({ warehouseDir: true });
});
afterEach(async () => {
  await server.close();
  t.close();
});

const env = (over: Record<string, string | undefined> = {}) =>
  loadSettings({
    X402_DISCOVERY_URL: `${server.url}/facilitator`,
    BASE_RPC_URL: `${server.url}/base`,
    SOLANA_RPC_URL: `${server.url}/solana`,
    ...over,
  });

describe('liveIngestSteps', () => {
  it('declares one step per raw table', () => {
    const steps = liveIngestSteps(loadSettings({}));
    expect(steps.map((s) => [s.name, s.tables])).toEqual([
      ['ingest:x402_services', ['x402_services']],
      ['ingest:x402_transactions', ['x402_transactions']],
      ['ingest:wallet_funding', ['wallet_funding']],
      ['ingest:exchange_wallets', ['exchange_wallets']],
    ]);
  });

  it('fills the three raw tables from discovery, Base and Solana, all marked live, and an empty exchange list', async () => {
    const ctx = t.at(NOW);
    const counts: number[] = [];
    const requests: Record<string, number> = {};
    for (const step of liveIngestSteps(env(), options)) {
      server.reset();
      counts.push(await step.run(ctx));
      requests[step.name] = server.requests.length;
    }
    expect(counts).toEqual([8, 7, 2, 0]); // 8 services; 5 Base + 2 Solana settlements; 2 funded buyers; no exchange list
    // discovery: 3 pages; transactions: Base 12 + Solana 9 signature lists + 4 transactions; funding: 2 batches + 1 block.
    expect(requests).toEqual({
      'ingest:x402_services': 3,
      'ingest:x402_transactions': 25,
      'ingest:wallet_funding': 3,
      'ingest:exchange_wallets': 0,
    });
    expect(t.logs).toContain('no exchange-wallet labels for this source: wallets funded by a shared exchange may cluster together');

    const c = t.warehouse.connection;
    const sources = await queryJson(
      c,
      `SELECT 'services' AS t, source, count(*)::INTEGER AS n FROM x402_services GROUP BY ALL
       UNION ALL SELECT 'transactions', source, count(*)::INTEGER FROM x402_transactions GROUP BY ALL
       UNION ALL SELECT 'funding', source, count(*)::INTEGER FROM wallet_funding GROUP BY ALL ORDER BY 1`,
    );
    expect(sources).toEqual([
      { t: 'funding', source: 'live', n: 2 },
      { t: 'services', source: 'live', n: 8 },
      { t: 'transactions', source: 'live', n: 7 },
    ]);
    const byChain = await queryJson(
      c,
      `SELECT chain, count(*)::INTEGER AS n, round(sum(amount), 6) AS usd FROM x402_transactions GROUP BY chain ORDER BY chain`,
    );
    expect(byChain).toEqual([
      { chain: 'base', n: 5, usd: 1.07 },
      { chain: 'solana', n: 2, usd: 0.06 },
    ]);

    // The next run appends what it indexed to the kept payments: nothing lost, nothing doubled.
    evm.finalized = fx.secondFinalized;
    for (const step of liveIngestSteps(env(), options)) await step.run(t.at(new Date('2026-03-02T02:00:00Z')));
    const [after] = await queryJson(
      c,
      `SELECT count(*)::INTEGER AS n, count(DISTINCT (tx_hash, chain, buyer, amount))::INTEGER AS d FROM x402_transactions`,
    );
    expect(after).toEqual({ n: 9, d: 9 });
    const [services] = await queryJson(c, `SELECT count(*)::INTEGER AS n, max(first_seen)::VARCHAR AS first FROM x402_services`);
    expect(services).toEqual({ n: 8, first: '2026-03-02 01:00:00' });
  });

  it('fails only the steps that need a missing setting, naming it', async () => {
    const steps = liveIngestSteps(env({ BASE_RPC_URL: '' }), options);
    const ctx = t.at(NOW);
    await expect(steps[0]!.run(ctx)).resolves.toBe(8);
    await expect(steps[1]!.run(ctx)).rejects.toThrow(
      /^BASE_RPC_URL is not set: the live x402_transactions and wallet_funding steps need a Base JSON-RPC URL/,
    );
    // Solana was still indexed and what is known is in the table.
    const [tx] = await queryJson(t.warehouse.connection, `SELECT count(*)::INTEGER AS n FROM x402_transactions`);
    expect(tx!.n).toBe(2);
    await expect(steps[2]!.run(ctx)).rejects.toThrow(/^BASE_RPC_URL is not set/);

    const noDiscovery = liveIngestSteps(env({ X402_DISCOVERY_URL: undefined }), options);
    await expect(noDiscovery[0]!.run(ctx)).rejects.toThrow(/^X402_DISCOVERY_URL is not set: /);
  });

  it('reports a failed upstream as a failed step without stopping the run', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'live-ingest-'));
    try {
      const settings = loadSettings({
        X402_DISCOVERY_URL: `${server.url}/nowhere`, // 404: not retried
        BASE_RPC_URL: '',
        WAREHOUSE_DIR: join(dir, 'warehouse'),
        SNAPSHOTS_DIR: join(dir, 'snapshots'),
      });
      const silent: ProgressSink = { start() {}, finish() {}, note() {}, close() {} };
      const result = await runPipeline(
        {
          service: 'analytics',
          updateEverySeconds: 3600,
          ingestSteps: () => liveIngestSteps(settings, options),
          prepareSteps: [],
          datasetSteps: [],
        },
        { source: { kind: 'live' }, now: NOW, seed: 1, scale: 1 },
        settings,
        silent,
      );
      expect(result.ok).toBe(false);
      expect(result.reports.map((r) => [r.name, r.status])).toEqual([
        ['ingest:x402_services', 'failed'],
        ['ingest:x402_transactions', 'failed'],
        ['ingest:wallet_funding', 'failed'],
        ['ingest:exchange_wallets', 'ok'],
      ]);
      expect(result.reports[0]!.detail).toMatch(
        /^x402-discovery: GET http:\/\/127\.0\.0\.1:\d+\/nowhere\/discovery\/resources\?type=http&limit=4&offset=0 failed with HTTP 404/,
      );
      expect(result.reports[1]!.detail).toMatch(/^BASE_RPC_URL is not set/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
